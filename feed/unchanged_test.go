package feed

import (
	"strconv"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"tradedeck/feed/ws"
	"tradedeck/venue"
	"tradedeck/venue/stream"
)

func pushFrame(f *Feed, private bool, fr string) {
	var env stream.Envelope
	err := stream.ParseEnvelope([]byte(fr), &env)
	if private {
		f.acct.onFrame([]byte(fr), &env, err)
		return
	}
	f.mkt.onFrame([]byte(fr), &env, err)
}

// TestRepeatedPushesMarkNothing: the venue's 1 s topics repeated as they
// were (only their ts moved) give the coalescer nothing to collect; each
// one changed by a digit (or only in how a number is written) is collected.
func TestRepeatedPushesMarkNothing(t *testing.T) {
	f := New(Config{Endpoints: venue.Endpoints{BaseURL: "http://127.0.0.1:1"}})
	f.setRules([]venue.SymbolRule{{Symbol: "PERP_X_USDT", QuoteTick: decimal.RequireFromString("0.01"), BaseTick: decimal.RequireFromString("0.1")}})
	f.Track([]string{"PERP_X_USDT"})
	f.mkt.subscribeAll()
	frames := func(ts int, bid, mark, close string) []string {
		s := strconv.Itoa(ts)
		return []string{
			`{"topic":"PERP_X_USDT@bbo","ts":` + s + `,"data":{"symbol":"PERP_X_USDT","ask":2,"askSize":1,"bid":` + bid + `,"bidSize":1}}`,
			`{"topic":"PERP_X_USDT@markprice","ts":` + s + `,"data":{"symbol":"PERP_X_USDT","price":` + mark + `}}`,
			`{"topic":"tickers","ts":` + s + `,"data":[{"symbol":"PERP_X_USDT","open":1,"close":` + close + `,"high":2,"low":1,"volume":5,"amount":7,"count":3}]}`,
		}
	}
	info := func(ts int, holding string) string {
		return `{"topic":"positioninfo","ts":` + strconv.Itoa(ts) + `,"data":{"marginRate":10,"marginMode":"FUTURES","leverage":3,` +
			`"takerFeeRate":5,"makerFeeRate":2,"futuresLeverage":10,"futuresApiTakerFeeRate":5,"futuresApiMakerFeeRate":2,` +
			`"positions":{"USDT":{"holding":` + holding + `,"frozen":0,"interest":0,"outstandingHolding":0,"pendingExposure":0}}}}`
	}
	push := func(ts int, bid, mark, close, holding string) {
		for _, fr := range frames(ts, bid, mark, close) {
			pushFrame(f, false, fr)
		}
		pushFrame(f, true, info(ts, holding))
	}
	var u Update
	push(1000, "1.5", "1.5", "1.5", "100")
	if !f.collect(&u, true) || u.BBOs["PERP_X_USDT"].Bid == 0 || u.Tickers["PERP_X_USDT"].Close.IsZero() ||
		f.mkt.syms["PERP_X_USDT"].futures.MarkPrice.IsZero() || u.Account == nil || len(u.Account.Balances) != 1 {
		t.Fatalf("the first pushes: %+v", u)
	}
	for ts := 2000; ts < 2010; ts++ {
		push(ts, "1.5", "1.5", "1.5", "100")
		if f.collect(&u, true) {
			t.Fatalf("a repeat at ts %d was collected: %+v", ts, u)
		}
	}
	if got := f.mkt.syms["PERP_X_USDT"].bbo.TS; got != 2009 {
		t.Fatalf("the repeats' ts not kept: bbo ts %d", got)
	}
	for _, c := range []struct {
		name                          string
		bid, mark, close, holding     string
		bbo, futures, ticker, account bool
	}{
		{"bid", "1.6", "1.5", "1.5", "100", true, false, false, false},
		{"mark", "1.6", "1.51", "1.5", "100", false, true, false, false},
		{"close", "1.6", "1.51", "1.55", "100", false, false, true, false},
		{"close written with another digit", "1.6", "1.51", "1.550", "100", false, false, true, false},
		{"balance", "1.6", "1.51", "1.550", "99.5", false, false, false, true},
	} {
		push(3000, c.bid, c.mark, c.close, c.holding)
		if !f.collect(&u, true) {
			t.Fatalf("%s: the change was not collected", c.name)
		}
		_, bbo := u.BBOs["PERP_X_USDT"]
		_, fu := u.Futures["PERP_X_USDT"]
		_, tk := u.Tickers["PERP_X_USDT"]
		if bbo != c.bbo || fu != c.futures || tk != c.ticker || (u.Account != nil) != c.account {
			t.Fatalf("%s: bbo %v futures %v ticker %v account %v", c.name, bbo, fu, tk, u.Account != nil)
		}
	}
}

// TestRepeatedKlineChangesNothing: a kline pushed again as it is leaves
// the series (and its version) alone; a new digit or a new candle does not.
func TestRepeatedKlineChangesNothing(t *testing.T) {
	d := decimal.RequireFromString
	var c candleSeries
	k := Candle{Start: 60, End: 120, Open: d("1"), High: d("2"), Low: d("1"), Close: d("1.5"), Volume: d("3"), Amount: d("4")}
	if !c.merge(k, 10) {
		t.Fatal("the first candle changed nothing")
	}
	v := c.version
	if c.merge(k, 10) || c.version != v {
		t.Fatal("a repeat changed the series")
	}
	k.Close = d("1.50")
	if !c.merge(k, 10) || c.version == v {
		t.Fatal("the close written anew changed nothing")
	}
	k.Start, k.End = 120, 180
	if !c.merge(k, 10) || len(c.rows) != 2 {
		t.Fatal("a new candle changed nothing")
	}
}

// TestHealthRefreshSendsShownFigures: the once-a-second refresh marks the
// health for an Update only when a figure it shows moved (latency to the
// millisecond, the rate to a whole message, gaps, resyncs, reconnects),
// not for the time of the last frame or a latency change under a
// millisecond.
func TestHealthRefreshSendsShownFigures(t *testing.T) {
	f := New(Config{Endpoints: venue.Endpoints{BaseURL: "http://127.0.0.1:1"}})
	conn := ws.New(ws.Config{Name: StreamMarket, URL: "ws://127.0.0.1:1"})
	conns := [2]*ws.Conn{conn, nil}
	hs := &f.health
	now := time.Unix(1000, 0)
	refresh := func(latency time.Duration, gaps uint64) bool {
		hs.mu.Lock()
		hs.streams[mStream].latencyEst = float64(latency)
		hs.mu.Unlock()
		hs.dirty.Store(false)
		now = now.Add(time.Second)
		hs.refresh(now, conns, gaps, 0)
		return hs.dirty.Load()
	}
	refresh(3*time.Millisecond, 0)
	for i, c := range []struct {
		latency time.Duration
		gaps    uint64
		want    bool
	}{
		{3*time.Millisecond + 200*time.Microsecond, 0, false}, // under a millisecond; the last frame's time moved too
		{3 * time.Millisecond, 0, false},
		{4 * time.Millisecond, 0, true},
		{4 * time.Millisecond, 0, false},
		{4 * time.Millisecond, 1, true},
	} {
		if got := refresh(c.latency, c.gaps); got != c.want {
			t.Fatalf("refresh %d (latency %v, gaps %d): marked %v, want %v", i, c.latency, c.gaps, got, c.want)
		}
	}
	var u Update
	if !f.collect(&u, true) || u.Health[0].Gaps != 1 || u.Health[0].Latency != 4*time.Millisecond {
		t.Fatalf("the moved figures not sent: %+v", u.Health)
	}
}
