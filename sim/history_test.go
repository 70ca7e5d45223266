package sim_test

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"tradedeck/sim"
	"tradedeck/venue"
)

// minWindow is how many klines of each type the synthetic past gives at least (limit 1000).
var minWindow = map[string]int{
	"1m": 1000, "5m": 800, "15m": 280, "30m": 140, "1h": 1000, "4h": 600, "12h": 200,
	"1d": 400, "1w": 57, "1mon": 14, "1y": 2,
}

// TestHistoryOverREST reads the past through the real HTTP server with the venue client: a full
// window of every kline type, gapless, closing at the opening price, the historical klines, the
// 24h statistics and the public trade tape.
func TestHistoryOverREST(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	// A still market, so the current candles are exactly where the past
	// ended; all within one minute: a minute that begins between the start
	// and the reads is an empty candle of its own (seen as a flake under
	// load).
	awayFromMinuteEnd(15 * time.Second)
	inst := startSim(t, sim.Options{Seed: 5, Living: sim.LivingOptions{NoMarket: true}})
	c := venue.NewClient(inst.Endpoints, inst.Credentials)
	const spot, perp = "SPOT_ETH_USDT", "PERP_ETH_USDT"
	opening, xerr := inst.Exchange.LastPrice(spot)
	if xerr != nil {
		t.Fatal(xerr)
	}
	for _, typ := range venue.KlineTypes {
		ks, err := c.Kline(ctx, venue.KlineRequest{Symbol: spot, Type: typ, Limit: 1000})
		if err != nil {
			t.Fatal(err)
		}
		if len(ks) < minWindow[typ] {
			t.Fatalf("%s: %d klines at start, want at least %d", typ, len(ks), minWindow[typ])
		}
		if !ks[0].Close.Equal(opening) {
			t.Fatalf("%s: newest close %s, opening price %s", typ, ks[0].Close, opening)
		}
		for i := 1; i < len(ks); i++ {
			if ks[i].EndTimestamp.Time != ks[i-1].StartTimestamp.Time || !ks[i].Close.Equal(ks[i-1].Open) || !ks[i].Volume.IsPositive() {
				t.Fatalf("%s: %+v then %+v", typ, ks[i], ks[i-1])
			}
		}
	}
	hk, meta, err := c.HistKline(ctx, venue.HistKlineRequest{Symbol: spot, Type: "1d", StartTime: time.Now().Add(-30 * 24 * time.Hour)})
	if err != nil || len(hk) < 30 || meta.Total == nil || meta.Total.Int64() < 30 || !hk[0].Volume.IsPositive() {
		t.Fatalf("hist klines %d %+v %v", len(hk), meta, err)
	}
	trades, err := c.MarketTrades(ctx, spot, 100)
	if err != nil || len(trades) < 50 || !trades[0].ExecutedPrice.Equal(opening) {
		t.Fatalf("trade tape %d %v", len(trades), err)
	}
	fi, err := c.FuturesInfo(ctx, perp)
	if err != nil {
		t.Fatal(err)
	}
	day, _ := c.Kline(ctx, venue.KlineRequest{Symbol: perp, Type: "1h", Limit: 25})
	if !fi.Volume24h.IsPositive() || !fi.High24h.GreaterThan(fi.Low24h) || fi.Open24h.IsZero() ||
		fi.Amount24h.LessThan(fi.Volume24h.Mul(fi.Low24h)) || fi.Amount24h.GreaterThan(fi.Volume24h.Mul(fi.High24h)) {
		t.Fatalf("24h stats of %s: %+v", perp, fi)
	}
	// the 24h high is at least the high of the last whole hours (all inside the window)
	for _, k := range day[1:23] {
		if k.High.GreaterThan(fi.High24h) || k.Low.LessThan(fi.Low24h) {
			t.Fatalf("hour %+v outside the 24h range %s..%s", k, fi.Low24h, fi.High24h)
		}
	}
}

// TestHistoryKlineStreamContinues subscribes @kline_1m at start: the push is the current
// minute, right after the last minute of the past and opening at its close; a live trade then
// shows in it.
func TestHistoryKlineStreamContinues(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	began := time.Now()
	inst := startSim(t, sim.Options{Seed: 5, Living: sim.LivingOptions{NoMarket: true}})
	c := venue.NewClient(inst.Endpoints, inst.Credentials)
	const sym = "SPOT_BTC_USDT"
	ws := dialWS(t, inst.Endpoints.MarketStreamURL(inst.Credentials.ApplicationID))
	ws.subscribe("k", sym+"@kline_1m")
	isKline := func(m map[string]any) bool { return m["topic"] == sym+"@kline_1m" }
	push := ws.next("kline push", isKline)["data"].(map[string]any)
	ks, err := c.Kline(ctx, venue.KlineRequest{Symbol: sym, Type: "1m", Limit: 3})
	if err != nil {
		t.Fatal(err)
	}
	start, _ := strconv.ParseInt(numStr(push["startTime"]), 10, 64)
	// the push's minute is the newest REST kline's (or the next one, if a minute turned)
	prev := ks[1]
	if start != ks[0].StartTimestamp.UnixMilli() {
		prev = ks[0]
	}
	// The past has trades in every minute; the minute the sim started in
	// is live (and empty without a market) when a minute turned since.
	past := prev.StartTimestamp.Before(began.Truncate(time.Minute))
	if prev.EndTimestamp.UnixMilli() != start || (past && !prev.Volume.IsPositive()) || numStr(push["open"]) != prev.Close.String() {
		t.Fatalf("push %v after the past %+v", push, prev)
	}
	ack, err := c.SendOrder(ctx, venue.OrderRequest{Symbol: sym, Type: venue.Market, Side: venue.Buy, Amount: decimal.NewFromInt(2000)})
	if err != nil {
		t.Fatal(err)
	}
	fills, err := c.OrderTrades(ctx, ack.OrderID.Int64())
	if err != nil || len(fills) == 0 {
		t.Fatalf("fills %v %v", fills, err)
	}
	last := fills[len(fills)-1]
	live := ws.next("kline with the trade", func(m map[string]any) bool {
		if !isKline(m) {
			return false
		}
		d := m["data"].(map[string]any)
		return numStr(d["close"]) == last.ExecutedPrice.String() && numStr(d["volume"]) != "0"
	})["data"].(map[string]any)
	if v, _ := decimal.NewFromString(numStr(live["volume"])); v.LessThan(last.ExecutedQuantity) {
		t.Fatalf("live kline %v, fill %+v", live, last)
	}
}

// awayFromMinuteEnd waits for the next minute when less than margin is
// left of this one.
func awayFromMinuteEnd(margin time.Duration) {
	now := time.Now()
	if next := now.Truncate(time.Minute).Add(time.Minute); next.Sub(now) < margin {
		time.Sleep(next.Sub(now) + 50*time.Millisecond)
	}
}
