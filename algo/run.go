package algo

import (
	"context"
	"fmt"
	"sort"
	"time"

	"tradedeck/algo/store"
)

// Run reconciles with the venue (open children by client order id, the
// position, trades since the last journaled moment), arms the algos, and
// keeps the journal of moving state (trailing anchors, watermarks,
// events) until ctx ends. Nothing fires before the reconciliation ended.
func (e *Engine) Run(ctx context.Context) error {
	stop := context.AfterFunc(ctx, e.stopRun)
	defer stop()
	if err := e.reconcile(); err != nil {
		return fmt.Errorf("algo: reconcile: %w", err)
	}
	e.isReady.Store(true)
	close(e.ready)
	e.mu.Lock()
	syms := e.symbolsLocked()
	e.mu.Unlock()
	e.announce(syms)
	for _, s := range syms {
		e.positionChanged(s)
	}
	e.startWorking()
	// The journal's round every journalEvery while an algo is live or
	// events wait to be written; asleep otherwise (an idle engine woke its
	// process four times a second for nothing), until an event kicks it.
	t := time.NewTicker(journalEvery)
	defer t.Stop()
	ticking := true
	for {
		select {
		case <-ctx.Done():
			e.journalMoving()
			e.spawnMu.Lock()
			e.stopping = true
			e.spawnMu.Unlock()
			e.wg.Wait()
			e.journalMoving()
			return nil
		case <-e.kick:
			if !ticking {
				t.Reset(journalEvery)
				ticking = true
			}
			continue
		case <-t.C:
		}
		e.rounds.Add(1)
		e.journalMoving()
		e.pollResting()
		if !e.roundDue() {
			t.Stop()
			ticking = false
		}
	}
}

// roundDue reports work for the journal's next round: a live algo (its
// anchor, its symbol's watermark, resting children to poll) or events
// not written yet.
func (e *Engine) roundDue() bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	return len(e.events) > 0 || e.liveLocked()
}

// Live reports an algo not in a final state: one that may have to act on
// the next tick (armed, waiting, triggered, working) or be decided.
func (e *Engine) Live() bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.liveLocked()
}

func (e *Engine) liveLocked() bool {
	for _, a := range e.algos {
		if !a.state.Final() {
			return true
		}
	}
	return false
}

// pollPerRound bounds the REST reads of one pollResting round.
const pollPerRound = 3

// pollResting reads, every Poll, the resting children nobody else waits
// on (a bracket's entry, the take-profits) that the private stream has
// not moved for a Poll, the least recently read first, a few a round: a
// fill whose frame was lost (a reconnect) is learnt from REST instead of
// leaving a filled entry unprotected.
func (e *Engine) pollResting() {
	now := e.cfg.Now()
	e.mu.Lock()
	if e.polling || now.Sub(e.polledAt) < e.cfg.Poll {
		e.mu.Unlock()
		return
	}
	var due []*child
	for _, a := range e.algos {
		if a.state.Final() || a.state == StateNeedsDecision {
			continue
		}
		for _, c := range a.children {
			quiet := c.open() && c.status != ChildJournaled && now.Sub(c.updated) > e.cfg.Poll && now.Sub(c.polled) > e.cfg.Poll
			if (c.leg == LegEntry || c.leg == LegTP) && (quiet || e.missedByStream(c, now)) {
				due = append(due, c)
			}
		}
	}
	sort.Slice(due, func(i, j int) bool { return due[i].polled.Before(due[j].polled) })
	if len(due) > pollPerRound {
		due = due[:pollPerRound]
	}
	for _, c := range due {
		c.polled = now
	}
	e.polledAt, e.polling = now, len(due) > 0
	e.mu.Unlock()
	if len(due) == 0 {
		return
	}
	started := e.spawn(func() {
		for _, c := range due {
			e.lookupChild(c)
		}
		e.mu.Lock()
		e.polling = false
		e.mu.Unlock()
	})
	if !started {
		e.mu.Lock()
		e.polling = false
		e.mu.Unlock()
	}
}

// journalEvery is how often moving state is written: a trailing anchor
// is durable within it (and rebuilt from the venue's trades after a
// restart anyway); writing it on every move would compete with the
// commits of exits for the database.
const journalEvery = 250 * time.Millisecond

// journalMoving writes what moves on the hot path without a commit of
// its own there: trailing anchors, each symbol's latest market moment
// (the watermark a restart checks trades from) and the events.
func (e *Engine) journalMoving() {
	e.mu.Lock()
	var rows []store.AlgoRow
	for _, a := range e.algos {
		if a.anchorDirty {
			a.anchorDirty = false
			rows = append(rows, e.algoRowLocked(a))
		}
	}
	type mark struct {
		sym string
		ms  int64
	}
	var marks []mark
	for _, s := range e.bySym {
		if len(s.triggers) > 0 && s.seenMS > s.journaledMS {
			marks = append(marks, mark{s.name, s.seenMS})
			s.journaledMS = s.seenMS
		}
	}
	evs := e.events
	e.events = nil
	e.mu.Unlock()
	if len(rows)+len(marks)+len(evs) == 0 {
		return
	}
	err := e.cfg.Store.Tx(func(tx *store.Tx) error {
		for _, r := range rows {
			if err := tx.UpdateAlgo(r); err != nil {
				return err
			}
		}
		for _, m := range marks {
			if err := tx.SetWatermark(e.cfg.Account, m.sym, m.ms); err != nil {
				return err
			}
		}
		for _, ev := range evs {
			if err := tx.AddEvent(ev); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		e.logf("algo: journal: %v", err)
	}
}

// subscriber is one Subscribe channel.
type subscriber struct {
	ch      chan Event
	dropped int
}

// Subscribe returns a channel of the engine's events (buffer n); a
// subscriber that does not keep up loses events (counted in the next one
// it gets), never delays the engine. cancel ends the subscription.
func (e *Engine) Subscribe(n int) (<-chan Event, func()) {
	s := &subscriber{ch: make(chan Event, max(n, 1))}
	e.subMu.Lock()
	e.subs[s] = struct{}{}
	e.subMu.Unlock()
	return s.ch, func() {
		e.subMu.Lock()
		if _, ok := e.subs[s]; ok {
			delete(e.subs, s)
			close(s.ch)
		}
		e.subMu.Unlock()
	}
}

// emit hands an event to every subscriber and queues it for the journal.
func (e *Engine) emit(ev Event) {
	if ev.Time.IsZero() {
		ev.Time = e.cfg.Now()
	}
	e.logf("%s", ev.Text)
	e.mu.Lock()
	e.events = append(e.events, store.EventRow{Account: e.cfg.Account, AlgoID: int64(ev.Algo), Kind: ev.Kind.String(),
		Symbol: ev.Symbol, Text: ev.Text, At: ev.Time})
	e.mu.Unlock()
	select { // wake the journal's round if it sleeps
	case e.kick <- struct{}{}:
	default:
	}
	e.subMu.Lock()
	defer e.subMu.Unlock()
	for s := range e.subs {
		if s.dropped > 0 {
			lost := Event{Kind: EventEngine, Time: ev.Time, Text: fmt.Sprintf("%d events were dropped (a slow reader)", s.dropped)}
			select {
			case s.ch <- lost:
				s.dropped = 0
			default:
			}
		}
		select {
		case s.ch <- ev:
		default:
			s.dropped++
		}
	}
}
