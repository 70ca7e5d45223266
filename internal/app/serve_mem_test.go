package app

import (
	"io"
	"os"
	"runtime"
	"runtime/pprof"
	"strconv"
	"testing"
	"time"

	"tradedeck/internal/testkit"
	"tradedeck/serve/loadgen"
	"tradedeck/sim/market"
)

// TestServeMemoryProfile is a tool: the live heap N served 160x48
// sessions add (TRADEDECK_MEM_SESSIONS=N, default 20), with a heap
// profile written to TRADEDECK_MEM_PROFILE when set (go tool pprof).
func TestServeMemoryProfile(t *testing.T) {
	n, err := strconv.Atoi(os.Getenv("TRADEDECK_MEM_SESSIONS"))
	if err != nil {
		t.Skip("set TRADEDECK_MEM_SESSIONS")
	}
	target := serveOnSim(t, market.RateCalm, DefaultPace)
	open := func(k int) {
		for range k {
			v, err := loadgen.Open(target, io.Discard)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(v.Close)
			if err := v.WaitFirstFrame(30 * time.Second); err != nil {
				t.Fatal(err)
			}
		}
		time.Sleep(3 * time.Second) // a few seconds of frames: a measuring window
	}
	open(1)
	h1, g1 := testkit.HeapInUse(), runtime.NumGoroutine()
	open(n)
	hn, gn := testkit.HeapInUse(), runtime.NumGoroutine()
	t.Logf("live heap: %.1f MB with 1 session, %.1f MB with %d: %.2f MB and %.1f goroutines (server and client) per added session",
		float64(h1)/1e6, float64(hn)/1e6, n+1, float64(hn-h1)/1e6/float64(n), float64(gn-g1)/float64(n))
	if path := os.Getenv("TRADEDECK_MEM_PROFILE"); path != "" {
		f, err := os.Create(path)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if err := pprof.WriteHeapProfile(f); err != nil {
			t.Fatal(err)
		}
	}
}
