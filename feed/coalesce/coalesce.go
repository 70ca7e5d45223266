// Package coalesce paces a fast producer for a slow consumer: the producer
// only marks what changed; once per frame the changes are collected into
// one pending value, which the consumer receives when it is ready. While
// the consumer is busy, later frames merge into the same pending value, so
// the producer never blocks and the consumer never sees more than one value
// per frame. What the collect function must not lose (events) it appends
// to the pending value, so it is delivered exactly once, in order.
package coalesce

import (
	"context"
	"time"
)

// Run collects and delivers until ctx ends. Every tick it calls
// collect(&pending, fresh): collect merges the changes since its last call
// into pending (fresh says pending holds nothing yet and must be reset)
// and reports whether pending now holds anything to deliver. A pending
// value is sent on out at most once per tick, whenever the consumer reads.
// tick is the frame clock (a time.Ticker's C in production).
func Run[T any](ctx context.Context, tick <-chan time.Time, out chan<- T, collect func(pending *T, fresh bool) bool) {
	var pending T
	have := false
	var send chan<- T // nil (blocking) unless a value waits and this frame has not sent yet
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick:
			if collect(&pending, !have) {
				have = true
				send = out
			}
		case send <- pending:
			var zero T
			pending, have, send = zero, false, nil
		}
	}
}

// Ticker returns a frame clock of the given interval and its stop func.
func Ticker(interval time.Duration) (<-chan time.Time, func()) {
	t := time.NewTicker(interval)
	return t.C, t.Stop
}
