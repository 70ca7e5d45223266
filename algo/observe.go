package algo

import (
	"time"

	"github.com/shopspring/decimal"

	"tradedeck/feed"
	"tradedeck/fixed"
)

// The feed.Observer side of the Engine. Market frames are evaluated
// inline on the feed's goroutine: a symbol's triggers are a short slice,
// each check an int64 comparison, and a frame that fires nothing
// allocates nothing (BenchmarkObserveNoFire). A trigger that fires hands
// its exit to a goroutine of its own; nothing here waits for the venue.

// ObserveTrade evaluates the `last` triggers on every public trade: a
// wick through a level and back between two frames of the screen fires.
func (e *Engine) ObserveTrade(symbol string, sc feed.Scale, t feed.Trade) {
	now := e.cfg.Now()
	e.mu.Lock()
	s := e.bySym[symbol]
	if s == nil {
		e.mu.Unlock()
		return
	}
	e.scaleLocked(s, sc.PriceDec)
	s.last, s.lastTS, s.lastAt = t.Price, t.TS, now
	e.frameLocked(s, SourceLast, t.Price, t.TS, now)
	e.mu.Unlock()
}

// ObserveBBO evaluates the bid, ask and mid triggers.
func (e *Engine) ObserveBBO(b feed.BBO) {
	now := e.cfg.Now()
	e.mu.Lock()
	s := e.bySym[b.Symbol]
	if s == nil {
		e.mu.Unlock()
		return
	}
	e.scaleLocked(s, b.Scale.PriceDec)
	s.bid, s.ask, s.bboTS, s.bboAt = b.Bid, b.Ask, b.TS, now
	if b.Bid > 0 {
		e.frameLocked(s, SourceBid, b.Bid, b.TS, now)
	}
	if b.Ask > 0 {
		e.frameLocked(s, SourceAsk, b.Ask, b.TS, now)
	}
	if b.Bid > 0 && b.Ask > 0 {
		e.frameLocked(s, SourceMid, (b.Bid+b.Ask)/2, b.TS, now)
	}
	if len(s.chasers) > 0 && e.marketLive.Load() && now.Sub(time.UnixMilli(b.TS)) <= e.cfg.MaxAge {
		e.chaseBBOLocked(s)
	}
	e.mu.Unlock()
}

// ObserveTicker is not a trigger source.
func (e *Engine) ObserveTicker(feed.Ticker) {}

// ObserveMark evaluates the mark triggers (perpetuals; once a second).
func (e *Engine) ObserveMark(symbol string, price decimal.Decimal, ts int64) {
	now := e.cfg.Now()
	e.mu.Lock()
	s := e.bySym[symbol]
	if s == nil || s.dec < 0 {
		e.mu.Unlock()
		return
	}
	v := toFixed(price, s.dec, false)
	s.mark, s.markTS, s.markAt = v, ts, now
	e.frameLocked(s, SourceMark, v, ts, now)
	e.mu.Unlock()
}

// scaleLocked learns the symbol's price decimals from its frames.
func (e *Engine) scaleLocked(s *symState, dec int) {
	if s.dec == dec {
		return
	}
	s.dec = dec
	for _, t := range s.triggers {
		t.setScale(dec)
	}
}

// frameLocked runs one fresh price of src through the symbol's triggers.
// A price from a stream that is not live, or older than MaxAge, fires
// nothing: after a reconnect the next fresh frame decides.
func (e *Engine) frameLocked(s *symState, src Source, price, ts int64, now time.Time) {
	if ts > s.seenMS {
		s.seenMS = ts
	}
	if !e.marketLive.Load() || now.Sub(time.UnixMilli(ts)) > e.cfg.MaxAge {
		return
	}
	for i := 0; i < len(s.triggers); i++ {
		t := s.triggers[i]
		if t.src != src || !t.armed {
			continue
		}
		if t.trail {
			if t.follow(price) {
				t.a.anchorDirty = true
			}
			if t.anchor == 0 {
				continue
			}
		}
		if t.crossed(price) {
			age := now.Sub(time.UnixMilli(ts))
			f := &Firing{Leg: t.leg, Level: t.levelDec, Price: fixed.ToDecimal(price, s.dec), Source: src,
				VenueTime: time.UnixMilli(ts), At: now, Age: age}
			f.Why = sprintf("%s %s %s %s %s", src, f.Price, opOf(t.above), t.leg, t.levelDec)
			e.fireLocked(t.a, f)
			i = -1 // the algo's triggers left the list: start over
		}
	}
}

// ObserveOrder follows the engine's children on the private stream.
func (e *Engine) ObserveOrder(o feed.Order) {
	if _, _, _, ok := ParseClientOrderID(e.prefix, o.ClientOrderID); !ok {
		return
	}
	e.mu.Lock()
	c := e.childLocked(o.ClientOrderID)
	if c == nil {
		e.mu.Unlock()
		return
	}
	changed := e.applyChildLocked(c, o.Status, o.OrderID, o.Executed, o.AvgPrice, o.Reason)
	e.mu.Unlock()
	if changed {
		c.notify()
		e.childChanged(c)
	}
}

// ObservePosition keeps the live position of perpetuals; a change resizes
// the resting exits of the symbol (or ends the algos of a closed one).
func (e *Engine) ObservePosition(p feed.Position) {
	e.mu.Lock()
	prev, seen := e.pos[p.Symbol]
	e.pos[p.Symbol] = p.Holding
	e.posSeen[p.Symbol] = true
	_, watched := e.bySym[p.Symbol]
	e.mu.Unlock()
	if watched && (!seen || !prev.Equal(p.Holding)) {
		e.positionChanged(p.Symbol)
	}
}

// ObserveHealth holds every trigger while the market stream is not live,
// and notes when the private stream turns live (missedByStream).
func (e *Engine) ObserveHealth(h feed.Health) {
	if h.Stream == feed.StreamPrivate {
		live := h.State == feed.Connected
		if e.privateUp.Swap(live) != live && live {
			e.privateLive.Store(e.cfg.Now().UnixNano())
		}
		return
	}
	if h.Stream != feed.StreamMarket {
		return
	}
	live := h.State == feed.Connected
	if e.marketLive.Swap(live) != live {
		if live {
			e.emit(Event{Kind: EventEngine, Time: e.cfg.Now(), Text: "market stream live again: triggers evaluate on the next fresh price"})
		} else {
			e.emit(Event{Kind: EventEngine, Time: e.cfg.Now(), Text: "market stream " + h.State.String() + ": no trigger fires until it is live"})
		}
	}
}

func opOf(above bool) string {
	if above {
		return ">="
	}
	return "<="
}

// streamSettle is how long after the private stream turns live its
// subscription is surely in place at the venue (live is announced when
// the subscribe frame is written, not when the venue has read it).
const streamSettle = time.Second

// missedByStream tells a sent child whose news the private stream may
// never have carried: last heard of before the stream's latest turn to
// live had settled (sent before the first connect, whose reconciliation
// reports nothing as news, or ended during a reconnect), and not read
// from REST since. Such a child is read once, at once, instead of after
// the quiet period of the polls. Called under e.mu.
func (e *Engine) missedByStream(c *child, now time.Time) bool {
	at := e.privateLive.Load()
	if at == 0 || c.status == ChildJournaled || c.status == ChildUnknown || !c.open() {
		return false
	}
	settled := time.Unix(0, at).Add(streamSettle)
	return now.After(settled) && c.updated.Before(settled) && c.polled.Before(settled)
}
