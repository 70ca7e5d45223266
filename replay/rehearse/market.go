package rehearse

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"tradedeck/algo/report"
	"tradedeck/feed"
	"tradedeck/fixed"
	"tradedeck/record"
	"tradedeck/venue"
	"tradedeck/venue/stream"
)

// apply plays one record: REST replies the paper venue starts from, and
// market frames.
func (r *run) apply(rec record.Record) error {
	switch rec.Kind {
	case record.REST:
		return r.restReply(string(rec.Key), rec.Data)
	case record.Market:
		var env stream.Envelope
		if stream.ParseEnvelope(rec.Data, &env) != nil || env.Topic == nil {
			return nil // the feed skips a malformed frame too
		}
		sym, kind := stream.SplitTopic(env.Topic)
		if !r.want[string(sym)] {
			return nil
		}
		return r.frame(rec, string(sym), string(kind), &env)
	}
	return nil
}

// restReply keeps the symbol rules and books the recording read.
func (r *run) restReply(key string, body []byte) error {
	_, target, _ := strings.Cut(key, " ")
	path, _, _ := strings.Cut(target, "?")
	switch {
	case path == "/v1/public/info":
		var reply struct {
			Rows []venue.SymbolRule `json:"rows"`
		}
		if err := json.Unmarshal(body, &reply); err != nil {
			return fmt.Errorf("rehearse: the recorded symbol rules: %w", err)
		}
		r.rules = reply.Rows
		for _, rule := range r.rules {
			r.scales[rule.Symbol] = feed.Scale{PriceDec: fixed.DecimalsOf(rule.QuoteTick), QtyDec: fixed.DecimalsOf(rule.BaseTick)}
		}
	case strings.HasPrefix(path, "/v1/orderbook/") || strings.HasPrefix(path, "/v1/public/orderbook/"):
		sym := path[strings.LastIndexByte(path, '/')+1:]
		var ob venue.OrderBook
		if !r.want[sym] || json.Unmarshal(body, &ob) != nil {
			return nil
		}
		r.loadBook(sym, ob)
	}
	return nil
}

// loadBook lays a full book on the paper venue (kept until it opens).
func (r *run) loadBook(sym string, ob venue.OrderBook) {
	if r.paper == nil {
		r.books[sym] = ob
		return
	}
	r.drainMu.Lock()
	defer r.drainMu.Unlock()
	r.paper.follow.LoadBook(sym, ob)
}

// synced reports a symbol whose paper book follows the recording.
func (r *run) synced(sym string) bool {
	r.drainMu.Lock()
	defer r.drainMu.Unlock()
	return r.paper.follow.Synced(sym)
}

// push moves the paper book with one recorded frame (the follower is
// one goroutine's at a time: the driver's or the REST server's).
func (r *run) push(raw []byte) error {
	r.drainMu.Lock()
	defer r.drainMu.Unlock()
	return r.paper.follow.Push(raw)
}

// frame moves the paper book with one market frame, then hands the frame
// to the engine as the feed would, each step settled before the next.
func (r *run) frame(rec record.Record, sym, kind string, env *stream.Envelope) error {
	if r.paper == nil {
		if r.rules == nil {
			return nil // no symbol rules yet: nothing can be priced
		}
		if err := r.startEngine(); err != nil {
			return err
		}
		if err := r.runEngine(); err != nil {
			return err
		}
	}
	at := time.Unix(0, rec.Time)
	if r.first.IsZero() {
		r.first = at
	}
	r.last = at
	sc := r.scales[sym]
	switch kind {
	case "orderbook":
		if !r.synced(sym) {
			r.loadBook(sym, pushBook(env.Data, env.TS))
		}
	case "orderbookupdate", "trade", "markprice", "indexprice", "estfundingrate":
		if err := r.push(rec.Data); err != nil {
			return nil // malformed: the feed would skip it
		}
	}
	if err := r.settle(); err != nil {
		return err
	}
	switch kind {
	case "trade":
		var t stream.Trade
		if stream.DecodeTrade(env.Data, sc.PriceDec, sc.QtyDec, &t) == nil {
			r.tape[sym] = append(r.tape[sym], report.Print{Time: at, Price: fixed.ToDecimal(t.Price, sc.PriceDec), Qty: fixed.ToDecimal(t.Size, sc.QtyDec)})
			r.eng.ObserveTrade(sym, sc, feed.Trade{Price: t.Price, Qty: t.Size, Side: feed.Side(t.Side), TS: env.TS})
		}
	case "bbo":
		var b stream.BBO
		if stream.DecodeBBO(env.Data, sc.PriceDec, sc.QtyDec, &b) == nil {
			fb := feed.BBO{Symbol: sym, Scale: sc, Bid: b.Bid, BidSize: b.BidSize, Ask: b.Ask, AskSize: b.AskSize, TS: env.TS}
			r.bbo[sym] = fb
			r.eng.ObserveBBO(fb)
		}
	case "markprice":
		var v stream.FuturesValue
		if stream.DecodeFuturesValue(env.Data, &v) == nil && v.Price.IsPositive() {
			r.eng.ObserveMark(sym, v.Price, env.TS)
		}
	}
	if err := r.settle(); err != nil {
		return err
	}
	if !r.started && r.ready() {
		return r.begin()
	}
	return nil
}

// ready: the algos may be added now (at or after From, every symbol's
// book laid and a best bid and ask seen).
func (r *run) ready() bool {
	if r.clock().Before(r.opts.From) {
		return false
	}
	for _, s := range r.symbols {
		b := r.bbo[s]
		if !r.synced(s) || b.Bid <= 0 || b.Ask <= 0 {
			return false
		}
	}
	return true
}

// mid is the middle of the last best bid and ask of sym.
func (r *run) mid(sym string) decimal.Decimal {
	b := r.bbo[sym]
	bid, ask := fixed.ToDecimal(b.Bid, b.Scale.PriceDec), fixed.ToDecimal(b.Ask, b.Scale.PriceDec)
	return bid.Add(ask).Div(decimal.NewFromInt(2))
}

// pushBook turns an @orderbook push into the REST book's shape.
func pushBook(data []byte, ts int64) venue.OrderBook {
	var push struct {
		Asks [][2]decimal.Decimal `json:"asks"`
		Bids [][2]decimal.Decimal `json:"bids"`
	}
	ob := venue.OrderBook{Timestamp: venue.MsTime{Time: time.UnixMilli(ts)}}
	if json.NewDecoder(bytes.NewReader(data)).Decode(&push) != nil {
		return ob
	}
	for _, l := range push.Asks {
		ob.Asks = append(ob.Asks, venue.BookLevel{Price: l[0], Quantity: l[1]})
	}
	for _, l := range push.Bids {
		ob.Bids = append(ob.Bids, venue.BookLevel{Price: l[0], Quantity: l[1]})
	}
	return ob
}
