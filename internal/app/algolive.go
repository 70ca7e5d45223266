package app

import (
	"context"

	"tradedeck/algo"
)

// reportLive tells onLive whether e has a live algo: at once (what the
// journal brought back counts from the start), then after every event of
// the engine (an algo armed, filled, cancelled), until ctx ends. A missed
// event (the channel full) is made up by the next; the answer is read
// from the engine's snapshot, never counted from events.
func reportLive(ctx context.Context, e *algo.Engine, onLive func(bool)) {
	events, stop := e.Subscribe(64)
	defer stop()
	onLive(anyLive(e.Snapshot()))
	for {
		select {
		case <-ctx.Done():
			return
		case _, ok := <-events:
			if !ok {
				return
			}
			onLive(anyLive(e.Snapshot()))
		}
	}
}

// anyLive reports an algo not in a final state: one that may have to act
// on the next tick (armed, waiting, triggered, working) or be decided.
func anyLive(algos []algo.Algo) bool {
	for _, a := range algos {
		if !a.State.Final() {
			return true
		}
	}
	return false
}
