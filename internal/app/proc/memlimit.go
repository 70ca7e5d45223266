package proc

import (
	"context"
	"os"
	"runtime/debug"
	"runtime/metrics"
	"time"
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
	// limitEvery is how often the limit follows the live heap.
	limitEvery = time.Second
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
	limit := int64(memLimit)
	debug.SetMemoryLimit(limit)
	go func() {
		live := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
		t := time.NewTicker(limitEvery)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				metrics.Read(live)
				if want := limitFor(live[0].Value.Uint64()); want != limit {
					limit = want
					debug.SetMemoryLimit(limit)
				}
			}
		}
	}()
}
