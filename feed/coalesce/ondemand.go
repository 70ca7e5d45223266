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
//
// While the coalescer waits for the frame interval to pass since its last
// collection, the first change after that moment signals again: the
// coalescer collects then, on the producer's wake-up, and its own timer
// (armed half an interval later, for a change that nothing follows) does
// not wake the process. A busy feed so collects with no timer at all.
type Waker struct {
	armed atomic.Bool
	// due is when (ns after epoch) the frame interval has passed and a
	// change signals again; 0: no wait in progress, or already signalled.
	due   atomic.Int64
	epoch time.Time
	c     chan struct{}
}

// NewWaker returns a Waker for one coalescer (RunOnDemand).
func NewWaker() *Waker { return &Waker{c: make(chan struct{}, 1), epoch: time.Now()} }

// Wake says something changed; it never blocks. Call it after the change
// is visible to collect.
func (w *Waker) Wake() {
	if w == nil {
		return
	}
	if w.armed.Swap(true) {
		// Signalled already: again only once the interval has passed.
		if d := w.due.Load(); d == 0 || w.since() < d || !w.due.CompareAndSwap(d, 0) {
			return
		}
	}
	select {
	case w.c <- struct{}{}:
	default:
	}
}

// since is the monotonic time since the Waker was made.
func (w *Waker) since() int64 { return int64(time.Since(w.epoch)) }

// RunOnDemand is Run without a frame clock: it sleeps until w is woken,
// then collects at once or, if the last collection was less than interval
// ago, on the first change after interval has passed since it, or half
// an interval later if none comes (no timer wake-up while changes keep
// coming, none at all while nothing changes). Collections and sends are
// as Run's: at most one send per collection, pending values merge while
// the consumer is busy.
func RunOnDemand[T any](ctx context.Context, w *Waker, interval time.Duration, out chan<- T, collect func(pending *T, fresh bool) bool) {
	var pending T
	have := false
	var send chan<- T
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	var due <-chan time.Time // non-nil while a collection is scheduled
	var last int64           // w.since() of the last collection
	collected := false
	collectNow := func() {
		if due != nil {
			timer.Stop()
			due = nil
		}
		w.due.Store(0)
		w.armed.Store(false) // changes from here on wake again
		last, collected = w.since(), true
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
				collectNow() // a change after the interval passed
				continue
			}
			if d := time.Duration(last + int64(interval) - w.since()); collected && d > 0 {
				w.due.Store(last + int64(interval))
				timer.Reset(d + interval/2)
				due = timer.C
				if w.since() >= last+int64(interval) && w.due.CompareAndSwap(last+int64(interval), 0) {
					collectNow() // the interval passed while arming: no producer will signal for it
				}
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
