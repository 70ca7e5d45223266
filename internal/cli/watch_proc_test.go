package cli

import (
	"os"
	"runtime"
	"testing"
)

// watch runs on one processor while it runs, unless GOMAXPROCS is set,
// and puts the setting back when it returns.
func TestWatchRunsOnOneProcessor(t *testing.T) {
	t.Setenv("GOMAXPROCS", "")
	if err := os.Unsetenv("GOMAXPROCS"); err != nil {
		t.Fatal(err)
	}
	before := runtime.GOMAXPROCS(0)
	restore := oneProcessor()
	if n := runtime.GOMAXPROCS(0); n != 1 {
		t.Errorf("watch runs on %d processors, want 1", n)
	}
	restore()
	if n := runtime.GOMAXPROCS(0); n != before {
		t.Errorf("after watch %d processors, were %d", n, before)
	}
	t.Setenv("GOMAXPROCS", "2")
	restore = oneProcessor()
	if n := runtime.GOMAXPROCS(0); n != before {
		t.Errorf("GOMAXPROCS set: watch changed the processors to %d (were %d)", n, before)
	}
	restore()
}
