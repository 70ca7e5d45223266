package alerts

import (
	"context"
	"time"

	"tradedeck/feed"
)

// The engine's loop. It does two things on a clock: it saves firings and
// notices another process's change to the file once a second (on the
// wall clock's whole seconds, with the screen's clock and the feed's
// rates, so one wake-up of the process serves all of them), and it fires
// a stream alert once its stream has been down for the alert's time. It
// sleeps until the first of them is due rather than ticking: a stream
// alert with its stream up, or an engine without a file, wakes nobody.

// streamPoll is how often Run fires stream alerts on a clock that is
// not the system's (a replay's): it cannot sleep on that clock, so it
// looks every streamPoll while a stream alert can come due.
const streamPoll = 250 * time.Millisecond

// Run saves firings, notices changes to the file and times the stream
// alerts until ctx ends; it saves once more on the way out.
func (e *Engine) Run(ctx context.Context) {
	t := time.NewTimer(time.Hour)
	defer t.Stop()
	var nextFlush time.Time
	for {
		if d, ok := e.sleep(time.Now(), nextFlush); ok {
			t.Reset(d)
		} else {
			t.Stop()
		}
		select {
		case <-ctx.Done():
			e.report(e.Flush())
			return
		case <-t.C:
		case <-e.poke:
		}
		e.wakes.Add(1)
		e.Tick()
		if now := time.Now(); e.opts.Store != nil && !now.Before(nextFlush) {
			e.report(e.Flush())
			nextFlush = feed.NextSecond(now)
		}
	}
}

// sleep is how long Run may sleep at now (false: until poked).
func (e *Engine) sleep(now, nextFlush time.Time) (time.Duration, bool) {
	var d time.Duration
	ok := false
	take := func(x time.Duration) {
		if !ok || x < d {
			d, ok = max(x, 0), true
		}
	}
	if e.opts.Store != nil {
		take(nextFlush.Sub(now))
	}
	if due := e.nextStreamDue(); !due.IsZero() {
		if at := e.opts.Now(); e.realClock && due.After(at) {
			take(due.Sub(at))
		} else {
			take(streamPoll) // another clock, or due already and not fired: as the old ticker
		}
	}
	return d, ok
}

// nextStreamDue is when Tick can next fire a stream alert: the first
// moment an armed, active stream alert's stream has been down for its
// time and its cooldown has passed (as watch.check decides). Zero: no
// stream alert can fire before something changes (a stream going down
// or an alert changing wakes Run).
func (e *Engine) nextStreamDue() time.Time {
	e.mu.Lock()
	defer e.mu.Unlock()
	var next time.Time
	for _, w := range e.streams {
		if !w.a.Active() || !w.armed {
			continue
		}
		for name, since := range e.health {
			if w.a.Stream != name && w.a.Stream != StreamAny {
				continue
			}
			at := since.Add(time.Duration(w.a.For))
			if w.a.Every && w.a.Cooldown > 0 && w.a.Count > 0 {
				if end := w.a.Last.Add(time.Duration(w.a.Cooldown)); end.After(at) {
					at = end
				}
			}
			if next.IsZero() || at.Before(next) {
				next = at
			}
		}
	}
	return next
}

// wake tells Run to look at its sleep again; it never blocks.
func (e *Engine) wake() {
	select {
	case e.poke <- struct{}{}:
	default:
	}
}
