package rehearse

import (
	"cmp"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// recClock is the rehearsal's clock, the engine's and the paper venue's:
// recorded time. It moves only when the rehearsal moves it: to each
// record's receive time, and before that to every timer of the engine
// (algo.Config.AfterFunc) due earlier, each fired once the engine is
// quiet, then settled. So a TWAP's slice due 10 s after its start is
// sent at that recorded time, on the book of that moment, however fast
// the rehearsal plays.
type recClock struct {
	now    atomic.Int64 // ns
	mu     sync.Mutex
	seq    uint64
	timers []*recTimer
}

// recTimer is one AfterFunc of the engine.
type recTimer struct {
	due int64 // ns
	seq uint64
	f   func()
}

// Now is recorded time.
func (c *recClock) Now() time.Time { return time.Unix(0, c.now.Load()) }

// set moves the clock to a record's time (never back).
func (c *recClock) set(ns int64) {
	if ns > c.now.Load() {
		c.now.Store(ns)
	}
}

// AfterFunc is algo.Config.AfterFunc on recorded time: f runs when the
// rehearsal moves the clock to or past now+d (fire), never on its own.
func (c *recClock) AfterFunc(d time.Duration, f func()) func() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.seq++
	t := &recTimer{due: c.now.Load() + int64(max(d, 0)), seq: c.seq, f: f}
	c.timers = append(c.timers, t)
	return func() bool {
		c.mu.Lock()
		defer c.mu.Unlock()
		i := slices.Index(c.timers, t)
		if i < 0 {
			return false
		}
		c.timers = slices.Delete(c.timers, i, i+1)
		return true
	}
}

// next is the earliest due time of the armed timers.
func (c *recClock) next() (int64, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.timers) == 0 {
		return 0, false
	}
	return slices.MinFunc(c.timers, byDue).due, true
}

func byDue(a, b *recTimer) int {
	return cmp.Or(cmp.Compare(a.due, b.due), cmp.Compare(a.seq, b.seq))
}

// fire moves the clock to at and runs every timer due by then, in the
// order they are due (and were armed).
func (c *recClock) fire(at int64) {
	c.set(at)
	c.mu.Lock()
	var due []*recTimer
	c.timers = slices.DeleteFunc(c.timers, func(t *recTimer) bool {
		if t.due <= at {
			due = append(due, t)
			return true
		}
		return false
	})
	c.mu.Unlock()
	slices.SortFunc(due, byDue)
	for _, t := range due {
		t.f()
	}
}

// maxFiresAtOnce bounds the timers fired at one recorded instant: an
// engine whose timers keep arming for "now" would never let time move.
const maxFiresAtOnce = 10_000

// runTimers fires, in order, each engine timer due at or before until,
// the engine settled after each (a timer due as the frame arrives fires
// first: it was due when the frame came).
func (r *run) runTimers(until int64) error {
	if r.eng == nil {
		return nil
	}
	spins := 0
	for {
		due, ok := r.clk.next()
		if !ok || due > until {
			return nil
		}
		if due <= r.clk.now.Load() {
			if spins++; spins > maxFiresAtOnce {
				return fmt.Errorf("rehearse: the engine's timers keep firing at %s without time moving", r.clk.Now().UTC().Format(time.RFC3339Nano))
			}
		} else {
			spins = 0
		}
		r.clk.fire(due)
		if err := r.settle(); err != nil {
			return err
		}
	}
}
