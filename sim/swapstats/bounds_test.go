package swapstats

import (
	"strconv"
	"testing"
	"time"
)

// TestLimiterBoundedAndExpiring: a flood of addresses never grows the table
// past maxBuckets, and buckets go once refilled (a minute after last use).
func TestLimiterBoundedAndExpiring(t *testing.T) {
	now := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	l := newLimiter(DefaultRateLimit, func() time.Time { return now })
	refused := 0
	for i := range maxBuckets + 5000 {
		if _, ok := l.allow("10." + strconv.Itoa(i)); !ok {
			refused++
		}
	}
	if n := l.size(); n > maxBuckets {
		t.Fatalf("limiter holds %d buckets, bound %d", n, maxBuckets)
	}
	if refused != 5000 {
		t.Fatalf("%d new addresses refused with a full table, want 5000", refused)
	}
	now = now.Add(61 * time.Second)
	if _, ok := l.allow("10.0.0.1"); !ok {
		t.Fatal("a client refused after the flood passed")
	}
	if n := l.size(); n != 1 {
		t.Fatalf("limiter holds %d buckets a minute later, want 1", n)
	}
}
