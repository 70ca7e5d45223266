package algo

import "tradedeck/trade"

// Quiet reports an engine with nothing in motion: reconciled; every
// algo a goroutine works parked on its exit resting on the book (a
// stop-limit's LIMIT the venue acknowledged), asleep on the engine's
// clock (an exit's re-send spacing) or waiting for its symbol's lock
// such an exit holds; no resize of a symbol's resting exits under way
// (one waiting for that lock is quiet too); no wake-up of the clock not
// acted on yet; every working order's runner waiting with nothing left
// to act on (a bbo that moved a chase, a fill, its first step) and no
// child being sent. Only new market data or the clock can move a quiet
// engine. A host that plays recorded data into the engine on a clock of
// its own (the rehearsal of `tradedeck replay --rehearse`) waits for it
// after each frame and each move of its clock: the next frame then meets
// exactly the orders this one caused, a timer due before it fires first
// (Config.AfterFunc), and the same recording gives the same fills every
// time.
func (e *Engine) Quiet() bool {
	if !e.isReady.Load() {
		return false
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, s := range e.bySym {
		if s.rebalancing && !heldQuietLocked(s) {
			return false
		}
	}
	for _, a := range e.algos {
		if a.clockWoke {
			return false
		}
		if a.busy && !exitQuietLocked(a) && !waitsQuietLocked(e, a) {
			return false
		}
		if w := a.work; w != nil && (runnerBusyLocked(w) || !a.state.Final() && sendingLocked(a)) {
			return false
		}
	}
	return true
}

// sendingLocked: a working order has a child whose send or first answer
// is still out (a chase's re-price, a rung, a slice). A working order
// waiting for the book or for its next slot is quiet.
func sendingLocked(a *algoState) bool {
	for _, c := range a.children {
		switch c.status {
		case ChildJournaled, ChildSent, ChildUnknown:
			return true
		}
	}
	return false
}

// parkedLocked: the newest child of a fired algo is its exit, resting on
// the book as the venue acknowledged it.
func parkedLocked(a *algoState) bool {
	if a.fired == nil || len(a.children) == 0 {
		return false
	}
	c := a.children[len(a.children)-1]
	if c.leg != a.fired.Leg || c.typ == trade.Market {
		return false
	}
	return c.status == "NEW" || c.status == "PARTIAL_FILLED"
}
