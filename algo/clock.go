package algo

import (
	"sync/atomic"
	"time"
)

// The engine's clock: Config.Now reads it, Config.AfterFunc waits on it.
// Every wait that is part of an algo's behaviour runs on it (a TWAP's
// next slot, a working order's idle poll, a stop-limit's market-after,
// the spacing of an exit's re-sends and of its backoff after a refusal);
// waits that bound a request to the venue (a REST timeout, the lookups
// of a send whose result is unknown, the wait for a cancel's final
// state, the journal's ticker) stay on the wall clock.
//
// A clock that only moves when told to (the rehearsal's recorded time)
// needs to know when the engine has done all it can before moving on:
// Quiet says so. A wake-up of the clock counts as news from the moment
// it fires until the goroutine it woke waits again or ends, and a
// goroutine asleep on the clock alone (nothing else can wake it) is
// quiet.

// realAfterFunc is the wall clock's AfterFunc.
func realAfterFunc(d time.Duration, f func()) func() bool {
	return time.AfterFunc(d, f).Stop
}

// algoTimer is one wait of an exit goroutine on the engine's clock.
type algoTimer struct {
	e     *Engine
	a     *algoState
	C     chan struct{} // closed when it fires
	sleep bool          // the goroutine waits on nothing else (counted quiet)
	state atomic.Int32  // timerArmed, timerFired, timerStopped
	stopf func() bool
}

const (
	timerArmed int32 = iota
	timerFired
	timerStopped
)

// newAlgoTimer arms a wait of d for an exit goroutine of a. sleep: the
// goroutine waits on this timer (and the engine's end) alone.
func (e *Engine) newAlgoTimer(a *algoState, d time.Duration, sleep bool) *algoTimer {
	t := &algoTimer{e: e, a: a, C: make(chan struct{}), sleep: sleep}
	e.mu.Lock()
	a.clockWoke = false // the goroutine acted on any earlier wake: it waits again
	if sleep {
		a.clockSleeps++
	}
	e.mu.Unlock()
	t.stopf = e.cfg.AfterFunc(d, t.fire)
	return t
}

// fire marks the algo woken before the goroutine runs: Quiet is false
// from here until the goroutine next waits or goes idle.
func (t *algoTimer) fire() {
	if !t.state.CompareAndSwap(timerArmed, timerFired) {
		return
	}
	t.e.mu.Lock()
	if t.sleep {
		t.a.clockSleeps--
	}
	t.a.clockWoke = true
	t.e.mu.Unlock()
	close(t.C)
}

// stop disarms a timer that has not fired.
func (t *algoTimer) stop() {
	if !t.state.CompareAndSwap(timerArmed, timerStopped) {
		return
	}
	t.stopf()
	if t.sleep {
		t.e.mu.Lock()
		t.a.clockSleeps--
		t.e.mu.Unlock()
	}
}

// sleep waits d on the engine's clock for an exit goroutine of a (false:
// the engine stops).
func (e *Engine) sleep(a *algoState, d time.Duration) bool {
	t := e.newAlgoTimer(a, d, true)
	select {
	case <-t.C:
		return true
	case <-e.runCtx.Done():
		t.stop()
		return false
	}
}

// waiting marks an exit goroutine in waitChild (on), or out of it: it is
// parked only once there (its market-after armed first), and a wake-up
// of the clock it had is acted on when it waits again.
func (e *Engine) waiting(a *algoState, on bool) {
	e.mu.Lock()
	a.inWait = on
	if on {
		a.clockWoke = false
	}
	e.mu.Unlock()
}

// The working orders' runners: each wake-up (a poke: a bbo, a fill, a
// pause, its clock) is counted in pokes; the runner says in seen which
// ones it acted on each time it waits again. Quiet waits while a live
// runner has a wake-up it has not acted on.

// idleWait waits for a wake, d on the engine's clock, or the end of the
// engine (false: the engine stops or the algo ended). It first says the
// runner acted on every wake-up up to its previous return.
func (e *Engine) idleWait(a *algoState, d time.Duration) bool {
	w := a.work
	w.seen.Store(w.acting)
	stop := e.cfg.AfterFunc(d, w.poke)
	defer stop()
	select {
	case <-w.wake:
	case <-w.quit:
		return false
	case <-e.runCtx.Done():
		return false
	}
	w.acting = w.pokes.Load()
	return true
}

// runnerBusyLocked: a working order's runner has a wake-up it has not
// acted on yet (a pending poke, or a step under way).
func runnerBusyLocked(w *workState) bool {
	return w.run && (len(w.wake) > 0 || w.pokes.Load() != w.seen.Load())
}

// lockExit takes the symbol's lock for a's exit. An exit parked on the
// book or asleep on the clock holds it as long as it waits; whoever
// waits for it (another exit, the resting exits' resize) is then as
// quiet as the holder.
func (e *Engine) lockExit(s *symState, a *algoState) {
	e.mu.Lock()
	a.lockWait = true
	e.mu.Unlock()
	s.lock()
	e.mu.Lock()
	a.lockWait, s.holder = false, a
	e.mu.Unlock()
}

func (e *Engine) unlockExit(s *symState) {
	e.mu.Lock()
	s.holder = nil
	e.mu.Unlock()
	s.unlock()
}

// exitQuietLocked: a's exit waits on the book (parked) or on the clock
// alone, with no wake-up left to act on.
func exitQuietLocked(a *algoState) bool {
	return !a.clockWoke && (a.inWait && parkedLocked(a) || a.clockSleeps > 0)
}

// heldQuietLocked: the symbol's lock is held by a quiet exit.
func heldQuietLocked(s *symState) bool {
	return s != nil && s.holder != nil && s.holder.busy && exitQuietLocked(s.holder)
}

// waitsQuietLocked: a's exit waits for its symbol's lock, held by a quiet
// exit.
func waitsQuietLocked(e *Engine, a *algoState) bool {
	return a.lockWait && heldQuietLocked(e.bySym[a.spec.Symbol])
}
