package feed

import (
	"context"
	"time"

	"tradedeck/feed/ws"
)

// Housekeeping is what the clock decides: the health's rates once a
// second, a live book going stale when its deltas stop, a sent order
// overdue for its acknowledgement, the perpetuals' futures data once a
// minute. It sleeps until the first of them is due (the rates on the
// wall clock's whole seconds, with the screen's clock, so one wake-up of
// the process serves both), where a 500 ms ticker woke it twice a second
// to find, most times, nothing due; an order tracked as pending wakes it
// (its timeout may come first).

// housekeepEvery is the tick on a clock that is not the system's (a
// replay's): the loop cannot sleep on that clock, so it looks as often
// as it always did.
const housekeepEvery = 500 * time.Millisecond

// overdueEvery is how often an order still overdue asks again for the
// reconciliation that settles it.
const overdueEvery = 500 * time.Millisecond

// housekeepState is the housekeeping goroutine's own.
type housekeepState struct {
	lastRates, nextRates, lastFutures time.Time
}

func (f *Feed) housekeeping(ctx context.Context) {
	st := &housekeepState{lastFutures: f.cfg.Clock()} // focus fetched the futures already
	st.nextRates = NextSecond(f.cfg.Clock())
	t := time.NewTimer(f.houseSleep(st.nextRates))
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-f.housePoke: // something may be due before t
		case <-t.C:
		}
		f.houseWakes.Add(1)
		t.Reset(f.houseSleep(f.housekeep(st)))
	}
}

// houseSleep is how long the loop sleeps before next is due.
func (f *Feed) houseSleep(next time.Time) time.Duration {
	if !f.realClock {
		return housekeepEvery
	}
	return max(time.Until(next), 0)
}

// housekeep does what is due now and returns when the next thing is.
func (f *Feed) housekeep(st *housekeepState) (next time.Time) {
	now := f.cfg.Clock()
	rates := now.Sub(st.lastRates) >= time.Second
	if f.realClock {
		rates = !now.Before(st.nextRates)
	}
	gaps, resyncs, perps, staleAt := f.mkt.tick(now, rates)
	if rates {
		st.lastRates, st.nextRates = now, NextSecond(now)
		f.health.refresh(now, [2]*ws.Conn{f.mkt.conn, f.acct.conn}, gaps, resyncs)
	}
	next = st.nextRates
	earlier := func(at time.Time) {
		if !at.IsZero() && at.Before(next) {
			next = at
		}
	}
	earlier(staleAt)
	overdue, dueAt := f.acct.pendingOverdue(now)
	if overdue {
		f.acct.requestReconcile()
		dueAt = now.Add(overdueEvery)
	}
	earlier(dueAt)
	if now.Sub(st.lastFutures) >= time.Minute {
		st.lastFutures = now
		for _, p := range perps {
			go f.mkt.refreshFutures(p)
		}
	}
	earlier(st.lastFutures.Add(time.Minute))
	return next
}

// pokeHousekeeping wakes the loop to look at its sleep again; it never
// blocks.
func (c *core) pokeHousekeeping() {
	select {
	case c.housePoke <- struct{}{}:
	default:
	}
}

// NextSecond is the first whole second of the wall clock after now, at
// least half a second away (a wake-up late by most of a second does not
// act twice in a row). The feed's rates come due on it, and so do the
// alert engine's flushes: with the screen's clock, one wake-up of the
// process serves them all.
func NextSecond(now time.Time) time.Time {
	next := now.Truncate(time.Second).Add(time.Second)
	if next.Sub(now) < time.Second/2 {
		next = next.Add(time.Second)
	}
	return next
}

// pendingOverdue reports whether a sent order waits for its ack longer
// than PendingTimeout, and when the first one still in time will.
func (a *accountState) pendingOverdue(now time.Time) (overdue bool, next time.Time) {
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, p := range a.pending {
		at := p.Created.Add(a.c.cfg.PendingTimeout)
		if !now.Before(at) {
			overdue = true
		} else if next.IsZero() || at.Before(next) {
			next = at
		}
	}
	return overdue, next
}
