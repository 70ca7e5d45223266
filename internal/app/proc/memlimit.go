package proc

import (
	"context"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync/atomic"
)

// The dashboard's soft memory limit. Its live heap is ~5 MiB at 200x60
// following 100 symbols (half of it the renderer's two screens of
// cells); with the default GOGC the heap grows to twice that before a
// collection, plus what the scavenger has not returned yet. A limit of
// 20 MiB of Go runtime memory (heap, stacks and GC metadata; not the
// binary's mapped code, see mapped_linux.go) leaves that growth room:
// at 15 MiB the heap goal was squeezed to ~2 MB above the live heap and
// the busy dashboard collected 6 times a second; now every few seconds,
// for ~3 MiB more RSS (docs/ui.md "CPU"). GOMEMLIMIT in the environment
// wins.
const (
	memLimit    = 20 << 20
	memLimitMax = 256 << 20
)

// limitFor is the limit for a live heap of live bytes: memLimit, or
// twice the live heap and 3 MiB for stacks and GC metadata once the
// screen really holds more (a long account history, four books split),
// so that it never spends its CPU collecting: a heap may always grow by
// what it holds before a collection, as with Go's default GOGC.
func limitFor(live uint64) int64 {
	return min(max(int64(memLimit), 2*int64(live)+3<<20), memLimitMax)
}

// limitMemory sets the dashboard's soft memory limit and, while ctx
// lasts, has it follow the live heap (limitFor). It reads the heap, not
// the collector's CPU time: the runtime estimates that from wall time,
// so on a loaded machine it looked like thrashing and the limit rose
// (an hour's soak went from 23 to 26 MiB while the machine ran builds).
func limitMemory(ctx context.Context) {
	if os.Getenv("GOMEMLIMIT") != "" {
		return
	}
	f := newLimitFollower(ctx, readLiveHeap, func(limit int64) { debug.SetMemoryLimit(limit) })
	debug.SetMemoryLimit(f.limit)
	f.arm()
}

// limitFollower moves the limit after each collection. The live heap is
// measured by a collection's mark and changes only then, so the follower
// wakes once per collection (a cleanup on an object nothing holds runs
// after the collection that found it unreachable) instead of once a
// second on a ticker: an idle dashboard collects every two minutes.
type limitFollower struct {
	done  <-chan struct{}
	live  func() uint64
	set   func(int64)
	limit int64 // the cleanup goroutine's only
	// checks counts the collections followed (tests).
	checks atomic.Int64
}

func newLimitFollower(ctx context.Context, live func() uint64, set func(int64)) *limitFollower {
	return &limitFollower{done: ctx.Done(), live: live, set: set, limit: memLimit}
}

// gcSentinel is the object whose cleanup says a collection happened.
// It holds a pointer so the allocator gives it a block of its own (a
// pointer-free object this small would share one, and might not be
// freed by the next collection).
type gcSentinel struct{ _ *byte }

// arm leaves an unreachable sentinel for the next collection to find.
func (f *limitFollower) arm() {
	runtime.AddCleanup(new(gcSentinel), (*limitFollower).afterGC, f)
}

// afterGC follows the live heap the last collection measured and arms
// the next check, until the context ends.
func (f *limitFollower) afterGC() {
	select {
	case <-f.done:
		return
	default:
	}
	f.checks.Add(1)
	if want := limitFor(f.live()); want != f.limit {
		f.limit = want
		f.set(want)
	}
	f.arm()
}

func readLiveHeap() uint64 {
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}
