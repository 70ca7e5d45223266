package coalesce

import (
	"context"
	"sync/atomic"
	"time"
)

// Waker is how a producer tells the coalescer that something changed. It
// wakes the coalescer at most once per collection: the first change after
// a collection sends the signal, later ones only find it armed. So a busy
// producer hands off to the coalescer once per frame, not per message,
// and an idle one not at all.
type Waker struct {
	armed atomic.Bool
	c     chan struct{}
}

// NewWaker returns a Waker for one coalescer (RunOnDemand).
func NewWaker() *Waker { return &Waker{c: make(chan struct{}, 1)} }

// Wake says something changed; it never blocks. Call it after the change
// is visible to collect.
func (w *Waker) Wake() {
	if w == nil || w.armed.Swap(true) {
		return
	}
	select {
	case w.c <- struct{}{}:
	default:
	}
}

// RunOnDemand is Run without a frame clock: it sleeps until w is woken,
// then collects at once or, if the last collection was less than interval
// ago, when interval has passed since it (one timer per frame, none
// while nothing changes). Collections and sends are as Run's: at most one
// send per collection, pending values merge while the consumer is busy.
func RunOnDemand[T any](ctx context.Context, w *Waker, interval time.Duration, out chan<- T, collect func(pending *T, fresh bool) bool) {
	var pending T
	have := false
	var send chan<- T
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	var due <-chan time.Time // non-nil while a collection is scheduled
	var last time.Time
	collectNow := func() {
		due = nil
		w.armed.Store(false) // changes from here on wake again
		last = time.Now()
		if collect(&pending, !have) {
			have = true
			send = out
		}
	}
	for {
		select {
		case <-ctx.Done():
			timer.Stop()
			return
		case <-w.c:
			if due != nil {
				continue
			}
			if d := interval - time.Since(last); d > 0 {
				timer.Reset(d)
				due = timer.C
				continue
			}
			collectNow()
		case <-due:
			collectNow()
		case send <- pending:
			var zero T
			pending, have, send = zero, false, nil
		}
	}
}
