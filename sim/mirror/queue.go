package mirror

import (
	"sort"
	"strings"

	"github.com/shopspring/decimal"

	"tradedeck/fixed"
	"tradedeck/sim/exchange"
)

// resting is a user order resting locally, with its place in the
// upstream's queue at its price.
type resting struct {
	id        int64
	symbol    string
	side      exchange.Side
	price     decimal.Decimal
	priceFx   int64
	remaining decimal.Decimal
	// ahead is what must trade upstream at the order's price before it
	// fills: the upstream level and the user orders already there when it
	// came to rest. Cancellations upstream never shorten it (they may be
	// behind us); trades do.
	ahead     decimal.Decimal
	needAhead bool // restored at start: ahead is set when the book is first read
}

// canRest tells the order types that may rest on the book.
func canRest(t exchange.OrderType) bool {
	switch t {
	case exchange.Limit, exchange.PostOnly, exchange.Ask, exchange.Bid:
		return true
	}
	return false
}

// trackExisting follows the user orders already resting (a restart with
// a saved state, or a renewed event subscription).
func (f *Follower) trackExisting() {
	for _, o := range f.ex.RestingUserOrders() {
		s := f.syms[o.Symbol]
		if s == nil || f.orders[o.ID] != nil {
			continue
		}
		p, _ := fixed.FromDecimal(o.Price, s.pd)
		r := &resting{id: o.ID, symbol: o.Symbol, side: o.Side, price: o.Price, priceFx: p,
			remaining: o.Quantity.Sub(o.Executed), needAhead: !s.synced}
		if s.synced {
			r.ahead = s.levelQty(o.Side, p)
		}
		f.orders[o.ID] = r
	}
}

// onOrderEvent keeps the tracked user orders in step with the exchange.
func (f *Follower) onOrderEvent(ev exchange.OrderEvent) {
	if ev.OrderID == 0 || strings.HasPrefix(ev.ApplicationID, "internal-") {
		return
	}
	o := f.orders[ev.OrderID]
	switch ev.Status {
	case exchange.StatusNew, exchange.StatusPartialFilled:
		if o == nil {
			o = f.track(ev)
		}
		if o != nil {
			o.remaining = decimal.Min(o.remaining, ev.Quantity.Sub(ev.TotalExecutedQuantity))
		}
	default: // filled, cancelled, rejected
		delete(f.orders, ev.OrderID)
	}
}

// track starts following a user order that may rest; its queue ahead is
// the upstream level at its price plus the user orders resting there.
func (f *Follower) track(ev exchange.OrderEvent) *resting {
	s := f.syms[ev.Symbol]
	if s == nil || !canRest(ev.Type) || !ev.Price.IsPositive() {
		return nil
	}
	p, ok := fixed.FromDecimal(ev.Price, s.pd)
	if !ok {
		return nil
	}
	o := &resting{id: ev.OrderID, symbol: ev.Symbol, side: ev.Side, price: ev.Price, priceFx: p,
		remaining: ev.Quantity.Sub(ev.TotalExecutedQuantity), ahead: s.levelQty(ev.Side, p)}
	for _, other := range f.orders {
		if other.symbol == o.symbol && other.side == o.side && other.priceFx == p {
			o.ahead = o.ahead.Add(other.remaining)
		}
	}
	f.orders[o.id] = o
	return o
}

// onTrade prints an upstream trade here and fills the user orders it
// reaches: those its price traded through fill completely; those at its
// price fill with what the trade left after the queue ahead of them.
func (f *Follower) onTrade(s *symbol, t trade) {
	if err := f.ex.PrintTrade(s.name, t.side, t.price, t.size); err != nil {
		f.log.Warn("mirror: upstream trade", "symbol", s.name, "err", err)
	}
	for _, o := range f.sortedOrders(s.name) {
		if o.side == t.side { // a BUY trade takes asks: only SELL orders
			continue
		}
		cmp := t.price.Cmp(o.price)
		if o.side == exchange.Buy {
			cmp = -cmp
		}
		switch {
		case cmp > 0: // traded through the order's price
			f.fill(o, o.remaining)
		case cmp == 0:
			excess := t.size.Sub(o.ahead)
			o.ahead = decimal.Max(o.ahead.Sub(t.size), decimal.Zero)
			if excess.IsPositive() {
				f.fill(o, decimal.Min(excess, o.remaining))
			}
		}
	}
}

// fill executes qty of a tracked order against the upstream's traders.
func (f *Follower) fill(o *resting, qty decimal.Decimal) {
	if !qty.IsPositive() {
		return
	}
	done, err := f.ex.FillResting(f.tape, o.id, qty)
	if err != nil { // cancelled or filled meanwhile; its event will say so
		delete(f.orders, o.id)
		return
	}
	o.remaining = o.remaining.Sub(done)
	if !o.remaining.IsPositive() {
		delete(f.orders, o.id)
	}
}

// sortedOrders are the tracked orders of a symbol, oldest first.
func (f *Follower) sortedOrders(symbol string) []*resting {
	var out []*resting
	for _, o := range f.orders {
		if o.symbol == symbol {
			out = append(out, o)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].id < out[j].id })
	return out
}
