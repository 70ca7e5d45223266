package exchange

import (
	"github.com/shopspring/decimal"
)

// Event is something the venue announces: the Websocket layer turns each
// into frames. Events are published in the order things happened, from
// under the exchange's lock, so a subscriber sees a consistent sequence.
type Event interface{ isEvent() }

// OrderEvent carries everything an `executionreport` frame needs. One is
// published when an order is accepted (NEW), for each fill
// (PARTIAL_FILLED/FILLED, with the fill's trade), when it is cancelled
// (CANCELLED, with a reason) and when it is rejected after acceptance.
type OrderEvent struct {
	ApplicationID         string // the owning account
	Symbol                string
	ClientOrderID         int64
	OrderID               int64
	Type                  OrderType
	Side                  Side
	Quantity              decimal.Decimal
	Price                 decimal.Decimal
	TradeID               int64 // 0 when not a fill
	ExecutedPrice         decimal.Decimal
	ExecutedQuantity      decimal.Decimal
	Fee                   decimal.Decimal
	FeeAsset              string
	TotalExecutedQuantity decimal.Decimal
	AvgPrice              decimal.Decimal
	Status                Status
	Reason                string
	OrderTag              string
	TotalFee              decimal.Decimal
	Timestamp             int64 // ms
	Maker                 bool
}

// TradeEvent is a public trade (the `trade` topic).
type TradeEvent struct{ PublicTrade }

// BalanceEvent says a token balance of an account changed.
type BalanceEvent struct {
	ApplicationID string
	Token         string
	Timestamp     int64
}

// PositionEvent says a perpetual position of an account changed.
type PositionEvent struct {
	ApplicationID string
	Symbol        string
	Timestamp     int64
}

// BookChanged says the order book of a symbol changed at Timestamp (ms),
// the same venue time Depth reports.
type BookChanged struct {
	Symbol    string
	Timestamp int64
}

// PriceEvent says a perpetual's mark or index price changed (SetMarkPrice, SetIndexPrice).
type PriceEvent struct {
	Symbol    string
	Mark      decimal.Decimal
	Index     decimal.Decimal
	Timestamp int64
}

// FundingEvent says funding was settled for a symbol.
type FundingEvent struct {
	Symbol    string
	Rate      decimal.Decimal
	Timestamp int64
}

func (OrderEvent) isEvent()    {}
func (TradeEvent) isEvent()    {}
func (BalanceEvent) isEvent()  {}
func (PositionEvent) isEvent() {}
func (BookChanged) isEvent()   {}
func (PriceEvent) isEvent()    {}
func (FundingEvent) isEvent()  {}

// SubscriberBuffer is the channel capacity of a subscription.
const SubscriberBuffer = 8192

type subscriber struct {
	ch chan Event
}

// Subscribe returns a channel of every event from now on and a cancel
// function. Delivery never blocks the venue: a subscriber whose buffer is
// full is dropped, which closes its channel (a closed channel before
// cancel means "too slow, resync"); order events are therefore never
// silently lost, the subscriber learns it missed something.
func (e *Exchange) Subscribe() (<-chan Event, func()) {
	e.mu.Lock()
	defer e.mu.Unlock()
	s := &subscriber{ch: make(chan Event, SubscriberBuffer)}
	e.nextSub++
	id := e.nextSub
	e.subs[id] = s
	return s.ch, func() {
		e.mu.Lock()
		defer e.mu.Unlock()
		if cur, ok := e.subs[id]; ok && cur == s {
			delete(e.subs, id)
			close(s.ch)
		}
	}
}

// DroppedSubscribers counts subscribers dropped for being too slow.
func (e *Exchange) DroppedSubscribers() int64 {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.droppedSubs
}

// publish delivers ev to every subscriber; e.mu is held.
func (e *Exchange) publish(ev Event) {
	for id, s := range e.subs {
		select {
		case s.ch <- ev:
		default:
			delete(e.subs, id)
			close(s.ch)
			e.droppedSubs++
		}
	}
}
