package algo

import (
	"fmt"
	"time"

	"github.com/shopspring/decimal"

	"tradedeck/fixed"
	"tradedeck/trade"
)

// The engine's working state, guarded by Engine.mu.

// ruleInfo is a symbol's trading rule.
type ruleInfo struct {
	rule trade.Rule
}

// algoState is one live algo.
type algoState struct {
	id      ID
	spec    Spec
	side    trade.Side // the exits' side
	perp    bool
	state   State
	reason  string
	by      string
	created time.Time
	updated time.Time

	triggers []*trigger // watched in-engine: stop, tp-market, trail
	active   bool       // trail past activation; bracket entry filled
	// target is the exit's size fixed when it first fired (a percent of
	// the position then, or a quantity); exited what the exits filled.
	target      decimal.Decimal
	exited      decimal.Decimal
	entryFilled decimal.Decimal // bracket
	entryDone   bool            // bracket entry no longer open
	children    []*child
	attempts    map[Leg]int // next attempt per leg
	fired       *Firing
	busy        bool // an exit goroutine works it
	// clockSleeps counts the exit goroutine's sleeps on the engine's
	// clock alone (it is quiet meanwhile); clockWoke: the clock woke it
	// and it has not waited again yet (it is not).
	clockSleeps int
	clockWoke   bool
	lockWait    bool // its exit waits for its symbol's lock (lockExit)
	inWait      bool // its exit waits in waitChild for its child's end
	cancelled   bool // stop at the next step
	anchorDirty bool
	work        *workState // a working order's (chase, scale, twap); nil otherwise
}

// nextCID journals nothing: it hands out the next client order id of a
// leg (called under the lock).
func (e *Engine) nextCIDLocked(a *algoState, leg Leg) (int64, int) {
	n := a.attempts[leg]
	a.attempts[leg] = n + 1
	return ClientOrderID(e.prefix, a.id, leg, n), n
}

// ClientOrderID is the deterministic client order id of a child order:
// the database's prefix (3 digits), the algo id (9 digits), the leg (1)
// and the attempt (5): PPP AAAAAAAAA L TTTTT. It never repeats: algo ids
// are never reused in a database, attempts only count up, and a new
// database draws a new prefix. Ids of the engine are 18 digits; the
// desk's manual orders use 10 (trade.ClientIDs), so they never meet.
func ClientOrderID(prefix int64, id ID, leg Leg, attempt int) int64 {
	return prefix*1_000_000_000_000_000 + int64(id)*1_000_000 + int64(leg)*100_000 + int64(attempt)
}

// ParseClientOrderID splits an engine's client order id (ok false: not
// one of this database's).
func ParseClientOrderID(prefix, cid int64) (id ID, leg Leg, attempt int, ok bool) {
	if cid/1_000_000_000_000_000 != prefix {
		return 0, 0, 0, false
	}
	rest := cid % 1_000_000_000_000_000
	id = ID(rest / 1_000_000)
	leg = Leg(rest / 100_000 % 10)
	attempt = int(rest % 100_000)
	return id, leg, attempt, id > 0 && leg >= LegStop && leg <= LegWork
}

// child is one child order.
type child struct {
	a          *algoState
	cid        int64
	leg        Leg
	attempt    int
	side       trade.Side
	typ        trade.Type
	price      decimal.Decimal
	qty        decimal.Decimal
	reduceOnly bool
	status     string
	orderID    int64
	executed   decimal.Decimal
	avg        decimal.Decimal
	reason     string
	created    time.Time
	updated    time.Time
	news       chan struct{} // cap 1: the child changed
	polled     time.Time     // last read from REST by pollResting
}

// open reports a child that may still trade (or whose fate is unknown).
func (c *child) open() bool {
	switch c.status {
	case "FILLED", "CANCELLED", "REJECTED", ChildNotSent:
		return false
	}
	return true
}

func (c *child) remaining() decimal.Decimal { return c.qty.Sub(c.executed) }

func (c *child) view() Child {
	return Child{ClientOrderID: c.cid, OrderID: c.orderID, Leg: c.leg, Attempt: c.attempt, Side: c.side, Type: c.typ,
		Price: c.price, Quantity: c.qty, ReduceOnly: c.reduceOnly, Status: c.status, Executed: c.executed,
		AvgPrice: c.avg, Reason: c.reason, Updated: c.updated}
}

func (c *child) notify() {
	select {
	case c.news <- struct{}{}:
	default:
	}
}

// trigger is one level watched on the market frames. Prices are int64
// fixed point at the symbol's price decimals once they are known (dec -1
// before the first frame).
type trigger struct {
	a     *algoState
	leg   Leg
	src   Source
	above bool // fires when the price >= level (else <=)
	armed bool

	levelDec decimal.Decimal
	level    int64
	dec      int

	// trailing: the level follows anchor at ppm (parts per million) or
	// dist; act is the activation price (0: active at once).
	trail    bool
	ppm      int64
	distDec  decimal.Decimal
	dist     int64
	actDec   decimal.Decimal
	act      int64
	anchor   int64
	activeTr bool
}

// setScale converts the decimal prices to the symbol's fixed point,
// rounding the level so that it is reached no later than the decimal one
// (a stop fires at or before its price, never after).
func (t *trigger) setScale(dec int) {
	if t.dec == dec {
		return
	}
	if t.dec >= 0 && t.anchor != 0 {
		// A scale change (never seen) would misread the anchor: restart it.
		t.anchor = 0
	}
	t.dec = dec
	t.level = toFixed(t.levelDec, dec, !t.above)
	if t.trail {
		t.dist = toFixed(t.distDec, dec, false)
		if t.actDec.IsPositive() {
			t.act = toFixed(t.actDec, dec, t.above)
		}
	}
}

// toFixed converts d to fixed point at dec decimals, rounding up or down
// when it is off the grid.
func toFixed(d decimal.Decimal, dec int, up bool) int64 {
	if v, ok := fixed.FromDecimal(d, dec); ok {
		return v
	}
	s := d.Shift(int32(dec))
	if up {
		return s.Ceil().IntPart()
	}
	return s.Floor().IntPart()
}

// crossed reports whether price reaches the trigger's level.
func (t *trigger) crossed(price int64) bool {
	if t.above {
		return price >= t.level
	}
	return price <= t.level
}

// follow moves a trailing stop with a new price and reports whether the
// anchor moved. The level only ever tightens: it is recomputed from the
// best price since activation, which only ever improves.
func (t *trigger) follow(price int64) bool {
	if !t.activeTr {
		if t.act != 0 && ((!t.above && price < t.act) || (t.above && price > t.act)) {
			return false
		}
		t.activeTr = true
	}
	better := t.anchor == 0 || (!t.above && price > t.anchor) || (t.above && price < t.anchor)
	if !better {
		return false
	}
	t.anchor = price
	var d int64
	if t.ppm > 0 {
		d = price / 1_000_000 * t.ppm
		d += price % 1_000_000 * t.ppm / 1_000_000
	} else {
		d = t.dist
	}
	// A long's stop is below the anchor (fires when the price <= level);
	// the distance is truncated, so the level is at least as tight as
	// the exact one.
	level := price - d
	if t.above {
		level = price + d
	}
	if (!t.above && level > t.level) || (t.above && (t.level == 0 || level < t.level)) {
		t.level = level
		t.levelDec = fixed.ToDecimal(level, t.dec)
	}
	return true
}

// symState is what the engine knows of one symbol's market.
type symState struct {
	name     string
	dec      int // price decimals (-1: no frame yet)
	triggers []*trigger
	chasers  []*algoState // working chases: re-priced on its bbo

	last, bid, ask, mark        int64
	lastTS, bboTS, markTS       int64 // venue ms
	seenMS, journaledMS         int64 // the latest venue time seen; the one in the database
	workMu                      chan struct{}
	lastAt, bboAt, markAt       time.Time
	rebalancing, rebalanceAgain bool
	holder                      *algoState // the exit holding workMu (lockExit), guarded by Engine.mu
}

func newSymState(name string) *symState {
	s := &symState{name: name, dec: -1, workMu: make(chan struct{}, 1)}
	return s
}

// lock serialises the exits and the resting-order upkeep of one symbol.
func (s *symState) lock()   { s.workMu <- struct{}{} }
func (s *symState) unlock() { <-s.workMu }

// price is the fresh value of a source (ok false: none, or stale).
func (s *symState) price(src Source, now time.Time, maxAge time.Duration) (int64, int64, bool) {
	fresh := func(ts int64) bool { return ts > 0 && now.Sub(time.UnixMilli(ts)) <= maxAge }
	switch src {
	case SourceLast:
		return s.last, s.lastTS, s.last > 0 && fresh(s.lastTS)
	case SourceBid:
		return s.bid, s.bboTS, s.bid > 0 && fresh(s.bboTS)
	case SourceAsk:
		return s.ask, s.bboTS, s.ask > 0 && fresh(s.bboTS)
	case SourceMid:
		return (s.bid + s.ask) / 2, s.bboTS, s.bid > 0 && s.ask > 0 && fresh(s.bboTS)
	case SourceMark:
		return s.mark, s.markTS, s.mark > 0 && fresh(s.markTS)
	}
	return 0, 0, false
}

func sprintf(format string, a ...any) string { return fmt.Sprintf(format, a...) }
