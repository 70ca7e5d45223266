package feed_test

import (
	"os"
	"runtime"
	"testing"
	"time"

	"tradedeck/feed"
)

// soakDuration is how long `make soak` runs (SOAK=1h sets it).
func soakDuration(t *testing.T) time.Duration {
	s := os.Getenv("TRADEDECK_SOAK_DURATION")
	if s == "" {
		return 5 * time.Minute
	}
	d, err := time.ParseDuration(s)
	if err != nil || d <= 0 {
		t.Fatalf("TRADEDECK_SOAK_DURATION=%q: want a duration such as 1h", s)
	}
	return d
}

// TestFeedSoak is the fault test at length (make soak, SOAK=1h): cycles of
// a minute of every fault at once while trading, each followed by a calm
// settle in which the book must be live and equal to the venue's again
// and open orders, balances and positions equal to the venue's. The heap
// and the goroutine count are sampled after every cycle and must stay flat.
func TestFeedSoak(t *testing.T) {
	if !soak() {
		t.Skip("TRADEDECK_SOAK=1 runs the soak")
	}
	total := soakDuration(t)
	ctx := t.Context()
	const symbol = "PERP_BTC_USDT"
	h := startFaultHarness(t, ctx, symbol)
	h.skipPhase(symbol, 30*time.Second)
	tr := h.newTrader()
	end := time.Now().Add(total)
	var heaps []uint64
	var routines []int
	for cycle := 1; time.Now().Before(end); cycle++ {
		h.faultPhase(ctx, tr, symbol, time.Minute)
		h.settle(ctx, symbol)
		h.trimEvents()
		heap, n := heapAfterGC()
		heaps, routines = append(heaps, heap), append(routines, n)
		h.mu.Lock()
		mh := h.marketHealth()
		t.Logf("cycle %d: account equals the venue's; book checks %d, reconnects %d, gaps %d, resyncs %d, heap %.1f MiB, goroutines %d",
			cycle, h.compared[symbol], mh.Reconnects, mh.Gaps, mh.Resyncs, float64(heap)/(1<<20), n)
		h.mu.Unlock()
	}
	h.checkEveryFillAnnounced(ctx)
	checkFlat(t, heaps, routines)
}

// trimEvents checks the events seen so far (none announced twice) and
// keeps only the fills, so an hour's events do not grow the test's heap.
func (h *harness) trimEvents() {
	h.checkEventsOnce()
	h.mu.Lock()
	defer h.mu.Unlock()
	kept := h.events[:0]
	for _, e := range h.events {
		if e.Kind == feed.EventFill && e.Fill != nil {
			kept = append(kept, feed.Event{Kind: e.Kind, Fill: e.Fill})
		}
	}
	h.events = kept
}

func heapAfterGC() (uint64, int) {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc, runtime.NumGoroutine()
}

// checkFlat: after the first cycles (caches and the venue's history warm
// up), the heap may not keep growing and goroutines may not leak. The
// simulated venue shares the process and keeps every order and trade it
// ever made, so the heap gets a margin for that history.
func checkFlat(t *testing.T, heaps []uint64, routines []int) {
	if len(heaps) < 4 {
		return
	}
	warm := len(heaps) / 4
	base, last := heaps[warm], heaps[len(heaps)-1]
	if last > base*2+64<<20 {
		t.Errorf("heap grew from %d to %d bytes after warm-up: %v", base, last, heaps)
	}
	if routines[len(routines)-1] > routines[warm]+20 {
		t.Errorf("goroutines grew from %d to %d: %v", routines[warm], routines[len(routines)-1], routines)
	}
}
