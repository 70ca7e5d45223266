package feed

import (
	"fmt"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"tradedeck/feed/ws"
)

// accountState is the account part: orders, fills, balances, positions
// and the private stream. The stream keeps it current; REST reconciliation
// repairs what a disconnect hid. Every Event it emits is emitted once:
// fills are keyed by trade id, order events by order id and kind. Its
// lock guards all of it; health and the event log are called with it
// held, never the other way round.
type accountState struct {
	c            *core
	conn         *ws.Conn // nil without keys
	reconcileReq chan struct{}
	liqReq       chan struct{} // liqLoop: a position's size changed on the stream
	dirty        atomic.Bool   // changed since the last Update

	mu         sync.Mutex
	open       map[int64]*Order // by order id
	pending    map[int64]*Order // sent, not yet acked; by client order id
	history    []Order          // completed, newest first
	fills      []Fill           // newest first
	seen       map[int64]bool   // trade ids already counted
	seenQ      []int64
	announced  map[int64]uint8 // order id -> events already emitted
	announcedQ []int64
	touched    map[int64]time.Time // local time an open order last changed
	balances   map[string]Balance
	balTouched map[string]time.Time
	positions  map[string]Position
	posTouched map[string]time.Time
	margin     Margin
	collateral Collateral
	reconciled time.Time
	version    uint64
	primed     bool // the first reconciliation is done: later discoveries are news
	authFails  int  // consecutive handshakes the venue closed without a reply
}

const (
	annAck uint8 = 1 << iota
	annCancel
	annReject
)

const memoryLimit = 20000 // trade and order ids remembered for dedup

func (a *accountState) init(c *core) {
	a.c = c
	a.reconcileReq = make(chan struct{}, 1)
	a.liqReq = make(chan struct{}, 1)
	a.open = map[int64]*Order{}
	a.pending = map[int64]*Order{}
	a.seen = map[int64]bool{}
	a.announced = map[int64]uint8{}
	a.touched = map[int64]time.Time{}
	a.balances = map[string]Balance{}
	a.balTouched = map[string]time.Time{}
	a.positions = map[string]Position{}
	a.posTouched = map[string]time.Time{}
}

// changed marks the account for the next Update.
func (a *accountState) changed() { a.dirty.Store(true); a.c.wake.Wake() }

// requestReconcile asks for a REST reconciliation now (it runs once for
// any number of requests made while it waits).
func (a *accountState) requestReconcile() {
	select {
	case a.reconcileReq <- struct{}{}:
	default:
	}
}

func statusRank(s string) int {
	switch s {
	case StatusPending:
		return 0
	case "NEW":
		return 1
	case "PARTIAL_FILLED":
		return 2
	case "FILLED", "CANCELLED", "REJECTED":
		return 3
	}
	return 1
}

func terminal(s string) bool { return statusRank(s) == 3 }

// trackPending shows a just-sent order as PENDING until the venue's
// executionreport (or a REST read) moves it; matched by client order id.
func (a *accountState) trackPending(o Order) {
	if o.ClientOrderID == 0 {
		return // cannot be matched; the ack will show it
	}
	o.Status = StatusPending
	if o.Created.IsZero() {
		o.Created = a.c.cfg.Clock()
	}
	o.Updated = o.Created
	a.mu.Lock()
	a.pending[o.ClientOrderID] = &o
	a.changed()
	a.mu.Unlock()
	a.c.pokeHousekeeping() // its timeout may come before housekeeping's next wake-up
}

// rejectPending ends a PENDING order at once when the venue refused it
// outright (the REST call failed with a venue error), with an
// EventRejected; an order the venue already acknowledged is not touched.
func (a *accountState) rejectPending(clientOrderID int64, reason string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	p := a.pending[clientOrderID]
	if p == nil {
		return
	}
	a.endPendingLocked(p, reason, fmt.Sprintf("%s %s order (client id %d) rejected%s", p.Symbol, p.Side, clientOrderID, reasonSuffix(reason)))
}

// endPendingLocked moves a pending order to history as REJECTED.
func (a *accountState) endPendingLocked(p *Order, reason, text string) {
	delete(a.pending, p.ClientOrderID)
	o := *p
	o.Status, o.Reason, o.Updated = "REJECTED", reason, a.c.cfg.Clock()
	a.history = append([]Order{o}, a.history...)
	if len(a.history) > a.c.cfg.HistoryLimit {
		a.history = a.history[:a.c.cfg.HistoryLimit]
	}
	a.version++
	a.changed()
	a.c.emit(Event{Kind: EventRejected, Symbol: o.Symbol, Order: &o, Text: text})
}

// applyOrderLocked merges a new view of an order (from the stream or REST)
// and emits its ack, cancel or reject once. Views never move an order
// backwards: a late NEW cannot reopen a FILLED order.
func (a *accountState) applyOrderLocked(o Order, news bool) {
	if p := a.pending[o.ClientOrderID]; p != nil && o.ClientOrderID != 0 {
		delete(a.pending, o.ClientOrderID)
		if o.Created.IsZero() {
			o.Created = p.Created
		}
	}
	if cur := a.open[o.OrderID]; cur != nil {
		if statusRank(o.Status) < statusRank(cur.Status) ||
			(statusRank(o.Status) == statusRank(cur.Status) && o.Executed.LessThan(cur.Executed)) {
			return
		}
		if o.Created.IsZero() {
			o.Created = cur.Created
		}
	} else if a.inHistoryLocked(o.OrderID) {
		return // already complete: nothing can follow
	}
	if o.Created.IsZero() {
		o.Created = o.Updated
	}
	if terminal(o.Status) {
		delete(a.open, o.OrderID)
		delete(a.touched, o.OrderID)
		a.history = append([]Order{o}, a.history...)
		if len(a.history) > a.c.cfg.HistoryLimit {
			a.history = a.history[:a.c.cfg.HistoryLimit]
		}
	} else {
		oc := o
		a.open[o.OrderID] = &oc
		a.touched[o.OrderID] = a.c.cfg.Clock()
	}
	a.version++
	a.changed()
	if !news {
		// Known before we started: history, not news. Only what already
		// happened is marked; a later cancel is still announced.
		if terminal(o.Status) {
			a.announceLocked(o.OrderID, annAck|annCancel|annReject)
		} else {
			a.announceLocked(o.OrderID, annAck)
		}
		return
	}
	if a.c.obs != nil {
		a.c.obs.ObserveOrder(o)
	}
	oc := o
	switch o.Status {
	case "NEW", "PARTIAL_FILLED":
		if a.announceLocked(o.OrderID, annAck) {
			a.c.emit(Event{Kind: EventOrderAck, Symbol: o.Symbol, Order: &oc,
				Text: fmt.Sprintf("%s %s %s %s @ %s accepted (#%d)", o.Symbol, o.Side, o.Type, o.Quantity, o.Price, o.OrderID)})
		}
	case "CANCELLED":
		if a.announceLocked(o.OrderID, annCancel) {
			a.c.emit(Event{Kind: EventCancelled, Symbol: o.Symbol, Order: &oc,
				Text: fmt.Sprintf("%s %s order #%d cancelled (%s of %s filled)%s", o.Symbol, o.Side, o.OrderID, o.Executed, o.Quantity, reasonSuffix(o.Reason))})
		}
	case "REJECTED":
		if a.announceLocked(o.OrderID, annReject) {
			a.c.emit(Event{Kind: EventRejected, Symbol: o.Symbol, Order: &oc,
				Text: fmt.Sprintf("%s %s order #%d rejected%s", o.Symbol, o.Side, o.OrderID, reasonSuffix(o.Reason))})
		}
	}
}

func reasonSuffix(r string) string {
	if r == "" {
		return ""
	}
	return ": " + r
}

// announceLocked marks kinds as emitted for an order and reports whether
// any of them was new.
func (a *accountState) announceLocked(orderID int64, kinds uint8) bool {
	prev, ok := a.announced[orderID]
	if prev&kinds == kinds {
		return false
	}
	if !ok {
		a.announcedQ = append(a.announcedQ, orderID)
		if len(a.announcedQ) > memoryLimit {
			delete(a.announced, a.announcedQ[0])
			a.announcedQ = a.announcedQ[1:]
		}
	}
	a.announced[orderID] = prev | kinds
	return true
}

func (a *accountState) inHistoryLocked(id int64) bool {
	for i := range a.history {
		if a.history[i].OrderID == id {
			return true
		}
	}
	return false
}

// addFillLocked records a fill once per trade id; news emits its Event.
func (a *accountState) addFillLocked(fl Fill, news bool) {
	if fl.TradeID == 0 {
		return
	}
	if a.seen[fl.TradeID] {
		a.completeFillLocked(fl)
		return
	}
	a.seen[fl.TradeID] = true
	a.seenQ = append(a.seenQ, fl.TradeID)
	if len(a.seenQ) > memoryLimit {
		delete(a.seen, a.seenQ[0])
		a.seenQ = a.seenQ[1:]
	}
	if fl.ClientOrderID == 0 {
		if o := a.open[fl.OrderID]; o != nil {
			fl.ClientOrderID = o.ClientOrderID
		}
	}
	// Keep fills newest first even when REST delivers them late.
	i := sort.Search(len(a.fills), func(i int) bool { return !a.fills[i].Time.After(fl.Time) })
	a.fills = append(a.fills, Fill{})
	copy(a.fills[i+1:], a.fills[i:])
	a.fills[i] = fl
	if len(a.fills) > a.c.cfg.HistoryLimit {
		a.fills = a.fills[:a.c.cfg.HistoryLimit]
	}
	a.version++
	a.changed()
	if news {
		fc := fl
		a.c.emit(Event{Kind: EventFill, Symbol: fl.Symbol, Fill: &fc, Time: fl.Time,
			Text: fmt.Sprintf("%s %s %s @ %s filled (order #%d, trade #%d)", fl.Symbol, fl.Side, fl.Qty, fl.Price, fl.OrderID, fl.TradeID)})
	}
}

// completeFillLocked adds what only the REST listing carries (the
// realised PnL) to a fill the stream brought first.
func (a *accountState) completeFillLocked(fl Fill) {
	if fl.RealizedPnL.IsZero() {
		return
	}
	for i := range a.fills {
		if a.fills[i].TradeID == fl.TradeID {
			if !a.fills[i].RealizedPnL.Equal(fl.RealizedPnL) {
				a.fills[i].RealizedPnL = fl.RealizedPnL
				a.version++
				a.changed()
			}
			return
		}
	}
}

func msTime(ms int64) time.Time {
	if ms <= 0 {
		return time.Time{}
	}
	return time.UnixMilli(ms)
}
