package app

import (
	"context"

	"tradedeck/algo"
)

// reportLive tells onLive whether e has a live algo (algo.Engine.Live):
// at once (what the journal brought back counts from the start), then
// after every event of the engine (an algo armed, filled, cancelled),
// until ctx ends. A missed event (the channel full) is made up by the
// next; the answer is read from the engine, never counted from events.
func reportLive(ctx context.Context, e *algo.Engine, onLive func(bool)) {
	events, stop := e.Subscribe(64)
	defer stop()
	onLive(e.Live())
	for {
		select {
		case <-ctx.Done():
			return
		case _, ok := <-events:
			if !ok {
				return
			}
			onLive(e.Live())
		}
	}
}
