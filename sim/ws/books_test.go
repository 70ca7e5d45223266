package ws

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"tradedeck/fixed"
	"tradedeck/sim/exchange"
)

func TestAggregateBuckets(t *testing.T) {
	asks := []exchange.LevelPrint{{Price: 1001, Qty: 1}, {Price: 1009, Qty: 2}, {Price: 1010, Qty: 4}, {Price: 1011, Qty: 8}}
	bids := []exchange.LevelPrint{{Price: 999, Qty: 1}, {Price: 991, Qty: 2}, {Price: 990, Qty: 4}, {Price: 989, Qty: 8}}
	// asks round up to the bucket, bids down: a bucket never shows a better price than its orders
	if got := aggregate(asks, 10, false); len(got) != 2 || got[0] != (level{Price: 1010, Qty: 7}) || got[1] != (level{Price: 1020, Qty: 8}) {
		t.Fatalf("asks %v", got)
	}
	if got := aggregate(bids, 10, true); len(got) != 2 || got[0] != (level{Price: 990, Qty: 7}) || got[1] != (level{Price: 980, Qty: 8}) {
		t.Fatalf("bids %v", got)
	}
}

func TestDiffSide(t *testing.T) {
	lp := func(p, q int64, print uint64) exchange.LevelPrint {
		return exchange.LevelPrint{Price: p, Qty: q, Print: print}
	}
	prev := []exchange.LevelPrint{lp(100, 1, 1), lp(101, 2, 2), lp(103, 3, 3), lp(105, 5, 5)}
	cur := []exchange.LevelPrint{lp(100, 1, 1), lp(101, 2, 9), lp(104, 4, 4), lp(105, 6, 5)}
	touched := []exchange.TouchedLevel{
		{Price: 102},            // came and went between the captures
		{Price: 100},            // touched, same now: sent anyway
		{Price: 102},            // repeats are sent once
		{Price: 99, Buy: true},  // the other side: not here
		{Price: 106},            // beyond both captures: 0, as for a level leaving the window
		{Price: 105, Buy: true}, // a bid at an ask's price (crossed in between): not an ask
	}
	bids, asks := splitTouched(touched, nil, nil)
	if want := []int64{105, 99}; !reflect.DeepEqual(bids, want) {
		t.Fatalf("touched bids %v, want %v", bids, want)
	}
	got := diffSide(nil, prev, cur, asks, false, askBetter)
	want := []level{{Price: 100, Qty: 1}, {Price: 101, Qty: 2}, {Price: 102}, {Price: 103}, {Price: 104, Qty: 4}, {Price: 105, Qty: 6}, {Price: 106}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("diff %v, want %v", got, want)
	}
	if got := diffSide(nil, prev, prev, nil, false, askBetter); len(got) != 0 {
		t.Fatalf("no change: %v", got)
	}
	if got := diffSide(nil, prev, prev, nil, true, askBetter); len(got) != len(prev) {
		t.Fatalf("resend: %v", got)
	}
	// Bids, best (highest) first, a touched level between two unchanged ones.
	prevB := []exchange.LevelPrint{lp(99, 1, 1), lp(97, 2, 2)}
	if got, want := diffSide(nil, prevB, prevB, bids[1:], false, bidBetter), []level{{Price: 99, Qty: 1}}; !reflect.DeepEqual(got, want) {
		t.Fatalf("bids %v, want %v", got, want)
	}
	if got, want := diffSide(nil, prevB, prevB, []int64{98}, false, bidBetter), []level{{Price: 98}}; !reflect.DeepEqual(got, want) {
		t.Fatalf("bids %v, want %v", got, want)
	}
}

// TestBlipBetweenCapturesReachesUpdate: orders that rest and leave again between two pushes (one
// joining a level, one opening a new level) leave no net change, yet a snapshot taken in between
// holds them. The next orderbookupdate must carry both levels, and the snapshot must be stamped
// after the first push although everything happens in one millisecond, so a client following the
// sync rule ends with the exact book. The orders are the synthetic market's kind (an internal
// account, never announced as events): only the exchange knows they were there.
func TestBlipBetweenCapturesReachesUpdate(t *testing.T) {
	frozen := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	ex, err := exchange.New(exchange.Options{Seed: 7, Clock: func() time.Time { return frozen }})
	if err != nil {
		t.Fatal(err)
	}
	opts := fastOptions()
	opts.UpdateInterval = time.Hour // the test captures by hand
	v := serveVenue(t, ex, opts)
	const sym = "SPOT_BTC_USDT"
	m := v.srv.markets[sym]
	cl := v.market(t)
	if r := subscribe(cl, "u", sym+"@orderbookupdate"); r["success"] != true {
		t.Fatalf("subscribe: %v", r)
	}
	push := func() (ts, prevTs int64, asks, bids []any) {
		ex.CaptureBooks(depthOrderbook, nil)
		f := cl.Next(5*time.Second, "orderbookupdate", topicIs(sym+"@orderbookupdate"))
		d := f["data"].(map[string]any)
		return num64(t, f["ts"]), num64(t, d["prevTs"]), d["asks"].([]any), d["bids"].([]any)
	}
	t1, _, _, _ := push()

	asks, bids, _, _ := ex.DepthFixed(sym, depthOrderbook, nil, nil)
	if asks[0].Price-m.tick <= bids[0].Price {
		t.Fatalf("the seeded spread %d..%d has no room for a new level", bids[0].Price, asks[0].Price)
	}
	acct := ex.InternalAccount("BLIP")
	place := func(side exchange.Side, price int64) int64 {
		o, err := ex.PlaceOrder(acct, exchange.OrderRequest{Symbol: sym, Type: exchange.PostOnly, Side: side,
			Price: fixed.ToDecimal(price, m.pd), HasPrice: true, Quantity: fixed.ToDecimal(3, 0), HasQuantity: true})
		if err != nil {
			t.Fatal(err)
		}
		return o.ID
	}
	joined := place(exchange.Buy, bids[0].Price)         // A -> B at an existing level
	opened := place(exchange.Sell, asks[0].Price-m.tick) // a new level inside the spread
	snapAsks, snapBids, snapTs, _ := ex.DepthFixed(sym, depthOrderbook, nil, nil)
	if snapTs <= t1 {
		t.Fatalf("a snapshot holding changes made after the push at %d is stamped %d", t1, snapTs)
	}
	for _, id := range []int64{joined, opened} {
		if err := ex.Cancel(acct, sym, id); err != nil {
			t.Fatal(err)
		}
	}
	t2, prev2, upAsks, upBids := push()
	if (prev2 > snapTs || snapTs >= t2) || prev2 != t1 {
		t.Fatalf("push %d (prevTs %d) does not follow the snapshot stamped %d", t2, prev2, snapTs)
	}

	// The client: the snapshot, then the update by the sync rule.
	book := func(ls []exchange.FixedLevel) map[int64]int64 {
		out := map[int64]int64{}
		for _, l := range ls {
			out[l.Price] = l.Qty
		}
		return out
	}
	apply := func(side map[int64]int64, levels []any) map[int64]int64 {
		for _, l := range levels {
			pq := l.([]any)
			p, _ := fixed.Parse([]byte(pq[0].(json.Number)), m.pd)
			q, _ := fixed.Parse([]byte(pq[1].(json.Number)), m.qd)
			if q == 0 {
				delete(side, p)
			} else {
				side[p] = q
			}
		}
		return side
	}
	gotAsks, gotBids := apply(book(snapAsks), upAsks), apply(book(snapBids), upBids)
	if !reflect.DeepEqual(gotAsks, book(asks)) || !reflect.DeepEqual(gotBids, book(bids)) {
		t.Fatalf("snapshot + update differs from the venue's book:\nasks %v\nwant %v\nbids %v\nwant %v\n(update asks %v bids %v)",
			gotAsks, book(asks), gotBids, book(bids), upAsks, upBids)
	}

	// Nothing changed since the second push: a snapshot now is that push's book, stamped with it.
	if _, _, ts, _ := ex.DepthFixed(sym, 1, nil, nil); ts != t2 {
		t.Fatalf("an unchanged book after the push at %d is stamped %d", t2, ts)
	}
}
