package proc

import (
	"runtime"
	"testing"
)

// One processor until something needs them all, all while it does, and
// what was there before once the dashboard is done; GOMAXPROCS set by
// the user is left alone.
func TestProcessorsHoldOneUntilNeeded(t *testing.T) {
	t.Setenv("GOMAXPROCS", "")
	before := runtime.GOMAXPROCS(0)
	if before < 2 {
		runtime.GOMAXPROCS(2)
		defer runtime.GOMAXPROCS(before)
	}
	all := runtime.GOMAXPROCS(0)
	p := OneUntilNeeded()
	if n := runtime.GOMAXPROCS(0); n != 1 {
		t.Fatalf("after OneUntilNeeded: %d processors", n)
	}
	p.Need(true)
	p.Need(true)
	if n := runtime.GOMAXPROCS(0); n != all {
		t.Fatalf("needed: %d processors, want %d", n, all)
	}
	p.Need(false)
	if n := runtime.GOMAXPROCS(0); n != 1 {
		t.Fatalf("no longer needed: %d processors", n)
	}
	p.Restore()
	if n := runtime.GOMAXPROCS(0); n != all {
		t.Fatalf("restored: %d processors, want %d", n, all)
	}

	t.Setenv("GOMAXPROCS", "2")
	q := OneUntilNeeded()
	q.Need(false)
	if n := runtime.GOMAXPROCS(0); n != all {
		t.Fatalf("GOMAXPROCS in the environment: %d processors, want %d untouched", n, all)
	}
	q.Restore()
}
