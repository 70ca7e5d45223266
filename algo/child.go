package algo

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/shopspring/decimal"

	"tradedeck/algo/store"
	"tradedeck/desk"
	"tradedeck/trade"
	"tradedeck/venue"
)

// errUnsettled: a child's fate could not be learned from the venue; the
// algo needs a decision instead of a guess.
var errUnsettled = errors.New("the venue could not tell whether an order was placed")

// errNotJournaled: the database refused the write; nothing was sent.
var errNotJournaled = errors.New("the database refused the write; nothing was sent")

// sendChild journals a child order (with the firing that caused it, when
// f is set), and only then sends it. A send whose result is unknown (a
// timeout, a 5xx) is looked up by its client order id before anything
// else; only an order the venue surely never took may be sent again
// (with the next attempt's id).
func (e *Engine) sendChild(a *algoState, leg Leg, o trade.Order, f *Firing, protective bool) (*child, error) {
	now := e.cfg.Now()
	e.mu.Lock()
	if a.work != nil && (a.cancelled || a.state != StateWorking) {
		e.mu.Unlock()
		return nil, errStopped
	}
	cid, attempt := e.nextCIDLocked(a, leg)
	c := &child{a: a, cid: cid, leg: leg, attempt: attempt, side: o.Side, typ: o.Type, price: o.Price, qty: o.Quantity,
		reduceOnly: o.ReduceOnly, status: ChildJournaled, created: now, updated: now, news: make(chan struct{}, 1)}
	a.children = append(a.children, c)
	e.cids[cid] = c
	a.updated = now
	row, crow := e.algoRowLocked(a), childRow(c)
	e.mu.Unlock()
	err := e.cfg.Store.Tx(func(tx *store.Tx) error {
		if f != nil {
			if err := tx.AddTrigger(triggerRow(a.id, f)); err != nil {
				return err
			}
		}
		if err := tx.UpdateAlgo(row); err != nil {
			return err
		}
		return tx.PutChild(crow)
	})
	if err != nil {
		e.setChild(c, ChildNotSent, 0, decimal.Zero, decimal.Zero, err.Error())
		return nil, fmt.Errorf("%w: %v", errNotJournaled, err)
	}
	o.ClientOrderID = cid
	ctx, cancel := e.callFor(leg, protective)
	ack, err := e.cfg.Venue.SendOrder(ctx, trade.Request(o))
	cancel()
	switch {
	case err == nil:
		e.mu.Lock()
		if c.status == ChildJournaled {
			c.status = "NEW"
		}
		if c.orderID == 0 {
			c.orderID = int64(ack.OrderID)
		}
		e.mu.Unlock()
		e.journalChild(c)
		return c, nil
	case desk.Refused(err):
		e.setChild(c, "REJECTED", 0, decimal.Zero, decimal.Zero, trade.Explain(err))
		return nil, err
	}
	e.setChild(c, ChildUnknown, 0, decimal.Zero, decimal.Zero, trade.Explain(err))
	if e.settleUnknown(c) {
		e.mu.Lock()
		notSent := c.status == ChildNotSent
		e.mu.Unlock()
		if notSent {
			return nil, err
		}
		return c, nil
	}
	return nil, fmt.Errorf("%w: client order id %d: %v", errUnsettled, cid, err)
}

// settleUnknown looks a child up by its client order id until the venue
// says what became of it (false: it never did, within the retries).
func (e *Engine) settleUnknown(c *child) bool {
	for try := 0; try <= e.cfg.Retries; try++ {
		switch e.lookupChild(c) {
		case lookupFound, lookupNotFound:
			return true
		}
		select {
		case <-time.After(time.Duration(try+1) * 300 * time.Millisecond):
		case <-e.runCtx.Done():
			return false
		}
	}
	return false
}

type lookup uint8

const (
	lookupFound lookup = iota
	lookupNotFound
	lookupFailed
)

// lookupChild reads a child from REST by client order id and applies it.
func (e *Engine) lookupChild(c *child) lookup {
	ctx, cancel := e.callFor(c.leg, true)
	o, err := e.cfg.Venue.GetOrderByClientID(ctx, c.cid)
	cancel()
	var ae *venue.APIError
	switch {
	case err == nil:
		e.mu.Lock()
		changed := e.applyChildLocked(c, string(o.Status), int64(o.OrderID), o.Executed, o.AverageExecutedPrice.Decimal, o.Reason)
		e.mu.Unlock()
		if changed {
			c.notify()
			e.childChanged(c)
		}
		return lookupFound
	case errors.As(err, &ae) && ae.Code == venue.CodeResourceNotFound:
		e.mu.Lock()
		st := c.status
		e.mu.Unlock()
		if st == ChildJournaled || st == ChildUnknown || st == ChildSent {
			e.setChild(c, ChildNotSent, 0, decimal.Zero, decimal.Zero, "the venue has no order with this client order id")
			return lookupNotFound
		}
		return lookupFailed
	}
	return lookupFailed
}

// setChild changes a child's status (and fill) and journals it.
func (e *Engine) setChild(c *child, status string, orderID int64, executed, avg decimal.Decimal, reason string) {
	e.mu.Lock()
	c.status, c.reason, c.updated = status, reason, e.cfg.Now()
	if orderID != 0 {
		c.orderID = orderID
	}
	if executed.GreaterThan(c.executed) {
		e.addExecutedLocked(c, executed)
		c.avg = avg
	}
	e.mu.Unlock()
	c.notify()
	e.journalChild(c)
}

// applyChildLocked merges a view of a child from the stream or REST; it
// never moves a child backwards (a late NEW cannot reopen it).
func (e *Engine) applyChildLocked(c *child, status string, orderID int64, executed, avg decimal.Decimal, reason string) bool {
	if statusRank(status) < statusRank(c.status) || (!c.open() && c.status != ChildNotSent) {
		return false
	}
	if status == c.status && !executed.GreaterThan(c.executed) {
		return false
	}
	c.status, c.updated = status, e.cfg.Now()
	if orderID != 0 {
		c.orderID = orderID
	}
	if reason != "" {
		c.reason = reason
	}
	if executed.GreaterThan(c.executed) {
		e.addExecutedLocked(c, executed)
		c.avg = avg
	}
	return true
}

// addExecutedLocked counts a child's new fills toward its algo.
func (e *Engine) addExecutedLocked(c *child, executed decimal.Decimal) {
	d := executed.Sub(c.executed)
	c.executed = executed
	if c.leg == LegEntry {
		c.a.entryFilled = c.a.entryFilled.Add(d)
	} else {
		c.a.exited = c.a.exited.Add(d)
	}
}

func statusRank(s string) int {
	switch s {
	case ChildJournaled, ChildUnknown, ChildNotSent:
		return 0
	case ChildSent, "NEW", "PENDING":
		return 1
	case "PARTIAL_FILLED":
		return 2
	}
	return 3
}

// callFor bounds a child's REST call: a working order's children take
// the working budget (after protective requests, never the reserve).
func (e *Engine) callFor(leg Leg, protective bool) (context.Context, context.CancelFunc) {
	if leg == LegWork {
		return e.callWork()
	}
	return e.call(protective)
}

// cancelCall bounds a cancel: protective, or a working order's re-price
// in the working budget.
func (e *Engine) cancelCall(c *child, protective bool) (context.Context, context.CancelFunc) {
	if protective {
		return e.call(true)
	}
	return e.callFor(c.leg, false)
}

// cancelChild asks the venue to cancel a child (protective budget) and
// waits for its final state: a cancel acknowledgement is not proof that
// it did not fill. A child already final is left alone.
func (e *Engine) cancelChild(c *child) { e.cancelChildAs(c, true) }

// cancelChildAs is cancelChild; protective false puts a working order's
// re-price cancel in the working budget.
func (e *Engine) cancelChildAs(c *child, protective bool) {
	for try := 0; try <= e.cfg.Retries; try++ {
		e.mu.Lock()
		open := c.open()
		e.mu.Unlock()
		if !open {
			return
		}
		ctx, cancel := e.cancelCall(c, protective)
		err := e.cfg.Venue.CancelOrderByClientID(ctx, c.a.spec.Symbol, c.cid)
		cancel()
		var ae *venue.APIError
		if err != nil && (!errors.As(err, &ae) || ae.Code != venue.CodeResourceNotFound) {
			e.logf("algo #%d: cancel of %d: %v", c.a.id, c.cid, err)
		}
		if err == nil && !protective && c.leg == LegWork && e.streamFinal(c) {
			return
		}
		// Wait for the final state on the stream, reading REST meanwhile.
		deadline := time.After(max(e.cfg.Poll*3, time.Second))
	wait:
		for {
			e.lookupChild(c)
			e.mu.Lock()
			open = c.open()
			e.mu.Unlock()
			if !open {
				return
			}
			select {
			case <-c.news:
			case <-time.After(e.cfg.Poll / 4):
			case <-deadline:
				break wait
			case <-e.runCtx.Done():
				return
			}
		}
	}
}

// streamWait bounds how long a working order's cancelled child waits for
// its final state on the private stream before it is read from REST.
const streamWait = 500 * time.Millisecond

// streamFinal waits for the final state of a working order's child whose
// re-price cancel the venue accepted, on the private stream alone: the
// stream carries it a few ms after the cancel, so a chase's re-price
// spends no read of the account's order-read budget on it. (Stopping an
// algo, flatten and panic cancel read REST at once: they must not wait
// on a silent stream.) It gives up (false: read REST) at once when the stream is down or
// may never have carried the child (missedByStream), and after
// min(Poll, streamWait) of silence. The fill and the final state come
// in one report (its executed quantity is the order's total), so what
// the cancelled order really filled is known either way.
func (e *Engine) streamFinal(c *child) bool {
	if !e.privateUp.Load() {
		return false
	}
	e.mu.Lock()
	missed := e.missedByStream(c, e.cfg.Now())
	e.mu.Unlock()
	if missed {
		return false
	}
	t := time.NewTimer(min(e.cfg.Poll, streamWait))
	defer t.Stop()
	for {
		e.mu.Lock()
		open := c.open()
		e.mu.Unlock()
		if !open {
			return true
		}
		select {
		case <-c.news:
		case <-t.C:
			return false
		case <-e.runCtx.Done():
			return false
		}
	}
}

// childLocked finds a child by client order id.
func (e *Engine) childLocked(cid int64) *child { return e.cids[cid] }

// childChanged reacts to a child's news outside the lock: journal it, and
// move the algo on when a resting exit or an entry filled.
func (e *Engine) childChanged(c *child) {
	e.journalChild(c)
	e.mu.Lock()
	a := c.a
	st := c.status
	var ev *Event
	switch {
	case c.leg == LegEntry && c.executed.IsPositive():
		if !a.active {
			a.active = true
			e.armLocked(a)
			a.state = StateArmed
		}
		if st == "FILLED" || st == "CANCELLED" || st == "REJECTED" {
			a.entryDone = true
		}
		ev = &Event{Kind: EventPartial, Algo: a.id, Symbol: a.spec.Symbol, Time: e.cfg.Now(),
			Text: sprintf("#%d bracket entry filled %s of %s: exits follow", a.id, a.entryFilled, a.spec.Entry.Quantity)}
	case c.leg == LegEntry && (st == "CANCELLED" || st == "REJECTED"):
		a.entryDone = true
	case c.leg == LegTP && st == "PARTIAL_FILLED":
		ev = &Event{Kind: EventPartial, Algo: a.id, Symbol: a.spec.Symbol, Time: e.cfg.Now(),
			Text: sprintf("#%d take-profit filled %s of %s", a.id, c.executed, c.qty)}
	}
	e.mu.Unlock()
	if ev != nil {
		e.emit(*ev)
	}
	switch {
	case c.leg == LegEntry:
		e.positionChanged(a.spec.Symbol)
		if e.entryVoid(a) {
			e.finish(a, StateDone, "the entry ended without a fill")
		}
	case c.leg == LegTP && st == "FILLED":
		e.tpFilled(a, c)
	case c.leg == LegWork && a.work != nil:
		a.work.poke()
	}
}

// entryVoid: a bracket whose entry ended unfilled has nothing to protect.
func (e *Engine) entryVoid(a *algoState) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	return a.entryDone && !a.entryFilled.IsPositive() && !a.state.Final()
}

// journalChild writes a child's row.
func (e *Engine) journalChild(c *child) {
	e.mu.Lock()
	row := childRow(c)
	e.mu.Unlock()
	if err := e.cfg.Store.Tx(func(tx *store.Tx) error { return tx.PutChild(row) }); err != nil {
		e.logf("algo #%d: journal child %d: %v", c.a.id, c.cid, err)
	}
}

func childRow(c *child) store.ChildRow {
	return store.ChildRow{CID: c.cid, AlgoID: int64(c.a.id), Leg: int(c.leg), Attempt: c.attempt, Symbol: c.a.spec.Symbol,
		Side: string(c.side), Type: string(c.typ), Price: c.price.String(), Quantity: c.qty.String(), ReduceOnly: c.reduceOnly,
		Status: c.status, OrderID: c.orderID, Executed: c.executed.String(), AvgPrice: c.avg.String(), Reason: c.reason,
		Created: c.created, Updated: c.updated}
}

func triggerRow(id ID, f *Firing) store.TriggerRow {
	return store.TriggerRow{AlgoID: int64(id), Leg: int(f.Leg), Level: f.Level.String(), Price: f.Price.String(),
		Source: f.Source.String(), VenueMS: f.VenueTime.UnixMilli(), At: f.At, AgeMS: f.Age.Milliseconds(), Why: f.Why}
}
