package rehearse_test

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"tradedeck/algo"
	"tradedeck/algo/report"
	"tradedeck/replay/rehearse"
	"tradedeck/trade"
)

var (
	taker = decimal.RequireFromString("0.0005") // the paper account's futures fees (the simulator's demo account)
	maker = decimal.RequireFromString("0.0002")
	bp    = decimal.NewFromInt(10_000)
)

func rehearseOK(t *testing.T, o rehearse.Options) report.Report {
	t.Helper()
	if o.Path == "" {
		o.Path = fixture
	}
	rep, err := rehearse.Run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Algos) != len(o.Lines) {
		t.Fatalf("%d algos reported, want %d", len(rep.Algos), len(o.Lines))
	}
	return rep
}

func eq(t *testing.T, what string, got, want decimal.Decimal) {
	t.Helper()
	if !got.Equal(want) {
		t.Errorf("%s = %s, want %s", what, got, want)
	}
}

func ms(ns int64) time.Time { return time.UnixMilli(ns / 1e6) }

// A bracket bought at market when the recording starts, its take-profit
// filled when the market trades through it: every number of the report
// against the recording itself.
func TestBracketReportMatchesTheRecording(t *testing.T) {
	tp := readTape(t)
	qty, tpLevel := decimal.RequireFromString("0.01"), decimal.RequireFromString("97100")
	rep := rehearseOK(t, rehearse.Options{Lines: []string{"bracket PERP_BTC_USDT buy 0.01 at market tp 97100 sl 96960"}})
	run := rep.Algos[0]

	// Added on the first bbo (the recorded book came before it), at its mid.
	b0 := tp.bbos[0]
	if !run.Added.Equal(time.Unix(0, b0.at)) {
		t.Errorf("added at %s, want the first bbo's %s", run.Added, time.Unix(0, b0.at))
	}
	arrival := b0.bid.Add(b0.ask).Div(decimal.NewFromInt(2))
	eq(t, "arrival", run.Arrival, arrival)

	// The entry walks the recorded REST book's asks.
	_, asks := tp.bookAt(b0.at)
	entry := walk(asks, false, qty)
	if len(entry) != 1 {
		t.Fatalf("the hand computation expects one ask level to fill the entry, got %v", entry)
	}
	// The take-profit rests at 97100 with no level there: the first BUY
	// print above it trades through it and fills it whole, at 97100.
	var tpAt int64
	for _, x := range tp.trades {
		if x.at >= b0.at && x.side == "BUY" && x.price.GreaterThanOrEqual(tpLevel) {
			if x.price.Equal(tpLevel) {
				t.Fatal("a print at the level itself: the queue would matter; pick another level")
			}
			tpAt = x.at
			break
		}
	}
	if tpAt == 0 {
		t.Fatal("the market never traded through the take-profit")
	}
	if run.State != "done" || !run.Ended.Equal(time.Unix(0, tpAt)) {
		t.Errorf("state %s ended %s, want done at the print through the level %s", run.State, run.Ended, time.Unix(0, tpAt))
	}
	want := []report.Fill{
		{Time: ms(b0.at), Algo: run.ID, Symbol: sym, Leg: algo.LegEntry, Side: trade.Buy, Qty: qty, Price: entry[0].price,
			Fee: qty.Mul(entry[0].price).Mul(taker), FeeAsset: "USDT"},
		{Time: ms(tpAt), Algo: run.ID, Symbol: sym, Leg: algo.LegTP, Side: trade.Sell, Qty: qty, Price: tpLevel,
			Fee: qty.Mul(tpLevel).Mul(maker), FeeAsset: "USDT", Maker: true},
	}
	checkFills(t, run.Fills, want)

	vwap := tp.vwap(b0.at, tpAt)
	eq(t, "VWAP", run.VWAP, vwap)
	en, ex := run.Sides[0], run.Sides[1]
	if en.Role != "entry" || en.Side != trade.Buy || ex.Role != "exit" || ex.Side != trade.Sell {
		t.Fatalf("sides %+v", run.Sides)
	}
	eq(t, "entry filled", en.Filled, qty)
	eq(t, "entry total", en.Total, qty)
	eq(t, "entry avg", en.AvgPrice, entry[0].price)
	eq(t, "entry vs arrival", en.VsArrival.Price, entry[0].price.Sub(arrival))
	eq(t, "entry vs arrival bps", en.VsArrival.Bps, entry[0].price.Sub(arrival).Mul(bp).DivRound(arrival, 2))
	eq(t, "entry vs VWAP", en.VsVWAP.Price, entry[0].price.Sub(vwap))
	eq(t, "exit filled", ex.Filled, qty)
	eq(t, "exit avg", ex.AvgPrice, tpLevel)
	eq(t, "exit vs arrival", ex.VsArrival.Price, arrival.Sub(tpLevel)) // a SELL above arrival: negative cost
	eq(t, "exit vs VWAP bps", ex.VsVWAP.Bps, vwap.Sub(tpLevel).Mul(bp).DivRound(vwap, 2))
	eq(t, "fees in all", rep.Fees[0].Fee, want[0].Fee.Add(want[1].Fee))
}

// A stop added two seconds in on a long opened at the recorded book
// fires on the first bid through it and sells the position into the
// recorded bids of that moment.
func TestStopReportMatchesTheRecording(t *testing.T) {
	tp := readTape(t)
	pos, level := decimal.RequireFromString("0.02"), decimal.RequireFromString("96990")
	from := time.Unix(0, tp.frames[0]).Add(2 * time.Second)
	rep := rehearseOK(t, rehearse.Options{From: from, Positions: []rehearse.Position{{Symbol: sym, Qty: pos}},
		Lines: []string{"stop PERP_BTC_USDT 96990"}})
	run := rep.Algos[0]

	var addAt int64
	for _, at := range tp.frames {
		if at >= from.UnixNano() {
			addAt = at
			break
		}
	}
	_, asks := tp.bookAt(addAt)
	var opening []report.Fill
	for _, f := range walk(asks, false, pos) {
		opening = append(opening, report.Fill{Time: ms(addAt), Symbol: sym, Side: trade.Buy, Qty: f.qty, Price: f.price,
			Fee: f.qty.Mul(f.price).Mul(taker), FeeAsset: "USDT"})
	}
	checkFills(t, rep.Opening, opening)

	var fire bboAt
	for _, b := range tp.bbos {
		if b.at > addAt && b.bid.LessThanOrEqual(level) {
			fire = b
			break
		}
	}
	if fire.at == 0 {
		t.Fatal("the bid never reached the stop")
	}
	if run.Fired == nil || !run.Fired.Price.Equal(fire.bid) || !run.Fired.Time.Equal(time.Unix(0, fire.at)) {
		t.Fatalf("fired %+v, want on the bid %s at %s", run.Fired, fire.bid, time.Unix(0, fire.at))
	}
	bids, _ := tp.bookAt(fire.at)
	var want []report.Fill
	notional := decimal.Zero
	for _, f := range walk(bids, true, pos) {
		want = append(want, report.Fill{Time: ms(fire.at), Algo: run.ID, Symbol: sym, Leg: algo.LegStop, Side: trade.Sell,
			Qty: f.qty, Price: f.price, Fee: f.qty.Mul(f.price).Mul(taker), FeeAsset: "USDT"})
		notional = notional.Add(f.qty.Mul(f.price))
	}
	checkFills(t, run.Fills, want)

	arrival := func() decimal.Decimal { b := tp.lastBBO(addAt); return b.bid.Add(b.ask).Div(decimal.NewFromInt(2)) }()
	eq(t, "arrival", run.Arrival, arrival)
	eq(t, "VWAP", run.VWAP, tp.vwap(addAt, fire.at))
	ex := run.Sides[0]
	avg := notional.DivRound(pos, 8)
	eq(t, "exit filled", ex.Filled, pos)
	eq(t, "exit total", ex.Total, pos)
	eq(t, "exit avg", ex.AvgPrice, avg)
	eq(t, "exit vs arrival", ex.VsArrival.Price, arrival.Sub(avg))
	eq(t, "exit vs arrival bps", ex.VsArrival.Bps, arrival.Sub(avg).Mul(bp).DivRound(arrival, 2))
	if run.State != "done" || !run.Ended.Equal(time.Unix(0, fire.at)) {
		t.Errorf("state %s ended %s, want done at the firing", run.State, run.Ended)
	}
}

func checkFills(t *testing.T, got, want []report.Fill) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("fills:\n got  %+v\n want %+v", got, want)
	}
	for i := range got {
		g, w := got[i], want[i]
		if !g.Time.Equal(w.Time) || g.Algo != w.Algo || g.Symbol != w.Symbol || g.Leg != w.Leg || g.Side != w.Side ||
			!g.Qty.Equal(w.Qty) || !g.Price.Equal(w.Price) || !g.Fee.Equal(w.Fee) || g.FeeAsset != w.FeeAsset || g.Maker != w.Maker {
			t.Errorf("fill %d:\n got  %+v\n want %+v", i, g, w)
		}
	}
}

// The same recording and algos give the same report, byte for byte, in
// text and in JSON.
func TestSameRecordingSameReport(t *testing.T) {
	o := rehearse.Options{Positions: []rehearse.Position{{Symbol: sym, Qty: decimal.RequireFromString("0.03")}},
		Lines: []string{"stop PERP_BTC_USDT 96990 0.02", "tp PERP_BTC_USDT 97060 0.01", "bracket PERP_BTC_USDT buy 0.01 at market tp 97100 sl 96960"}}
	if text := sameReports(t, o, 3); !strings.Contains(text, "#3 bracket") {
		t.Fatalf("report:\n%s", text)
	}
}

// sameReports rehearses o n times and fails unless the reports are all
// the same, byte for byte, in text and in JSON; it returns the text.
func sameReports(t *testing.T, o rehearse.Options, n int) string {
	t.Helper()
	texts, jsons := map[string]bool{}, map[string]bool{}
	var text string
	for range n {
		rep := rehearseOK(t, o)
		var tb, jb bytes.Buffer
		if err := rep.WriteText(&tb); err != nil {
			t.Fatal(err)
		}
		if err := rep.WriteJSON(&jb); err != nil {
			t.Fatal(err)
		}
		text = tb.String()
		texts[text], jsons[jb.String()] = true, true
	}
	if len(texts) != 1 || len(jsons) != 1 {
		for s := range texts {
			t.Log(s)
		}
		t.Fatalf("%d different texts and %d different JSON reports from one recording", len(texts), len(jsons))
	}
	return text
}

// Working orders on fixture2m: the engine's timers run on the
// recording's clock (algo.Config.AfterFunc), so a schedule of minutes
// plays in a fraction of a second of wall time and still sends each
// slice at its recorded time.

func rehearse2m(t *testing.T, o rehearse.Options) report.Report {
	t.Helper()
	o.Path = fixture2m
	return rehearseOK(t, o)
}

// tick is the recording's PERP_BTC_USDT price tick (its recorded rules).
var tick = decimal.RequireFromString("0.1")

// lot is its quantity step.
var lot = decimal.RequireFromString("0.0001")

// msOf is a recorded time as the paper venue stamps it (milliseconds).
func msOf(t time.Time) time.Time { return time.UnixMilli(t.UnixMilli()) }

// A TWAP of 6 slices over a minute, added 5 s into the recording: slice
// k is sent at start + k x 10 s of recorded time, a MARKET order that
// walks the recorded asks of that moment, and the total fills.
func TestTWAPSlicesAtRecordedTimes(t *testing.T) {
	tp := readTapeOf(t, fixture2m)
	from := time.Unix(0, tp.frames[0]).Add(5 * time.Second)
	rep := rehearse2m(t, rehearse.Options{From: from, Lines: []string{"twap PERP_BTC_USDT buy 0.06 over 1m slices 6"}})
	run := rep.Algos[0]
	slice := decimal.RequireFromString("0.01")
	if len(run.Orders) != 6 {
		t.Fatalf("%d orders, want 6 slices:\n%+v", len(run.Orders), run.Orders)
	}
	for k, o := range run.Orders {
		due := run.Added.Add(time.Duration(k) * 10 * time.Second)
		if !o.Placed.Equal(msOf(due)) {
			t.Errorf("slice %d placed at %s, want start + %d x 10 s = %s", k+1, o.Placed.UTC(), k, due.UTC())
		}
		if o.Type != "MARKET" || o.Side != trade.Buy || !o.Qty.Equal(slice) || !o.Filled.Equal(slice) || o.Status != "FILLED" || !o.Ended.Equal(o.Placed) {
			t.Errorf("slice %d: %+v, want a MARKET BUY of %s filled at once", k+1, o, slice)
		}
		_, asks := tp.bookAt(due.UnixNano())
		var want []report.Fill
		for _, f := range walk(asks, false, slice) {
			want = append(want, report.Fill{Time: o.Placed, Algo: run.ID, Symbol: sym, Leg: algo.LegWork, Side: trade.Buy,
				Qty: f.qty, Price: f.price, Fee: f.qty.Mul(f.price).Mul(taker), FeeAsset: "USDT"})
		}
		checkFills(t, fillsAt(run.Fills, o.Placed), want)
	}
	if run.State != "done" || run.Sides[0].Role != "work" || !run.Sides[0].Filled.Equal(decimal.RequireFromString("0.06")) {
		t.Errorf("state %s, side %+v: want done, the work side filled 0.06", run.State, run.Sides[0])
	}
	if end := run.Added.Add(50 * time.Second); !msOf(run.Ended).Equal(msOf(end)) {
		t.Errorf("ended %s, want at the last slot %s", run.Ended.UTC(), end.UTC())
	}
}

func fillsAt(fills []report.Fill, at time.Time) []report.Fill {
	var out []report.Fill
	for _, f := range fills {
		if f.Time.Equal(at) {
			out = append(out, f)
		}
	}
	return out
}

// With jitter 20 % each slot moves by at most 2 s of its 10, the first
// and the last not at all, and each slice's size by at most 20 %.
func TestTWAPJitterStaysWithinItsBound(t *testing.T) {
	rep := rehearse2m(t, rehearse.Options{Lines: []string{"twap PERP_BTC_USDT sell 0.06 over 1m slices 6 jitter 20%"}})
	run := rep.Algos[0]
	if len(run.Orders) != 6 {
		t.Fatalf("%d orders, want 6 slices", len(run.Orders))
	}
	moved := 0
	var total decimal.Decimal
	for k, o := range run.Orders {
		due := msOf(run.Added.Add(time.Duration(k) * 10 * time.Second))
		off := o.Placed.Sub(due).Abs()
		switch {
		case (k == 0 || k == 5) && off != 0:
			t.Errorf("slice %d moved by %s: the first and the last slots are not jittered", k+1, off)
		case off > 2*time.Second+time.Millisecond:
			t.Errorf("slice %d placed %s from its slot, over 20 %% of 10 s", k+1, off)
		case off > time.Millisecond:
			moved++
		}
		if k > 0 && !o.Placed.After(run.Orders[k-1].Placed) {
			t.Errorf("slice %d placed at %s, not after slice %d", k+1, o.Placed.UTC(), k)
		}
		// spread: what is left over the slots left, moved by the jitter
		// (the last takes all that is left)
		left := decimal.RequireFromString("0.06").Sub(total)
		nominal := left.Div(decimal.NewFromInt(int64(6 - k)))
		lo, hi := nominal.Mul(decimal.RequireFromString("0.8")).Sub(lot), nominal.Mul(decimal.RequireFromString("1.2"))
		if k < 5 && (o.Qty.LessThan(lo) || o.Qty.GreaterThan(hi)) || k == 5 && !o.Qty.Equal(left) {
			t.Errorf("slice %d of %s: want within 20 %% of %s (%s left over %d slots)", k+1, o.Qty, nominal, left, 6-k)
		}
		total = total.Add(o.Filled)
	}
	if moved == 0 {
		t.Error("no slot moved: the jitter did not apply")
	}
	if !total.Equal(decimal.RequireFromString("0.06")) {
		t.Errorf("filled %s, want 0.06", total)
	}
}

// A buy chase 30.0 behind the bid, added 20 s in, while the market rises:
// every order it places is at the recorded best bid of that moment less
// its offset, each re-price a cancel (nothing filled) then a new order at
// a higher bid in the same recorded instant, never past its leash; its
// last order fills the whole quantity at its own price, as a maker.
func TestChaseRepricesFollowTheRecordedBid(t *testing.T) {
	tp := readTapeOf(t, fixture2m)
	from := time.Unix(0, tp.frames[0]).Add(20 * time.Second)
	qty := decimal.RequireFromString("0.2")
	rep := rehearse2m(t, rehearse.Options{From: from, Lines: []string{"chase PERP_BTC_USDT buy 0.2 offset 300"}})
	run := rep.Algos[0]
	leash := decimal.RequireFromString(strings.Fields(run.Line[strings.Index(run.Line, "leash"):])[1])
	offset := tick.Mul(decimal.NewFromInt(300))
	if len(run.Orders) < 4 {
		t.Fatalf("%d orders: the fixture's rise should re-price the chase at least 3 times", len(run.Orders))
	}
	for k, o := range run.Orders {
		b := tp.lastBBO(o.Placed.UnixNano() + int64(time.Millisecond) - 1)
		// The first order may go before the symbol's first bbo reaches the
		// engine, at the best the venue's book shows: at the recorded bid
		// of the moment, on no bbo of its own. The re-prices act on bbos.
		if k > 0 && !msOf(time.Unix(0, b.at)).Equal(o.Placed) {
			t.Errorf("order %d placed at %s, not on a recorded bbo (last one %s)", k+1, o.Placed.UTC(), time.Unix(0, b.at).UTC())
		}
		if want := b.bid.Sub(offset); !o.Price.Equal(want) || o.Price.GreaterThan(leash) {
			t.Errorf("order %d at %s, want the bid %s less 300 ticks = %s (leash %s)", k+1, o.Price, b.bid, want, leash)
		}
		if o.Type != "LIMIT" || !o.Qty.Equal(qty) {
			t.Errorf("order %d: %+v, want a LIMIT of %s", k+1, o, qty)
		}
		if k == 0 {
			continue
		}
		prev := run.Orders[k-1]
		if !o.Price.GreaterThan(prev.Price) || prev.Status != "CANCELLED" || !prev.Filled.IsZero() || !prev.Ended.Equal(o.Placed) {
			t.Errorf("re-price %d: %+v after %+v, want the one before cancelled unfilled at the same instant and a higher price", k, o, prev)
		}
	}
	last := run.Orders[len(run.Orders)-1]
	if last.Status != "FILLED" || run.State != "done" || !run.Sides[0].Filled.Equal(qty) {
		t.Fatalf("last order %+v, state %s: want the quantity filled", last, run.State)
	}
	for _, f := range run.Fills {
		if !f.Maker || !f.Price.Equal(last.Price) || f.Time.Before(last.Placed) {
			t.Errorf("fill %+v, want a maker fill of the last order at %s", f, last.Price)
		}
	}
}

// A chase and a TWAP rehearsed together give the same report, byte for
// byte, text and JSON, every time.
func TestWorkingOrdersSameRecordingSameReport(t *testing.T) {
	tp := readTapeOf(t, fixture2m)
	o := rehearse.Options{From: time.Unix(0, tp.frames[0]).Add(20 * time.Second),
		Lines: []string{"chase PERP_BTC_USDT buy 0.2 offset 300", "twap PERP_BTC_USDT sell 0.06 over 1m slices 6 jitter 20%"}}
	o.Path = fixture2m
	text := sameReports(t, o, 3)
	if !strings.Contains(text, "#2 twap") || strings.Count(text, " LIMIT ") < 2 || strings.Count(text, " MARKET ") != 6 {
		t.Fatalf("report:\n%s", text)
	}
}

// A stop-limit whose LIMIT rests above the market, market-after 5s: on
// recorded time, the rest is cancelled 5 s after the firing and sold at
// MARKET after the first re-send spacing (50 ms), into the recorded bids
// of that moment.
func TestStopLimitMarketAfterOnRecordedTime(t *testing.T) {
	tp := readTapeOf(t, fixture2m)
	pos, level := decimal.RequireFromString("0.02"), decimal.RequireFromString("96980")
	from := time.Unix(0, tp.frames[0]).Add(2 * time.Second)
	rep := rehearse2m(t, rehearse.Options{From: from, Positions: []rehearse.Position{{Symbol: sym, Qty: pos}},
		Lines: []string{"stop PERP_BTC_USDT 96980 limit 97500 market-after 5s"}})
	run := rep.Algos[0]
	if run.Fired == nil {
		t.Fatalf("the stop never fired:\n%+v", run)
	}
	var fire bboAt
	for _, b := range tp.bbos {
		if b.at >= run.Added.UnixNano() && b.bid.LessThanOrEqual(level) {
			fire = b
			break
		}
	}
	if !run.Fired.Time.Equal(time.Unix(0, fire.at)) {
		t.Fatalf("fired at %s, want the first bid through %s at %s", run.Fired.Time.UTC(), level, time.Unix(0, fire.at).UTC())
	}
	after := time.Unix(0, fire.at).Add(5*time.Second + 50*time.Millisecond)
	bids, _ := tp.bookAt(after.UnixNano())
	var want []report.Fill
	for _, f := range walk(bids, true, pos) {
		want = append(want, report.Fill{Time: msOf(after), Algo: run.ID, Symbol: sym, Leg: algo.LegStop, Side: trade.Sell,
			Qty: f.qty, Price: f.price, Fee: f.qty.Mul(f.price).Mul(taker), FeeAsset: "USDT"})
	}
	checkFills(t, run.Fills, want)
	if run.State != "done" || len(run.Orders) != 0 {
		t.Errorf("state %s (%s), %d orders: want done, no order list (not a working order)", run.State, run.Reason, len(run.Orders))
	}
}
