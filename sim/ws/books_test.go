package ws

import (
	"testing"

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
