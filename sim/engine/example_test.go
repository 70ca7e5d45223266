package engine_test

import (
	"fmt"

	"tradedeck/fixed"
	"tradedeck/sim/engine"
)

// A book for a symbol with 2 price decimals and 4 quantity decimals: prices and quantities are
// scaled integers, fills come back at the makers' prices.
func Example() {
	const pd, qd = 2, 4
	px := func(s string) int64 { v, _ := fixed.ParseString(s, pd); return v }
	qty := func(s string) int64 { v, _ := fixed.ParseString(s, qd); return v }

	b := engine.New(pd, qd)
	var fills []engine.Fill
	_, fills = b.Submit(engine.Order{ID: 1, Owner: 1, Side: engine.Sell, Kind: engine.Limit,
		Price: px("65000.50"), Qty: qty("0.5"), Visible: qty("0.5")}, fills[:0])
	_, fills = b.Submit(engine.Order{ID: 2, Owner: 1, Side: engine.Sell, Kind: engine.Limit,
		Price: px("65001"), Qty: qty("2"), Visible: qty("0.25")}, fills[:0]) // iceberg
	res, fills := b.Submit(engine.Order{ID: 3, Owner: 2, Side: engine.Buy, Kind: engine.Market,
		Qty: qty("1")}, fills[:0])

	for _, f := range fills {
		fmt.Printf("maker %d sold %s at %s (done %v)\n", f.MakerID, fixed.Format(f.Qty, qd), fixed.Format(f.Price, pd), f.MakerDone)
	}
	fmt.Printf("filled %s, remaining %s\n", fixed.Format(res.Filled, qd), fixed.Format(res.Remaining, qd))
	for _, lv := range b.Depth(engine.Sell, 10, nil) {
		fmt.Printf("ask %s x %s shown\n", fixed.Format(lv.Price, pd), fixed.Format(lv.Qty, qd))
	}
	// Output:
	// maker 1 sold 0.5 at 65000.5 (done true)
	// maker 2 sold 0.5 at 65001 (done false)
	// filled 1, remaining 0
	// ask 65001 x 0.25 shown
}
