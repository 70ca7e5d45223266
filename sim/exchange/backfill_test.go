package exchange

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"tradedeck/internal/testkit"
)

// pastStart is a Wednesday afternoon, minutes into an hour: buckets of every size are partial.
var pastStart = time.Date(2026, 3, 18, 14, 37, 21, 0, time.UTC)

func newWithPast(t testing.TB, seed int64, clock *testkit.Clock) *Exchange {
	t.Helper()
	ex, err := New(Options{Seed: seed, Clock: clock.Now})
	if err != nil {
		t.Fatal(err)
	}
	return ex
}

// wantWindow is how many buckets of each type the past must give at least, up to limit 1000.
var wantWindow = map[string]int{
	"1m": 1000, "5m": 800, "15m": 280, "30m": 140, "1h": 1000, "4h": 600, "12h": 200,
	"1d": 400, "1w": 57, "1mon": 14, "1y": 2,
}

func TestBackfillDeterministicPerSeed(t *testing.T) {
	clock := testkit.NewClock(pastStart)
	a, b, c := newWithPast(t, 7, clock), newWithPast(t, 7, clock), newWithPast(t, 8, clock)
	for _, typ := range []string{"1m", "1h", "1d"} {
		ka, _ := a.Klines("SPOT_ETH_USDT", typ, 500)
		kb, _ := b.Klines("SPOT_ETH_USDT", typ, 500)
		kc, _ := c.Klines("SPOT_ETH_USDT", typ, 500)
		if !reflect.DeepEqual(ka, kb) {
			t.Fatalf("%s: same seed, different past", typ)
		}
		if reflect.DeepEqual(ka, kc) {
			t.Fatalf("%s: seeds 7 and 8 drew the same past", typ)
		}
	}
	ta, _ := a.MarketTrades("SPOT_ETH_USDT", 100)
	tb, _ := b.MarketTrades("SPOT_ETH_USDT", 100)
	if !reflect.DeepEqual(ta, tb) {
		t.Fatal("same seed, different trade tape")
	}
}

// TestBackfillKlinesEveryType checks every kline type of every symbol: a full window without
// gaps, OHLC consistent, prices on the tick, volumes on the step, the amount between
// low*volume and high*volume, each candle opening at the previous close, and the current
// bucket closing at the opening price.
func TestBackfillKlinesEveryType(t *testing.T) {
	clock := testkit.NewClock(pastStart)
	ex := newWithPast(t, 1, clock)
	for _, m := range ex.marketList {
		opening := m.price(m.last)
		tick, step := m.price(m.quoteTick), m.qty(m.baseTick)
		for _, typ := range KlineTypes {
			ks, err := ex.Klines(m.spec.Symbol, typ, 1000)
			if err != nil {
				t.Fatal(err)
			}
			if len(ks) < wantWindow[typ] {
				t.Fatalf("%s %s: %d klines, want at least %d", m.spec.Symbol, typ, len(ks), wantWindow[typ])
			}
			if !ks[0].Close.Equal(opening) {
				t.Fatalf("%s %s: current close %s, opening price %s", m.spec.Symbol, typ, ks[0].Close, opening)
			}
			for i, k := range ks {
				if k.Low.GreaterThan(k.Open) || k.Low.GreaterThan(k.Close) || k.High.LessThan(k.Open) || k.High.LessThan(k.Close) || !k.Low.IsPositive() {
					t.Fatalf("%s %s: OHLC %+v", m.spec.Symbol, typ, k)
				}
				for _, p := range []decimal.Decimal{k.Open, k.High, k.Low, k.Close} {
					if !p.Mod(tick).IsZero() {
						t.Fatalf("%s %s: price %s off the tick %s", m.spec.Symbol, typ, p, tick)
					}
				}
				if !k.Volume.Mod(step).IsZero() || k.Amount.LessThan(k.Low.Mul(k.Volume)) || k.Amount.GreaterThan(k.High.Mul(k.Volume)) {
					t.Fatalf("%s %s: volume %s amount %s outside [low, high]*volume: %+v", m.spec.Symbol, typ, k.Volume, k.Amount, k)
				}
				if (k.Count > 0) != k.Volume.IsPositive() {
					t.Fatalf("%s %s: count %d with volume %s", m.spec.Symbol, typ, k.Count, k.Volume)
				}
				if i == 0 {
					continue
				}
				older := ks[i]
				if older.EndMs != ks[i-1].StartMs {
					t.Fatalf("%s %s: gap between %+v and %+v", m.spec.Symbol, typ, older, ks[i-1])
				}
				if !ks[i-1].Open.Equal(older.Close) {
					t.Fatalf("%s %s: %d opens at %s after a close at %s", m.spec.Symbol, typ, ks[i-1].StartMs, ks[i-1].Open, older.Close)
				}
				if i < len(ks)-1 && ks[i].Count == 0 {
					t.Fatalf("%s %s: empty past bucket %+v", m.spec.Symbol, typ, k)
				}
			}
		}
	}
}

// TestBackfillAggregatesAgree checks that coarser klines are exactly the finer ones merged.
func TestBackfillAggregatesAgree(t *testing.T) {
	clock := testkit.NewClock(pastStart)
	ex := newWithPast(t, 1, clock)
	const sym = "PERP_SOL_USDT"
	for _, p := range []struct {
		fine, coarse string
		n            int
	}{{"1m", "1h", 60}, {"1m", "5m", 5}, {"1h", "1d", 24}, {"1h", "12h", 12}, {"1d", "1w", 7}} {
		coarse, _ := ex.Klines(sym, p.coarse, 3)
		c := coarse[1] // a whole bucket
		fine, _, _ := ex.HistKlines(sym, p.fine, c.StartMs, 1, p.n)
		if len(fine) != p.n || fine[0].StartMs != c.StartMs || fine[p.n-1].EndMs != c.EndMs {
			t.Fatalf("%s in %s: %d rows", p.fine, p.coarse, len(fine))
		}
		vol, amount, count, hi, lo := decimal.Zero, decimal.Zero, 0, fine[0].High, fine[0].Low
		for _, k := range fine {
			vol, amount, count = vol.Add(k.Volume), amount.Add(k.Amount), count+k.Count
			hi, lo = decimal.Max(hi, k.High), decimal.Min(lo, k.Low)
		}
		if !vol.Equal(c.Volume) || !amount.Equal(c.Amount) || count != c.Count || !hi.Equal(c.High) || !lo.Equal(c.Low) ||
			!fine[0].Open.Equal(c.Open) || !fine[p.n-1].Close.Equal(c.Close) {
			t.Fatalf("%s %+v is not the merge of its %s klines (vol %s amount %s count %d hi %s lo %s)", p.coarse, c, p.fine, vol, amount, count, hi, lo)
		}
	}
}

func TestBackfillTicker24hMatchesCandles(t *testing.T) {
	clock := testkit.NewClock(pastStart)
	ex := newWithPast(t, 1, clock)
	for _, sym := range []string{"SPOT_BTC_USDT", "PERP_DOGE_USDT"} {
		st, _ := ex.Ticker24h(sym)
		ks, _ := ex.Klines(sym, "1m", 1000)
		// the 24h window starts 1440 minutes before the current one
		rows, _, _ := ex.HistKlines(sym, "1m", clock.Now().UnixMilli()-86_400_000, 1, 1000)
		more, _, _ := ex.HistKlines(sym, "1m", clock.Now().UnixMilli()-86_400_000, 2, 1000)
		rows = append(rows, more...)
		vol, amount, count, hi, lo := decimal.Zero, decimal.Zero, 0, rows[0].High, rows[0].Low
		for _, k := range rows {
			vol, amount, count = vol.Add(k.Volume), amount.Add(k.Amount), count+k.Count
			hi, lo = decimal.Max(hi, k.High), decimal.Min(lo, k.Low)
		}
		if !st.Volume.Equal(vol) || !st.Amount.Equal(amount) || st.Count != count || !st.High.Equal(hi) || !st.Low.Equal(lo) ||
			!st.Open.Equal(rows[0].Open) || !st.Close.Equal(ks[0].Close) {
			t.Fatalf("%s ticker %+v, candles vol %s amount %s count %d high %s low %s open %s", sym, st, vol, amount, count, hi, lo, rows[0].Open)
		}
		if !st.Volume.IsPositive() || st.Count < 1000 || !st.High.GreaterThan(st.Low) {
			t.Fatalf("%s: a dead market %+v", sym, st)
		}
	}
	// a day of BTC moves about its volatility: neither flat nor wild
	st, _ := ex.Ticker24h("SPOT_BTC_USDT")
	if r := st.High.Sub(st.Low).Div(st.Close); r.LessThan(decimal.RequireFromString("0.003")) || r.GreaterThan(decimal.RequireFromString("0.3")) {
		t.Fatalf("BTC 24h range %s of the price", r)
	}
}

func TestBackfillTradeTapeMatchesCandles(t *testing.T) {
	clock := testkit.NewClock(pastStart)
	ex := newWithPast(t, 1, clock)
	for _, m := range ex.marketList {
		sym := m.spec.Symbol
		trades, _ := ex.MarketTrades(sym, 1000)
		if len(trades) < backfillTapeTrades {
			t.Fatalf("%s: %d trades on the tape", sym, len(trades))
		}
		if !trades[0].Price.Equal(m.price(m.last)) || trades[0].Timestamp >= clock.Now().UnixMilli() {
			t.Fatalf("%s: newest trade %+v, opening price %s", sym, trades[0], m.price(m.last))
		}
		// every whole minute the tape covers is exactly the candle of that minute
		oldestMinute := trades[len(trades)-1].Timestamp/60_000*60_000 + 60_000
		byMinute := map[int64][]PublicTrade{}
		for i, tr := range trades {
			if i > 0 && tr.Timestamp > trades[i-1].Timestamp {
				t.Fatalf("%s: tape not newest first", sym)
			}
			byMinute[tr.Timestamp/60_000*60_000] = append(byMinute[tr.Timestamp/60_000*60_000], tr)
		}
		ks, _, _ := ex.HistKlines(sym, "1m", oldestMinute, 1, 100)
		checked := 0
		for _, k := range ks {
			ts := byMinute[k.StartMs]
			if k.Count == 0 {
				continue
			}
			vol, amount := decimal.Zero, decimal.Zero
			for _, tr := range ts {
				vol, amount = vol.Add(tr.Size), amount.Add(tr.Price.Mul(tr.Size))
			}
			if len(ts) != k.Count || !vol.Equal(k.Volume) || !amount.Equal(k.Amount) || !ts[len(ts)-1].Price.Equal(k.Open) || !ts[0].Price.Equal(k.Close) {
				t.Fatalf("%s minute %d: %d trades vol %s amount %s, kline %+v", sym, k.StartMs, len(ts), vol, amount, k)
			}
			checked++
		}
		if checked == 0 {
			t.Fatalf("%s: no whole minute on the tape", sym)
		}
	}
}

func TestBackfillLiveTradesContinue(t *testing.T) {
	clock := testkit.NewClock(pastStart)
	ex := newWithPast(t, 1, clock)
	const sym = "SPOT_BTC_USDT"
	before, _ := ex.Ticker24h(sym)
	day0, _ := ex.Klines(sym, "1d", 1)
	alice, _ := ex.AccountByName("DEMO_MAIN")
	ack, perr := ex.PlaceOrder(alice, OrderRequest{Symbol: sym, Type: Market, Side: Buy, Amount: decimal.NewFromInt(1000), HasAmount: true})
	if perr != nil {
		t.Fatal(perr)
	}
	o, fills, _ := ex.OrderByID(alice, ack.ID)
	if !o.Executed.IsPositive() || len(fills) == 0 {
		t.Fatalf("market buy %+v", o)
	}
	ks, _ := ex.Klines(sym, "1m", 2)
	if ks[0].StartMs != clock.Now().UnixMilli()/60_000*60_000 || !ks[0].Volume.Equal(o.Executed) || ks[0].Count != len(fills) ||
		!ks[0].Open.Equal(fills[0].Price) || !ks[1].Close.Equal(before.Close) {
		t.Fatalf("live minute %+v after %+v (%d fills of %s)", ks[0], ks[1], len(fills), o.Executed)
	}
	after, _ := ex.Ticker24h(sym)
	if !after.Volume.Equal(before.Volume.Add(o.Executed)) || after.Count != before.Count+len(fills) {
		t.Fatalf("ticker %+v after %+v", after, before)
	}
	day1, _ := ex.Klines(sym, "1d", 1)
	if !day1[0].Volume.Equal(day0[0].Volume.Add(o.Executed)) || day1[0].StartMs != day0[0].StartMs {
		t.Fatalf("day %+v after %+v", day1[0], day0[0])
	}
	h, _ := ex.Klines(sym, "1h", 1)
	if h[0].Count <= len(fills) || !h[0].Close.Equal(ks[0].Close) {
		t.Fatalf("hour %+v", h[0])
	}
}

func TestBackfillPersistsAndRestores(t *testing.T) {
	clock := testkit.NewClock(pastStart)
	ex := newWithPast(t, 1, clock)
	snap, err := ex.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	// restored later, with another seed: the saved past is kept, not redrawn
	clock.Advance(10 * time.Minute)
	re, err := NewFromState(Options{Seed: 99, Clock: clock.Now}, snap)
	if err != nil {
		t.Fatal(err)
	}
	for _, typ := range KlineTypes {
		a, _ := ex.Klines("SPOT_WOO_USDT", typ, 1000)
		b, _ := re.Klines("SPOT_WOO_USDT", typ, 1000)
		if !reflect.DeepEqual(a, b) {
			t.Fatalf("%s klines differ after restore", typ)
		}
	}
	// a state saved without a past gets one on restore, ending at its last price
	bare, err := New(Options{Seed: 1, Clock: clock.Now, NoHistory: true})
	if err != nil {
		t.Fatal(err)
	}
	if ks, _ := bare.Klines("SPOT_WOO_USDT", "1m", 10); len(ks) != 0 {
		t.Fatalf("NoHistory venue has klines %+v", ks)
	}
	if tr, _ := bare.MarketTrades("SPOT_WOO_USDT", 10); len(tr) != 0 {
		t.Fatalf("NoHistory venue has trades %+v", tr)
	}
	snap, _ = bare.Snapshot()
	re, err = NewFromState(Options{Seed: 1, Clock: clock.Now}, snap)
	if err != nil {
		t.Fatal(err)
	}
	if ks, _ := re.Klines("SPOT_WOO_USDT", "1h", 1000); len(ks) < wantWindow["1h"] {
		t.Fatalf("restored bare state: %d hour klines", len(ks))
	}
	// an older state file without hour candles rebuilds them from its minutes
	ex2 := newWithPast(t, 1, clock)
	st, dec, minutes, _, days := ex2.copyState()
	for i := range st.Markets {
		st.Markets[i].Minutes = candleStates(minutes[i], dec[i])
		st.Markets[i].Days = candleStates(days[i], dec[i])
	}
	old, _ := json.Marshal(&st)
	re, err = NewFromState(Options{Seed: 1, Clock: clock.Now, NoHistory: true}, old)
	if err != nil {
		t.Fatal(err)
	}
	a, _ := ex2.Klines("SPOT_BTC_USDT", "1h", 72)
	b, _ := re.Klines("SPOT_BTC_USDT", "1h", 72)
	if !reflect.DeepEqual(a, b) {
		t.Fatal("hour klines not rebuilt from minutes")
	}
}

func BenchmarkBackfill(b *testing.B) {
	ex, err := New(Options{NoHistory: true, NoSeedLiquidity: true})
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		for _, m := range ex.marketList {
			m.candles, m.trades = candleSeries{}, nil
		}
		ex.backfillAll(1)
	}
}

// TestBackfillVolumeLevelSteady compares the quote volume drawn at each resolution: days drawn
// whole, days made of drawn hours, hours made of drawn minutes must trade about as much.
func TestBackfillVolumeLevelSteady(t *testing.T) {
	clock := testkit.NewClock(pastStart)
	ex := newWithPast(t, 1, clock)
	mean := func(ks []Kline) decimal.Decimal {
		sum := decimal.Zero
		for _, k := range ks {
			sum = sum.Add(k.Amount)
		}
		return sum.Div(decimal.NewFromInt(int64(len(ks))))
	}
	half, two := decimal.RequireFromString("0.5"), decimal.NewFromInt(2)
	for _, m := range ex.marketList {
		for _, c := range []struct {
			typ                  string
			recent, older, limit int // recent: [1, recent), older: [older, limit)
		}{{"1d", 95, 110, 400}, {"1h", 70, 80, 1000}} {
			ks, _ := ex.Klines(m.spec.Symbol, c.typ, c.limit)
			if r := mean(ks[1:c.recent]).Div(mean(ks[c.older:])); r.LessThan(half) || r.GreaterThan(two) {
				t.Fatalf("%s %s: recent quote volume %s times the older one", m.spec.Symbol, c.typ, r.StringFixed(2))
			}
		}
	}
}
