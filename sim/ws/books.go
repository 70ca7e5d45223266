package ws

import (
	"context"
	"slices"
	"sort"
	"strconv"
	"sync"
	"time"

	"tradedeck/fixed"
	"tradedeck/sim/exchange"
)

// Book depths of the topics.
const (
	depthOrderbook    = 1000 // @orderbook, and what orderbookupdate tracks
	depthOrderbook100 = 100  // @orderbook100 and the one-shot request
	depthAggbook      = 100  // buckets per side of @aggbook{10,100,1000}
)

// level is a price level in fixed point.
type level = exchange.FixedLevel

// touch names a level that must appear in the next orderbookupdate even if it looks unchanged:
// an order rested there and left again between two captures.
type touch struct {
	buy   bool
	price int64
}

// symbolBook is the orderbookupdate state of one symbol: the last capture and what happened
// since.
type symbolBook struct {
	m          marketInfo
	lastTs     int64 // ts of the previous push: the next push's prevTs
	seq        uint64
	bids, asks []exchange.LevelPrint
	touched    map[touch]struct{}
	resend     bool // send every level (after missing events)
}

// bookPublisher turns the exchange's event stream into frames: every capture becomes an
// orderbookupdate per symbol (and every SnapshotEvery-th also the snapshot topics), trades and
// account events are pushed as they come.
type bookPublisher struct {
	s     *Server
	books map[string]*symbolBook

	// Levels rested by participants that bypass the event stream (the synthetic market),
	// collected between captures and handed over at the capture instant.
	restMu sync.Mutex
	rested map[string][]touch
}

func newBookPublisher(s *Server) *bookPublisher {
	p := &bookPublisher{s: s, books: map[string]*symbolBook{}, rested: map[string][]touch{}}
	for sym, m := range s.markets {
		p.books[sym] = &symbolBook{m: m, touched: map[touch]struct{}{}}
	}
	return p
}

// NoteRested tells the publisher that an order rested at price on symbol. The synthetic market
// calls it for each order it rests, because the exchange does not announce internal orders and
// an order placed and cancelled between two captures must still reach orderbookupdate.
func (s *Server) NoteRested(symbol string, buy bool, price int64) {
	p := s.books
	p.restMu.Lock()
	p.rested[symbol] = append(p.rested[symbol], touch{buy: buy, price: price})
	p.restMu.Unlock()
}

func (p *bookPublisher) takeRested() any {
	p.restMu.Lock()
	defer p.restMu.Unlock()
	r := p.rested
	p.rested = make(map[string][]touch, len(r))
	return r
}

// run consumes the exchange's events and triggers captures until ctx ends.
func (p *bookPublisher) run(ctx context.Context) {
	events, cancel := p.s.ex.Subscribe()
	defer func() { cancel() }()
	tick := time.NewTicker(p.s.opts.UpdateInterval)
	defer tick.Stop()
	pace := pacer{every: p.s.opts.UpdateInterval}
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
			if !pace.due() {
				continue
			}
			p.s.ex.CaptureBooks(depthOrderbook, p.takeRested)
		case ev, ok := <-events:
			if !ok {
				// Too slow for the exchange: events were lost. The next pushes resend whole books
				// (still a valid update: absolute quantities) so the book streams go on; private
				// clients may have missed order events, so they are closed to reconnect and
				// reconcile over REST, as after any real disconnect.
				p.s.eventDrops.Add(1)
				for _, b := range p.books {
					b.resend = true
				}
				p.s.closePrivate(reasonBacklog)
				events, cancel = p.s.ex.Subscribe()
				continue
			}
			p.s.handleEvent(ev)
		}
	}
}

// handleCapture publishes one capture.
func (p *bookPublisher) handleCapture(ev exchange.BooksCaptured) {
	rested, _ := ev.Extra.(map[string][]touch)
	for i := range ev.Books {
		bc := &ev.Books[i]
		b := p.books[bc.Symbol]
		if b == nil {
			continue
		}
		for _, t := range rested[bc.Symbol] {
			b.touched[t] = struct{}{}
		}
		b.seq++
		p.publishUpdate(b, bc)
		if b.seq%uint64(p.s.opts.SnapshotEvery) == 0 {
			p.s.publishSnapshots(b.m, bc)
		}
		b.lastTs = bc.Ts
		b.bids, b.asks = bc.Bids, bc.Asks
		clear(b.touched)
		b.resend = false
	}
}

// publishUpdate sends the levels that differ between the previous capture and this one, plus the
// touched ones, with their quantity now (0: gone).
func (p *bookPublisher) publishUpdate(b *symbolBook, bc *exchange.BookCapture) {
	topic := b.m.symbol + "@orderbookupdate"
	subscribed := p.s.hub.has(topic)
	if !subscribed {
		return
	}
	if p.s.faults.SkipUpdate(b.m.symbol, b.seq, true) {
		return
	}
	asks := diffSide(b.asks, bc.Asks, b.touched, false, b.resend, func(a, c int64) bool { return a < c })
	bids := diffSide(b.bids, bc.Bids, b.touched, true, b.resend, func(a, c int64) bool { return a > c })
	buf := appendPushHead(make([]byte, 0, 96+24*(len(asks)+len(bids))), topic, bc.Ts)
	buf = append(buf, `{"symbol":"`...)
	buf = append(buf, b.m.symbol...)
	buf = append(buf, `","prevTs":`...)
	buf = strconv.AppendInt(buf, b.lastTs, 10)
	buf = append(buf, `,"asks":`...)
	buf = appendLevels(buf, asks, b.m)
	buf = append(buf, `,"bids":`...)
	buf = appendLevels(buf, bids, b.m)
	buf = append(buf, "}}"...)
	p.s.hub.publish(topic, buf)
}

// diffSide merges two captures of one side (both sorted best first by better) and returns the
// levels to send, best first.
func diffSide(prev, cur []exchange.LevelPrint, touched map[touch]struct{}, buy, all bool, better func(a, b int64) bool) []level {
	var out []level
	i, j := 0, 0
	for i < len(prev) || j < len(cur) {
		switch {
		case j == len(cur) || (i < len(prev) && better(prev[i].Price, cur[j].Price)):
			out = append(out, level{Price: prev[i].Price}) // gone
			i++
		case i == len(prev) || better(cur[j].Price, prev[i].Price):
			out = append(out, level{Price: cur[j].Price, Qty: cur[j].Qty}) // new
			j++
		default: // same price
			_, t := touched[touch{buy, cur[j].Price}]
			if all || t || prev[i].Qty != cur[j].Qty || prev[i].Print != cur[j].Print {
				out = append(out, level{Price: cur[j].Price, Qty: cur[j].Qty})
			}
			i++
			j++
		}
	}
	// Touched levels absent from both captures: an order came and went in between. The merge
	// above is already best first; only these need sorting in.
	merged := len(out)
	for t := range touched {
		if t.buy != buy || hasPrice(prev, t.price, buy) || hasPrice(cur, t.price, buy) {
			continue
		}
		out = append(out, level{Price: t.price})
	}
	if len(out) > merged {
		slices.SortFunc(out, func(a, b level) int {
			switch {
			case better(a.Price, b.Price):
				return -1
			case better(b.Price, a.Price):
				return 1
			}
			return 0
		})
	}
	return out
}

// hasPrice reports whether a side (bids descending, asks ascending) has a level at price.
func hasPrice(side []exchange.LevelPrint, price int64, buy bool) bool {
	k := sort.Search(len(side), func(i int) bool {
		if buy {
			return side[i].Price <= price
		}
		return side[i].Price >= price
	})
	return k < len(side) && side[k].Price == price
}

// publishSnapshots sends the depth snapshots of a capture: @orderbook (1000), @orderbook100 and
// the aggregated books, all stamped with the capture's ts, so a client can compare its book
// rebuilt from updates with the venue's at the very same instant.
func (s *Server) publishSnapshots(m marketInfo, bc *exchange.BookCapture) {
	for _, v := range [...]struct {
		suffix string
		depth  int
	}{{"@orderbook", depthOrderbook}, {"@orderbook100", depthOrderbook100}} {
		topic := m.symbol + v.suffix
		if !s.hub.has(topic) {
			continue
		}
		bids, asks := toLevels(bc.Bids, v.depth), toLevels(bc.Asks, v.depth)
		s.hub.publish(topic, appendBookPush(nil, topic, bc.Ts, m, bids, asks))
	}
	for _, mult := range [...]int64{10, 100, 1000} {
		topic := m.symbol + "@aggbook" + strconv.FormatInt(mult, 10)
		if !s.hub.has(topic) {
			continue
		}
		bucket := m.tick * mult
		bids := aggregate(bc.Bids, bucket, true)
		asks := aggregate(bc.Asks, bucket, false)
		s.hub.publish(topic, appendBookPush(nil, topic, bc.Ts, m, bids, asks))
	}
}

func toLevels(side []exchange.LevelPrint, depth int) []level {
	n := min(len(side), depth)
	out := make([]level, n)
	for i := range n {
		out[i] = level{Price: side[i].Price, Qty: side[i].Qty}
	}
	return out
}

// aggregate sums levels into price buckets of the given width: bids down to the bucket's floor,
// asks up to its ceiling (so a bucket never shows a better price than its orders), best first,
// at most depthAggbook buckets.
func aggregate(side []exchange.LevelPrint, bucket int64, buy bool) []level {
	var out []level
	for _, l := range side {
		p := l.Price / bucket * bucket
		if !buy && p < l.Price {
			p += bucket
		}
		if n := len(out); n > 0 && out[n-1].Price == p {
			out[n-1].Qty += l.Qty
			continue
		}
		if len(out) == depthAggbook {
			break
		}
		out = append(out, level{Price: p, Qty: l.Qty})
	}
	return out
}

// orderbookReply is the answer to a one-shot order book request: depth 100 now.
func (s *Server) orderbookReply(id, symbol string) ([]byte, bool) {
	m, ok := s.markets[symbol]
	if !ok {
		return nil, false
	}
	asks, bids, ts, err := s.ex.DepthFixed(symbol, depthOrderbook100, nil, nil)
	if err != nil {
		return nil, false
	}
	buf := append([]byte(nil), `{"id":`...)
	buf = strconv.AppendQuote(buf, id)
	buf = append(buf, `,"event":"request","success":true,"ts":`...)
	buf = strconv.AppendInt(buf, s.nowMs(), 10)
	buf = append(buf, `,"data":{"symbol":"`...)
	buf = append(buf, symbol...)
	buf = append(buf, `","ts":`...)
	buf = strconv.AppendInt(buf, ts, 10)
	buf = append(buf, `,"asks":`...)
	buf = appendLevels(buf, asks, m)
	buf = append(buf, `,"bids":`...)
	buf = appendLevels(buf, bids, m)
	return append(buf, "}}"...), true
}

// appendPushHead starts a pushed frame: `{"topic":T,"ts":N,"data":`.
func appendPushHead(dst []byte, topic string, ts int64) []byte {
	dst = append(dst, `{"topic":"`...)
	dst = append(dst, topic...)
	dst = append(dst, `","ts":`...)
	dst = strconv.AppendInt(dst, ts, 10)
	return append(dst, `,"data":`...)
}

// appendBookPush writes a whole snapshot frame {symbol, asks, bids}.
func appendBookPush(dst []byte, topic string, ts int64, m marketInfo, bids, asks []level) []byte {
	dst = appendPushHead(dst, topic, ts)
	dst = append(dst, `{"symbol":"`...)
	dst = append(dst, m.symbol...)
	dst = append(dst, `","asks":`...)
	dst = appendLevels(dst, asks, m)
	dst = append(dst, `,"bids":`...)
	dst = appendLevels(dst, bids, m)
	return append(dst, "}}"...)
}

// appendLevels writes [[price,qty],...] as JSON numbers.
func appendLevels(dst []byte, ls []level, m marketInfo) []byte {
	dst = append(dst, '[')
	for i, l := range ls {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, '[')
		dst = fixed.Append(dst, l.Price, m.pd)
		dst = append(dst, ',')
		dst = fixed.Append(dst, l.Qty, m.qd)
		dst = append(dst, ']')
	}
	return append(dst, ']')
}

// pacer keeps a ticker's pushes at least 3/4 of a period apart: a tick delivered late (its loop
// was busy) is followed by one on time, and two pushes a few ms apart would break the cadence.
type pacer struct {
	every time.Duration
	last  time.Time
}

func (p *pacer) due() bool {
	now := time.Now()
	if now.Sub(p.last) < p.every*3/4 {
		return false
	}
	p.last = now
	return true
}
