package proc

import (
	"os"
	"runtime"
	"sync"
)

// Processors holds a dashboard to one processor while nothing in it must
// act within a millisecond, and gives it back all of them while something
// must (a stop armed, an order being worked).
//
// On one processor the hand-offs a screen makes per message and per frame
// (stream reader, coalescer, program, renderer) need no wake-up of a
// second thread and none of the scheduler's spinning: 13-15 % of the
// dashboard's CPU on every workload of `make bench-cpu`
// (docs/performance.md "Issue 28: one processor until needed"). The
// price is that a goroutine woken by the network waits for the running
// one to yield: a trigger read from the book could wait for a frame's
// flush (a millisecond or two on a busy 200x60 screen). Nothing a
// trader watches or types notices that; a stop's trigger-to-wire does,
// so while the account's engine here has a live algo the process runs
// on every processor.
type Processors struct {
	mu   sync.Mutex
	all  int // GOMAXPROCS before: what "needed" restores
	need bool
	off  bool // GOMAXPROCS set in the environment: never touched
}

// OneUntilNeeded puts the process on one processor until Need(true),
// unless the environment sets GOMAXPROCS (then it changes nothing).
func OneUntilNeeded() *Processors {
	p := &Processors{all: runtime.GOMAXPROCS(0), off: os.Getenv("GOMAXPROCS") != ""}
	if !p.off {
		runtime.GOMAXPROCS(1)
	}
	return p
}

// Need says whether something in the process must act at once; the
// process runs on all its processors while it does. Safe for concurrent
// use; a repeated answer costs nothing (a change stops the world for
// microseconds).
func (p *Processors) Need(need bool) {
	if p == nil || p.off {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if need == p.need {
		return
	}
	p.need = need
	if need {
		runtime.GOMAXPROCS(p.all)
	} else {
		runtime.GOMAXPROCS(1)
	}
}

// Restore puts back the setting from before OneUntilNeeded (a test runs
// a dashboard inside its own process).
func (p *Processors) Restore() {
	if p == nil || p.off {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.need = true
	runtime.GOMAXPROCS(p.all)
}
