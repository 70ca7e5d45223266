package main

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
// 15 MiB of Go runtime memory (heap, stacks and GC metadata; not the
// binary's mapped code) keeps RSS near 23 MiB for collections every
// second or so, a few % of a core (docs/ui.md "Memory"). GOMEMLIMIT in
// the environment wins.
const (
	memLimit     = 15 << 20
	memLimitStep = 1 << 20
	// gcBudget is the share of one core collections may take before the
	// limit gives way (1 MiB each 10 s, back again under half of it): a
	// screen that really holds more (a long account history, four books
	// split) must not spend its CPU collecting. The runtime's GC CPU
	// figures are estimates from wall time, high on a loaded machine.
	gcBudget    = 0.10
	memLimitMax = 256 << 20
)

// limitMemory sets the dashboard's soft memory limit and raises it while
// ctx lasts whenever collections cost more than gcBudget of a core.
func limitMemory(ctx context.Context) {
	if os.Getenv("GOMEMLIMIT") != "" {
		return
	}
	limit := int64(memLimit)
	debug.SetMemoryLimit(limit)
	go func() {
		const every = 10 * time.Second
		// Marking on otherwise idle processors is free: count the rest.
		s := []metrics.Sample{{Name: "/cpu/classes/gc/mark/assist:cpu-seconds"},
			{Name: "/cpu/classes/gc/mark/dedicated:cpu-seconds"}, {Name: "/cpu/classes/gc/pause:cpu-seconds"}}
		gcCPU := func() float64 {
			metrics.Read(s)
			return s[0].Value.Float64() + s[1].Value.Float64() + s[2].Value.Float64()
		}
		last, at := gcCPU(), time.Now()
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case now := <-t.C:
				gc := gcCPU()
				share := (gc - last) / now.Sub(at).Seconds()
				switch {
				case share > gcBudget && limit < memLimitMax:
					limit += memLimitStep
				case share < gcBudget/2 && limit > memLimit:
					limit -= memLimitStep // the screen got lighter again
				default:
					last, at = gc, now
					continue
				}
				debug.SetMemoryLimit(limit)
				last, at = gc, now
			}
		}
	}()
}
