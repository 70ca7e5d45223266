package feed

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"tradedeck/feed/coalesce"
	"tradedeck/venue"
)

// core is what the feed's three parts (market, account, health) share:
// configuration, the REST client, the run context, the event log and the
// observer. It holds no state of its own beyond the event log.
//
// Lock order: a part may call health and the event log while holding its
// own lock (market.mu or account.mu -> health.mu -> events.mu); health
// never calls a part back, and the event log calls nobody, so no cycle
// can form.
type core struct {
	cfg    Config
	rest   *venue.Client
	ctx    atomic.Pointer[context.Context] // Run's, for background fetches
	events eventLog
	health healthState
	obs    Observer // nil: none
	// wake tells the coalescer something changed (once per frame at most).
	wake *coalesce.Waker
	// realClock: Config.Clock is the system's, so housekeeping can sleep
	// until what is due on it (housekeeping.go).
	realClock bool
	// housePoke (cap 1) wakes housekeeping: something may be due sooner.
	housePoke  chan struct{}
	houseWakes atomic.Int64 // housekeeping's wake-ups (tests count them)
}

// runCtx is Run's context (Background before Run).
func (c *core) runCtx() context.Context {
	if p := c.ctx.Load(); p != nil {
		return *p
	}
	return context.Background()
}

func (c *core) logf(format string, args ...any) {
	if c.cfg.Log == nil {
		return
	}
	fmt.Fprintf(c.cfg.Log, c.cfg.Clock().UTC().Format("15:04:05.000")+" feed: "+format+"\n", args...)
}

// sleep waits d on the feed's timer, false when ctx ended first.
func (c *core) sleep(ctx context.Context, d time.Duration) bool {
	select {
	case <-ctx.Done():
		return false
	case <-c.cfg.After(d):
		return true
	}
}

// emit queues e for the next Update (stamping its time) and logs it.
func (c *core) emit(e Event) {
	if e.Time.IsZero() {
		e.Time = c.cfg.Clock()
	}
	c.events.add(e)
	c.logf("%s", e.Text)
}

// eventLog holds the Events not yet handed out, in order. Its lock is the
// innermost: it calls nothing while holding it.
type eventLog struct {
	mu      sync.Mutex
	pending []Event
	any     atomic.Bool // pending is not empty (read without the lock by collect)
	wake    *coalesce.Waker
}

func (l *eventLog) add(e Event) {
	l.mu.Lock()
	l.pending = append(l.pending, e)
	l.any.Store(true)
	l.mu.Unlock()
	l.wake.Wake()
}

// drain appends the pending events to u.
func (l *eventLog) drain(u *Update) {
	if !l.any.Load() {
		return
	}
	l.mu.Lock()
	u.Events = append(u.Events, l.pending...)
	l.pending = l.pending[:0]
	l.any.Store(false)
	l.mu.Unlock()
}

// snapshot copies the pending events (tests).
func (l *eventLog) snapshot() []Event {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]Event(nil), l.pending...)
}
