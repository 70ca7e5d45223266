package proc

import (
	"context"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// The limit stays at memLimit for the dashboard's usual heap, follows a
// heap that really holds more with room to grow by as much, and stops at
// memLimitMax.
func TestLimitFollowsTheLiveHeap(t *testing.T) {
	for _, c := range []struct {
		live uint64
		want int64
	}{
		{0, memLimit},
		{5 << 20, memLimit},
		{6 << 20, memLimit},
		{20 << 20, 43 << 20},
		{200 << 20, memLimitMax},
	} {
		if got := limitFor(c.live); got != c.want {
			t.Errorf("live %d MiB: limit %d MiB, want %d MiB", c.live>>20, got>>20, c.want>>20)
		}
	}
}

// The metric the limit reads exists in this Go (a missing one reads as
// KindBad and zero: the limit would never follow).
func TestLiveHeapMetricExists(t *testing.T) {
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		t.Fatalf("%s: kind %v", s[0].Name, s[0].Value.Kind())
	}
}

// The limit is followed once per collection, not on a clock: with the
// collector off nothing is checked for longer than the ticker it
// replaced waited (a second), each forced collection is followed exactly
// once, a live heap that grew moves the limit, and once the context
// ends a collection checks nothing.
func TestLimitFollowsEachCollection(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	ctx, cancel := context.WithCancel(t.Context())
	var live atomic.Uint64
	var mu sync.Mutex
	var set []int64
	f := newLimitFollower(ctx, live.Load, func(l int64) { mu.Lock(); set = append(set, l); mu.Unlock() })
	f.arm()
	waitChecks := func(n int64) {
		t.Helper()
		for deadline := time.Now().Add(5 * time.Second); f.checks.Load() < n; {
			if time.Now().After(deadline) {
				t.Fatalf("%d checks after %d collections", f.checks.Load(), n)
			}
			time.Sleep(time.Millisecond)
		}
	}
	time.Sleep(1100 * time.Millisecond)
	if n := f.checks.Load(); n != 0 {
		t.Fatalf("%d checks without a collection", n)
	}
	for i := int64(1); i <= 3; i++ {
		runtime.GC()
		waitChecks(i)
	}
	mu.Lock()
	if len(set) != 0 {
		t.Fatalf("the limit moved for an unchanged heap: %v", set)
	}
	mu.Unlock()
	live.Store(20 << 20)
	runtime.GC()
	waitChecks(4)
	mu.Lock()
	if len(set) != 1 || set[0] != 43<<20 {
		t.Fatalf("limits set after the heap grew to 20 MiB: %v, want [43 MiB]", set)
	}
	mu.Unlock()
	if n := f.checks.Load(); n != 4 {
		t.Fatalf("%d checks after 4 collections", n)
	}
	cancel()
	runtime.GC()
	runtime.GC()
	time.Sleep(20 * time.Millisecond)
	if n := f.checks.Load(); n != 4 {
		t.Fatalf("%d checks after the context ended, want the 4 before", n)
	}
}
