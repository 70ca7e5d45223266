package venue

import (
	"testing"
	"time"
)

// The epoch itself is not before 1970; a millisecond earlier is.
func TestPagingStartAtTheEpoch(t *testing.T) {
	if err := checkPaging(time.UnixMilli(0), time.Time{}, 1); err != nil {
		t.Fatalf("start at the epoch refused: %v", err)
	}
	if err := checkPaging(time.UnixMilli(-1), time.Time{}, 1); err == nil {
		t.Fatal("start before 1970 accepted")
	}
}
