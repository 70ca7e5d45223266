package report

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"tradedeck/algo"
	"tradedeck/trade"
)

// Order is one child order of an algo as the venue reported it: where and
// when it was placed and how it ended. A working order's report lists
// them (a chase's re-prices, a ladder's rungs, a TWAP's slices).
type Order struct {
	Placed time.Time `json:"placed"`         // the venue's time of its first report
	Ended  time.Time `json:"ended,omitzero"` // of its final state (zero: open at the end)
	Algo   algo.ID   `json:"algo"`
	Leg    string    `json:"leg"` // its leg's name (algo.Leg.String)
	// Attempt is its number on the leg (the client order id's last
	// digits; the id's prefix is the scratch database's, never the same).
	Attempt int             `json:"attempt"`
	Type    string          `json:"type"`
	Side    trade.Side      `json:"side"`
	Price   decimal.Decimal `json:"price"` // zero: MARKET
	Qty     decimal.Decimal `json:"qty"`
	Filled  decimal.Decimal `json:"filled"`
	Status  string          `json:"status"`
}

// ordersOf are an algo's orders, oldest first.
func ordersOf(orders []Order, id algo.ID) []Order {
	var out []Order
	for _, o := range orders {
		if o.Algo == id {
			out = append(out, o)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Placed.Before(out[j].Placed) })
	return out
}

func utcOrders(orders []Order) []Order {
	if orders == nil {
		return nil
	}
	out := make([]Order, len(orders))
	for i, o := range orders {
		o.Placed = o.Placed.UTC()
		if !o.Ended.IsZero() {
			o.Ended = o.Ended.UTC()
		}
		out[i] = o
	}
	return out
}

func writeOrders(b *strings.Builder, orders []Order) {
	if len(orders) == 0 {
		return
	}
	b.WriteString("  orders    placed        type       side  qty @ price  filled  end\n")
	for _, o := range orders {
		price := "market"
		if o.Price.IsPositive() {
			price = num(o.Price)
		}
		end := "open"
		if !o.Ended.IsZero() {
			end = o.Status + " " + clock(o.Ended)
		}
		fmt.Fprintf(b, "            %s  %-9s  %-4s  %s @ %s  %s  %s\n", clock(o.Placed), o.Type, o.Side, num(o.Qty), price, num(o.Filled), end)
	}
}
