package report

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/shopspring/decimal"
)

// WriteJSON writes the report as one indented JSON object (numbers as
// strings, exact; times RFC 3339 UTC).
func (r Report) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r.utc())
}

// utc is the report with every time in UTC, so JSON does not depend on
// the machine's zone.
func (r Report) utc() Report {
	r.From, r.To = r.From.UTC(), r.To.UTC()
	runs := make([]AlgoRun, len(r.Algos))
	for i, a := range r.Algos {
		a.Added, a.Ended = a.Added.UTC(), a.Ended.UTC()
		if a.Fired != nil {
			f := *a.Fired
			f.Time = f.Time.UTC()
			a.Fired = &f
		}
		fills := make([]Fill, len(a.Fills))
		for j, f := range a.Fills {
			f.Time = f.Time.UTC()
			fills[j] = f
		}
		a.Fills = fills
		a.Orders = utcOrders(a.Orders)
		runs[i] = a
	}
	r.Algos = runs
	return r
}

// WriteText writes the report for a reader: a block per algo, its sides,
// then its fills.
func (r Report) WriteText(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "dry run %s to %s UTC (%s of market data)\n", stamp(r.From), clock(r.To), r.To.Sub(r.From).Round(time.Millisecond))
	for _, f := range r.Opening {
		fmt.Fprintf(&b, "opened first (no algo): %s %s %s @ %s at %s, fee %s %s\n", f.Side, f.Symbol, num(f.Qty), num(f.Price), clock(f.Time), num(f.Fee), f.FeeAsset)
	}
	if len(r.Algos) == 0 {
		b.WriteString("no algo ran\n")
	}
	for _, a := range r.Algos {
		writeRun(&b, a)
	}
	fmt.Fprintf(&b, "\nfees in all: %s\n", feeText(r.Fees))
	_, err := io.WriteString(w, b.String())
	return err
}

func writeRun(b *strings.Builder, a AlgoRun) {
	fmt.Fprintf(b, "\n#%d %s\n", a.ID, a.Line)
	state := a.State
	if a.Reason != "" {
		state += ": " + a.Reason
	}
	fmt.Fprintf(b, "  state     %s\n", state)
	fmt.Fprintf(b, "  life      %s to %s (%s)\n", clock(a.Added), clock(a.Ended), a.Ended.Sub(a.Added).Round(time.Millisecond))
	fmt.Fprintf(b, "  arrival   %s (mid when added)\n", num(a.Arrival))
	if a.Prints > 0 {
		fmt.Fprintf(b, "  VWAP      %s (market, %d prints, volume %s, over its life)\n", num(a.VWAP), a.Prints, num(a.Volume))
	} else {
		b.WriteString("  VWAP      none (no market print over its life)\n")
	}
	if f := a.Fired; f != nil {
		fmt.Fprintf(b, "  fired     %s at %s\n", f.Why, clock(f.Time))
	}
	for _, s := range a.Sides {
		writeSide(b, s)
	}
	defer writeOrders(b, a.Orders)
	if len(a.Fills) == 0 {
		b.WriteString("  fills     none\n")
		return
	}
	b.WriteString("  fills     time          leg    side  qty @ price  fee\n")
	for _, f := range a.Fills {
		liq := "taker"
		if f.Maker {
			liq = "maker"
		}
		fmt.Fprintf(b, "            %s  %-5s  %-4s  %s @ %s  %s %s %s\n", clock(f.Time), f.Leg, f.Side, num(f.Qty), num(f.Price), num(f.Fee), f.FeeAsset, liq)
	}
}

func writeSide(b *strings.Builder, s SideRun) {
	fmt.Fprintf(b, "  %-5s %-4s filled %s of %s (%s", s.Role, s.Side, num(s.Filled), num(s.Total), pct(s.Filled, s.Total))
	if s.Whole && !s.AtAdd.Equal(s.Total) {
		fmt.Fprintf(b, "; the whole position, %s when added", num(s.AtAdd))
	}
	b.WriteString(")")
	if s.Filled.IsZero() {
		b.WriteString("\n")
		return
	}
	fmt.Fprintf(b, ", avg %s\n", num(s.AvgPrice))
	fmt.Fprintf(b, "            slippage vs arrival %s, vs VWAP %s; fees %s\n", slipText(s.VsArrival), slipText(s.VsVWAP), feeText(s.Fees))
}

func slipText(s Slippage) string {
	if !s.Ref.IsPositive() {
		return "n/a"
	}
	return fmt.Sprintf("%s (%s bps)", signed(s.Price), signed(s.Bps))
}

func feeText(fees []AssetFees) string {
	if len(fees) == 0 {
		return "none"
	}
	parts := make([]string, len(fees))
	for i, f := range fees {
		parts[i] = num(f.Fee) + " " + f.Asset
	}
	return strings.Join(parts, ", ")
}

func pct(part, whole decimal.Decimal) string {
	if !whole.IsPositive() {
		return "-"
	}
	return part.Mul(decimal.NewFromInt(100)).DivRound(whole, 1).String() + "%"
}

// num prints a decimal exactly, without trailing zeros.
func num(d decimal.Decimal) string { return d.String() }

func signed(d decimal.Decimal) string {
	if d.IsPositive() {
		return "+" + d.String()
	}
	return d.String()
}

func stamp(t time.Time) string { return t.UTC().Format("2006-01-02 15:04:05.000") }
func clock(t time.Time) string { return t.UTC().Format("15:04:05.000") }

// MarshalJSON writes a fill with its leg by name.
func (f Fill) MarshalJSON() ([]byte, error) {
	leg := ""
	if f.Algo != 0 {
		leg = f.Leg.String()
	}
	return json.Marshal(struct {
		Time     time.Time       `json:"time"`
		Algo     int64           `json:"algo,omitempty"`
		Symbol   string          `json:"symbol"`
		Leg      string          `json:"leg,omitempty"`
		Side     string          `json:"side"`
		Qty      decimal.Decimal `json:"qty"`
		Price    decimal.Decimal `json:"price"`
		Fee      decimal.Decimal `json:"fee"`
		FeeAsset string          `json:"fee_asset"`
		Maker    bool            `json:"maker"`
	}{f.Time.UTC(), int64(f.Algo), f.Symbol, leg, string(f.Side), f.Qty, f.Price, f.Fee, f.FeeAsset, f.Maker})
}
