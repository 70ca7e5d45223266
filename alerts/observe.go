package alerts

import (
	"fmt"
	"time"

	"github.com/shopspring/decimal"

	"tradedeck/feed"
	"tradedeck/fixed"
)

// The feed.Observer side of the Engine: each method finds the alerts of
// the symbol, evaluates them on the value just seen, and delivers what
// fired after releasing the lock. A symbol without alerts costs one map
// lookup; nothing allocates unless an alert fires.

// ObserveTrade evaluates `last` price alerts on every public trade.
func (e *Engine) ObserveTrade(symbol string, sc feed.Scale, t feed.Trade) {
	e.observePrice(symbol, Last, t.Price, sc.PriceDec)
}

// ObserveBBO evaluates bid and ask price alerts and spread alerts.
func (e *Engine) ObserveBBO(b feed.BBO) {
	e.evaluate(b.Symbol, func(ws []*watch, now time.Time) (fired []Fired) {
		for _, w := range ws {
			fired = e.bboLocked(w, fired, now, &b)
		}
		return fired
	})
}

func (e *Engine) bboLocked(w *watch, fired []Fired, now time.Time, b *feed.BBO) []Fired {
	switch {
	case w.a.Kind == KindPrice && w.a.Source == Bid && b.Bid > 0:
		return e.priceLocked(w, fired, now, b.Symbol, b.Bid, b.Scale.PriceDec)
	case w.a.Kind == KindPrice && w.a.Source == Ask && b.Ask > 0:
		return e.priceLocked(w, fired, now, b.Symbol, b.Ask, b.Scale.PriceDec)
	case w.a.Kind == KindSpread && b.Bid > 0 && b.Ask > 0:
		// A ratio, not a price: float64 is exact enough to compare
		// basis points with a threshold.
		bp := float64(b.Ask-b.Bid) / (float64(b.Ask+b.Bid) / 2) * 10000
		if w.check(bp >= w.lvlF, now) {
			v := fmt.Sprintf("%.1f", bp)
			return append(fired, e.fireLocked(w, now, b.Symbol, v,
				fmt.Sprintf("%s spread %sbp is above %sbp (bid %s ask %s)", b.Symbol, v, w.a.Level,
					fixed.FormatPadded(b.Bid, b.Scale.PriceDec), fixed.FormatPadded(b.Ask, b.Scale.PriceDec))))
		}
	}
	return fired
}

// evaluate runs eval on the alerts of symbol under the lock and delivers
// what fired once the lock is released. A symbol without alerts costs
// one map lookup.
func (e *Engine) evaluate(symbol string, eval func(ws []*watch, now time.Time) []Fired) {
	e.mu.Lock()
	ws := e.bySym[symbol]
	if len(ws) == 0 {
		e.mu.Unlock()
		return
	}
	fired := eval(ws, e.opts.Now())
	e.mu.Unlock()
	e.deliver(fired)
}

func (e *Engine) observePrice(symbol string, src Source, price int64, dec int) {
	e.evaluate(symbol, func(ws []*watch, now time.Time) (fired []Fired) {
		for _, w := range ws {
			if w.a.Kind == KindPrice && w.a.Source == src {
				fired = e.priceLocked(w, fired, now, symbol, price, dec)
			}
		}
		return fired
	})
}

func (e *Engine) priceLocked(w *watch, fired []Fired, now time.Time, symbol string, price int64, dec int) []Fired {
	lvl, _ := w.level(dec)
	if !w.check(compareInt(w.a.Op, price, lvl), now) {
		return fired
	}
	v := fixed.FormatPadded(price, dec)
	return append(fired, e.fireLocked(w, now, symbol, v,
		fmt.Sprintf("%s %s %s crossed %s %s", symbol, w.a.Source, v, w.a.Op, w.a.Level)))
}

// ObserveTicker evaluates 24h change alerts.
func (e *Engine) ObserveTicker(t feed.Ticker) {
	if t.Open.Sign() <= 0 {
		return
	}
	e.evaluate(t.Symbol, func(ws []*watch, now time.Time) (fired []Fired) {
		var pct decimal.Decimal
		computed := false
		for _, w := range ws {
			if w.a.Kind != KindChange {
				continue
			}
			if !computed {
				pct = t.Close.Sub(t.Open).Div(t.Open).Mul(decimal.NewFromInt(100))
				computed = true
			}
			if w.check(compare(w.a.Op, pct, w.a.Level), now) {
				v := pct.StringFixed(2)
				fired = append(fired, e.fireLocked(w, now, t.Symbol, v,
					fmt.Sprintf("%s 24h change %s%% is %s %s%% (last %s)", t.Symbol, v, w.a.Op, w.a.Level, t.Close)))
			}
		}
		return fired
	})
}

// position is what PnL and liquidation alerts need of a position.
type position struct {
	holding, avg, liq, mark decimal.Decimal
}

// ObserveMark evaluates mark price alerts, and PnL and liquidation alerts
// at the new mark.
func (e *Engine) ObserveMark(symbol string, price decimal.Decimal, ts int64) {
	e.evaluate(symbol, func(ws []*watch, now time.Time) (fired []Fired) {
		if p := e.positions[symbol]; p != nil {
			p.mark = price
		}
		for _, w := range ws {
			if w.a.Kind == KindPrice && w.a.Source == Mark && w.check(compare(w.a.Op, price, w.a.Level), now) {
				fired = append(fired, e.fireLocked(w, now, symbol, price.String(),
					fmt.Sprintf("%s mark %s crossed %s %s", symbol, price, w.a.Op, w.a.Level)))
			}
		}
		return e.positionAlertsLocked(ws, fired, now, symbol)
	})
}

// ObservePosition evaluates PnL and liquidation alerts of a position.
// Positions are kept whether alerts watch them or not (there are few), so
// an alert added later knows the position at once.
func (e *Engine) ObservePosition(p feed.Position) {
	e.mu.Lock()
	ps := e.positions[p.Symbol]
	if ps == nil {
		ps = &position{}
		e.positions[p.Symbol] = ps
	}
	ps.holding, ps.avg = p.Holding, p.AvgOpenPrice
	if !p.EstLiqPrice.IsZero() || p.Holding.IsZero() {
		ps.liq = p.EstLiqPrice
	}
	if !p.MarkPrice.IsZero() {
		ps.mark = p.MarkPrice
	}
	e.mu.Unlock()
	e.evaluate(p.Symbol, func(ws []*watch, now time.Time) []Fired {
		return e.positionAlertsLocked(ws, nil, now, p.Symbol)
	})
}

func (e *Engine) positionAlertsLocked(ws []*watch, fired []Fired, now time.Time, symbol string) []Fired {
	p := e.positions[symbol]
	if p == nil || p.mark.IsZero() {
		return fired
	}
	for _, w := range ws {
		switch w.a.Kind {
		case KindPnL:
			upnl := p.mark.Sub(p.avg).Mul(p.holding)
			met := !p.holding.IsZero() && compare(w.a.Op, upnl, w.a.Level)
			if w.check(met, now) {
				v := upnl.StringFixed(2)
				fired = append(fired, e.fireLocked(w, now, symbol, v,
					fmt.Sprintf("%s unrealized PnL %s is %s %s (position %s at mark %s)", symbol, v, w.a.Op, w.a.Level, p.holding, p.mark)))
			}
		case KindLiq:
			met := false
			var dist decimal.Decimal
			if !p.holding.IsZero() && p.liq.Sign() > 0 {
				dist = p.mark.Sub(p.liq).Abs().Div(p.mark).Mul(decimal.NewFromInt(100))
				met = dist.LessThanOrEqual(w.a.Level)
			}
			if w.check(met, now) {
				v := dist.StringFixed(2)
				fired = append(fired, e.fireLocked(w, now, symbol, v,
					fmt.Sprintf("%s mark %s is %s%% from the liquidation price %s", symbol, p.mark, v, p.liq)))
			}
		}
	}
	return fired
}

// ObserveOrder fires order alerts on fills, partial fills, cancels and
// rejects, once per order and event (a partial fill once per new
// executed quantity).
func (e *Engine) ObserveOrder(o feed.Order) {
	ev := ""
	switch o.Status {
	case "FILLED":
		ev = OrderFilled
	case "PARTIAL_FILLED":
		ev = OrderPartial
	case "CANCELLED":
		ev = OrderCancelled
	case "REJECTED":
		ev = OrderRejected
	default:
		return
	}
	var fired []Fired
	e.mu.Lock()
	if !e.orders.news(o.OrderID, ev, o.Executed) {
		e.mu.Unlock()
		return
	}
	now := e.opts.Now()
	for _, list := range [2][]*watch{e.bySym[o.Symbol], e.bySym[AnySymbol]} {
		for _, w := range list {
			if w.a.Kind == KindOrder && contains(w.a.Events, ev) && w.event(now) {
				fired = append(fired, e.fireLocked(w, now, o.Symbol, ev, orderMessage(o, ev)))
			}
		}
	}
	e.mu.Unlock()
	e.deliver(fired)
}

func orderMessage(o feed.Order, ev string) string {
	msg := fmt.Sprintf("%s %s %s order #%d %s", o.Symbol, o.Side, o.Type, o.OrderID, ev)
	switch ev {
	case OrderFilled, OrderPartial:
		msg += fmt.Sprintf(": %s of %s at avg %s", o.Executed, o.Quantity, o.AvgPrice)
	case OrderCancelled, OrderRejected:
		if o.Reason != "" {
			msg += ": " + o.Reason
		}
	}
	return msg
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// orderMemory remembers the last event seen of recent orders (bounded),
// so a view repeated by a reconciliation does not fire again.
type orderMemory struct {
	last  map[int64]orderSeen
	queue []int64
	limit int
}

type orderSeen struct {
	ev       string
	executed decimal.Decimal
}

func newOrderMemory(limit int) orderMemory {
	return orderMemory{last: map[int64]orderSeen{}, limit: limit}
}

func (m *orderMemory) news(id int64, ev string, executed decimal.Decimal) bool {
	prev, ok := m.last[id]
	if ok && prev.ev == ev && (ev != OrderPartial || !executed.GreaterThan(prev.executed)) {
		return false
	}
	if !ok {
		m.queue = append(m.queue, id)
		if len(m.queue) > m.limit {
			delete(m.last, m.queue[0])
			m.queue = m.queue[1:]
		}
	}
	m.last[id] = orderSeen{ev: ev, executed: executed}
	return true
}

// ObserveHealth records when a stream went down or came back.
func (e *Engine) ObserveHealth(h feed.Health) {
	down := h.State == feed.Connecting || h.State == feed.StreamStale || h.State == feed.Reconnecting || h.State == feed.AuthFailed
	e.mu.Lock()
	defer e.mu.Unlock()
	_, wasDown := e.health[h.Stream]
	switch {
	case down && !wasDown:
		e.health[h.Stream] = e.opts.Now()
		e.wake() // its stream alerts are due from now on
	case !down && wasDown:
		delete(e.health, h.Stream)
		for _, w := range e.streams {
			if w.a.Stream == h.Stream || w.a.Stream == StreamAny {
				w.check(false, e.opts.Now()) // the outage ended: the next one is news
			}
		}
	}
}

// Tick fires the stream alerts whose stream has been down long enough.
func (e *Engine) Tick() {
	var fired []Fired
	e.mu.Lock()
	now := e.opts.Now()
	for _, w := range e.streams {
		for name, since := range e.health {
			if w.a.Stream != name && w.a.Stream != StreamAny {
				continue
			}
			down := now.Sub(since)
			if down >= time.Duration(w.a.For) && w.check(true, now) {
				fired = append(fired, e.fireLocked(w, now, "", name,
					fmt.Sprintf("%s stream down for %s (since %s)", name, down.Truncate(time.Second), since.Format("15:04:05"))))
			}
		}
	}
	e.mu.Unlock()
	e.deliver(fired)
}
