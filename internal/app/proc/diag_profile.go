//go:build profile

package proc

import (
	"fmt"
	"os"
	"runtime"
	"runtime/pprof"
)

// startProfiles starts the profiles the environment asks for; stop
// writes them. TRADEDECK_CPUPROFILE=file: a CPU profile of the session
// (how the rendering and feed costs were measured);
// TRADEDECK_MEMPROFILE=file: the live heap when the session ends, and
// the runtime's memory statistics in file.txt (docs/ui.md "Memory").
// Built only with -tags profile: a binary that can write a heap profile
// samples its allocations all along (runtime/pprof keeps the memory
// profiler on), which costs the dashboard ~1.5 MiB.
func startProfiles() (stop func(), err error) {
	var stops []func()
	stop = func() {
		for i := len(stops) - 1; i >= 0; i-- {
			stops[i]()
		}
	}
	if path := os.Getenv("TRADEDECK_CPUPROFILE"); path != "" {
		f, err := os.Create(path)
		if err != nil {
			return stop, err
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			f.Close()
			return stop, err
		}
		stops = append(stops, func() { pprof.StopCPUProfile(); f.Close() })
	}
	if path := os.Getenv("TRADEDECK_MEMPROFILE"); path != "" {
		runtime.MemProfileRate = 4096 // every small cache, not one sample per 512 KiB
		stops = append(stops, func() { writeHeapProfile(path) })
	}
	return stop, nil
}

// writeHeapProfile writes the live heap (after a collection) to path,
// and the same as text with the runtime's memory statistics (stacks,
// heap in use and released, GC goal) to path.txt.
func writeHeapProfile(path string) {
	runtime.GC()
	for debug, p := range []string{path, path + ".txt"} {
		f, err := os.Create(p)
		if err == nil {
			err = pprof.Lookup("heap").WriteTo(f, debug)
			if cerr := f.Close(); err == nil {
				err = cerr
			}
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "heap profile:", err)
		}
	}
}
