package clocktest

import (
	"sync"
	"testing"
	"time"
)

func TestClockMovesOnlyByAdvance(t *testing.T) {
	start := time.Date(2024, 1, 1, 0, 10, 0, 0, time.UTC)
	c := New(start)
	if !c.Now().Equal(start) || !c.Now().Equal(start) {
		t.Fatalf("Now = %v, want %v", c.Now(), start)
	}
	c.Advance(90 * time.Second)
	c.Advance(-30 * time.Second)
	if want := start.Add(time.Minute); !c.Now().Equal(want) {
		t.Fatalf("after advancing: %v, want %v", c.Now(), want)
	}
}

func TestClockIsSafeForConcurrentUse(t *testing.T) {
	c := New(time.Unix(0, 0))
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 100 {
				c.Advance(time.Millisecond)
				_ = c.Now()
			}
		})
	}
	wg.Wait()
	if got := c.Now().Sub(time.Unix(0, 0)); got != 800*time.Millisecond {
		t.Fatalf("advanced %v, want 800ms", got)
	}
}
