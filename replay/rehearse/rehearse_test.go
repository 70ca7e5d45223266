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
	o.Path = fixture
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
	texts := map[string]bool{}
	jsons := map[string]bool{}
	for range 3 {
		rep := rehearseOK(t, o)
		var tb, jb bytes.Buffer
		if err := rep.WriteText(&tb); err != nil {
			t.Fatal(err)
		}
		if err := rep.WriteJSON(&jb); err != nil {
			t.Fatal(err)
		}
		texts[tb.String()], jsons[jb.String()] = true, true
		if !strings.Contains(tb.String(), "#3 bracket") {
			t.Fatalf("report:\n%s", tb.String())
		}
	}
	if len(texts) != 1 || len(jsons) != 1 {
		for s := range texts {
			t.Log(s)
		}
		t.Fatalf("%d different texts and %d different JSON reports from one recording", len(texts), len(jsons))
	}
}
