package ws

import (
	"context"
	"slices"
	"strconv"
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

// symbolBook is the orderbookupdate state of one symbol: the last capture and what happened
// since.
type symbolBook struct {
	m          marketInfo
	lastTs     int64 // ts of the previous push: the next push's prevTs
	seq        uint64
	bids, asks []exchange.LevelPrint
	resend     bool // send every level (after missing events)
}

// bookPublisher turns the exchange's event stream into frames: every capture becomes an
// orderbookupdate per symbol (and every SnapshotEvery-th also the snapshot topics), trades and
// account events are pushed as they come.
type bookPublisher struct {
	s     *Server
	books map[string]*symbolBook

	// Scratch reused by every update (only the publisher's goroutine uses them): the touched
	// prices of each side, sorted best first, and the levels to send.
	touchedBids, touchedAsks []int64
	outBids, outAsks         []level
}

func newBookPublisher(s *Server) *bookPublisher {
	p := &bookPublisher{s: s, books: map[string]*symbolBook{}}
	for sym, m := range s.markets {
		p.books[sym] = &symbolBook{m: m}
	}
	return p
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
			pace.push(func() { p.s.ex.CaptureBooks(depthOrderbook, nil) })
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
	for i := range ev.Books {
		bc := &ev.Books[i]
		b := p.books[bc.Symbol]
		if b == nil {
			continue
		}
		b.seq++
		p.publishUpdate(b, bc)
		if b.seq%uint64(p.s.opts.SnapshotEvery) == 0 {
			p.s.publishSnapshots(b.m, bc)
		}
		b.lastTs = bc.Ts
		b.bids, b.asks = bc.Bids, bc.Asks
		b.resend = false
	}
}

// publishUpdate sends the levels that differ between the previous capture and this one, plus
// every level touched in between, with their quantity now (0: gone).
func (p *bookPublisher) publishUpdate(b *symbolBook, bc *exchange.BookCapture) {
	topic := b.m.symbol + "@orderbookupdate"
	subscribed := p.s.hub.has(topic)
	if !subscribed {
		return
	}
	if p.s.faults.SkipUpdate(b.m.symbol, b.seq, true) {
		return
	}
	p.touchedBids, p.touchedAsks = splitTouched(bc.Touched, p.touchedBids[:0], p.touchedAsks[:0])
	p.outAsks = diffSide(p.outAsks[:0], b.asks, bc.Asks, p.touchedAsks, b.resend, askBetter)
	p.outBids = diffSide(p.outBids[:0], b.bids, bc.Bids, p.touchedBids, b.resend, bidBetter)
	asks, bids := p.outAsks, p.outBids
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

func askBetter(a, b int64) bool { return a < b }
func bidBetter(a, b int64) bool { return a > b }

// splitTouched appends the touched prices of each side to bids and asks, sorted best first
// (bids descending, asks ascending) without repeats. The capture's list is shared with other
// subscribers, so it is copied, never sorted in place.
func splitTouched(touched []exchange.TouchedLevel, bids, asks []int64) ([]int64, []int64) {
	for _, t := range touched {
		if t.Buy {
			bids = append(bids, t.Price)
		} else {
			asks = append(asks, t.Price)
		}
	}
	slices.Sort(asks)
	slices.Sort(bids)
	slices.Reverse(bids)
	return slices.Compact(bids), slices.Compact(asks)
}

// diffSide appends to dst the levels of one side to send, best first: those that differ between
// the previous capture and this one (a new fingerprint counts as a difference), and every touched
// price even when it looks unchanged, with its quantity now, 0 when it is not in this capture.
// prev, cur and touched are each sorted best first by better; all sends every level.
//
// A level that changed and changed back between the two captures (an order placed and
// cancelled, the same quantity restored) is only known from touched; without it a client whose
// snapshot was taken in between would keep the intermediate state for ever.
func diffSide(dst []level, prev, cur []exchange.LevelPrint, touched []int64, all bool, better func(a, b int64) bool) []level {
	i, j, k := 0, 0, 0
	for i < len(prev) || j < len(cur) || k < len(touched) {
		var p int64 // the best price left in any of the three
		have := false
		if i < len(prev) {
			p, have = prev[i].Price, true
		}
		if j < len(cur) && (!have || better(cur[j].Price, p)) {
			p, have = cur[j].Price, true
		}
		if k < len(touched) && (!have || better(touched[k], p)) {
			p = touched[k]
		}
		inPrev := i < len(prev) && prev[i].Price == p
		inCur := j < len(cur) && cur[j].Price == p
		isTouched := k < len(touched) && touched[k] == p
		switch {
		case !inCur: // gone, or came and went between the captures
			dst = append(dst, level{Price: p})
		case all || isTouched || !inPrev || prev[i].Qty != cur[j].Qty || prev[i].Print != cur[j].Print:
			dst = append(dst, level{Price: p, Qty: cur[j].Qty})
		}
		if inPrev {
			i++
		}
		if inCur {
			j++
		}
		if isTouched {
			k++
		}
	}
	return dst
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
// The period counts from the end of the previous push, not from its tick: a push's ts is
// taken under the exchange's lock, which a loaded machine may grant late.
type pacer struct {
	every time.Duration
	last  time.Time
}

// push runs push on a tick when one is due, and counts the next period
// from its end.
func (p *pacer) push(push func()) {
	if time.Since(p.last) < p.every*3/4 {
		return
	}
	push()
	p.last = time.Now()
}
