// Package report builds the dry-run report of algos run on paper (a
// rehearsal on a recording, `tradedeck replay --rehearse`, or a paper
// account): every fill, the average price of each side against the
// arrival price (the market when the algo was added) and against the
// market's VWAP over the algo's life, slippage in price and basis points,
// fees, and how much of its total each side filled.
//
// Build takes plain values (an engine's Snapshot, the fills the venue
// reported, the market's prints), so any host and any screen can make
// one; it holds no state and reads no clock: the same input gives the
// same report, byte for byte.
package report

import (
	"sort"
	"time"

	"github.com/shopspring/decimal"

	"tradedeck/algo"
	"tradedeck/trade"
)

// Fill is one execution of an algo's child order, as the venue reported
// it.
type Fill struct {
	Time     time.Time
	Algo     algo.ID // 0: no algo's (a position opened first)
	Symbol   string
	Leg      algo.Leg
	Side     trade.Side
	Qty      decimal.Decimal
	Price    decimal.Decimal
	Fee      decimal.Decimal
	FeeAsset string
	Maker    bool
}

// Print is one public trade of the market.
type Print struct {
	Time  time.Time
	Price decimal.Decimal
	Qty   decimal.Decimal
}

// Start is what the host knew when it added an algo.
type Start struct {
	Algo algo.ID
	At   time.Time
	// Arrival is the market then: the middle of the best bid and ask
	// (the best price of one side when the other was empty).
	Arrival decimal.Decimal
	// Exit is the size its exits were to close when it was added (the
	// confirmation's size; a bracket's comes from its entry's fills).
	Exit decimal.Decimal
}

// Input is everything a report is built from.
type Input struct {
	Algos  []algo.Algo // the engine's Snapshot (only those with a Start are reported)
	Starts []Start
	Fills  []Fill
	// Orders are the child orders the venue reported (a working order's
	// are listed in its report).
	Orders []Order
	// Opening are the fills of the positions a rehearsal opened before
	// adding the algos (not part of any algo).
	Opening []Fill
	Tape    map[string][]Print // the market's prints by symbol, oldest first
	From    time.Time          // the span of market data the algos saw
	To      time.Time
}

// Report is the dry run's result.
type Report struct {
	From    time.Time   `json:"from"`
	To      time.Time   `json:"to"`
	Opening []Fill      `json:"opening,omitempty"`
	Algos   []AlgoRun   `json:"algos"`
	Fees    []AssetFees `json:"fees"` // every algo's fees, by asset
}

// AlgoRun is one algo's part of the report.
type AlgoRun struct {
	ID     algo.ID `json:"id"`
	Kind   string  `json:"kind"`
	Symbol string  `json:"symbol"`
	Line   string  `json:"line"` // its grammar line, source resolved
	State  string  `json:"state"`
	Reason string  `json:"reason,omitempty"`
	// Added and Ended bound its life (Ended: its final state's time, or
	// the end of the data while it was still working).
	Added   time.Time       `json:"added"`
	Ended   time.Time       `json:"ended"`
	Arrival decimal.Decimal `json:"arrival"`
	// VWAP is the market's volume-weighted price over [Added, Ended]
	// (zero: no print), from Prints prints of Volume.
	VWAP   decimal.Decimal `json:"vwap"`
	Prints int             `json:"prints"`
	Volume decimal.Decimal `json:"volume"`
	Fired  *Firing         `json:"fired,omitempty"`
	Sides  []SideRun       `json:"sides"`
	Fills  []Fill          `json:"fills"`
	// Orders are a working order's child orders (chase, scale, twap).
	Orders []Order `json:"orders,omitempty"`
}

// Firing is why the algo fired.
type Firing struct {
	Time   time.Time       `json:"time"`
	Leg    string          `json:"leg"`
	Level  decimal.Decimal `json:"level"`
	Price  decimal.Decimal `json:"price"`
	Source string          `json:"source"`
	Why    string          `json:"why"`
}

// SideRun is what one side of an algo traded: a bracket's entry, or the
// exits (stop, take-profit and any excess fix together).
type SideRun struct {
	Role   string          `json:"role"` // entry, exit, or work (a working order)
	Side   trade.Side      `json:"side"`
	Filled decimal.Decimal `json:"filled"`
	Total  decimal.Decimal `json:"total"`
	// Whole: the exits close the whole position, whatever it is when they
	// fire; Total is then what they closed once done, and AtAdd the
	// position when the algo was added.
	Whole bool            `json:"whole_position,omitempty"`
	AtAdd decimal.Decimal `json:"position_when_added,omitempty"`
	// AvgPrice is the quantity-weighted price of the fills (zero: none).
	AvgPrice decimal.Decimal `json:"avg_price"`
	// Slippage is the cost against a reference in price per unit and in
	// basis points of the reference: positive when the fills were worse
	// (a BUY above it, a SELL below it).
	VsArrival Slippage    `json:"vs_arrival"`
	VsVWAP    Slippage    `json:"vs_vwap"`
	Fees      []AssetFees `json:"fees"`
}

// Slippage against one reference price.
type Slippage struct {
	Ref   decimal.Decimal `json:"ref"`
	Price decimal.Decimal `json:"price"`
	Bps   decimal.Decimal `json:"bps"`
}

// AssetFees is a sum of fees in one asset.
type AssetFees struct {
	Asset string          `json:"asset"`
	Fee   decimal.Decimal `json:"fee"`
}

// Build makes the report of the algos that have a Start, in id order.
func Build(in Input) Report {
	r := Report{From: in.From, To: in.To, Opening: in.Opening}
	starts := map[algo.ID]Start{}
	for _, s := range in.Starts {
		starts[s.Algo] = s
	}
	algos := append([]algo.Algo(nil), in.Algos...)
	sort.Slice(algos, func(i, j int) bool { return algos[i].ID < algos[j].ID })
	var all []Fill
	for _, a := range algos {
		st, ok := starts[a.ID]
		if !ok {
			continue
		}
		fills := fillsOf(in.Fills, a.ID)
		all = append(all, fills...)
		run := buildRun(a, st, fills, in.Tape[a.Spec.Symbol], in.To)
		if a.Spec.Kind.Working() {
			run.Orders = ordersOf(in.Orders, a.ID)
		}
		r.Algos = append(r.Algos, run)
	}
	r.Fees = feesOf(all)
	return r
}

func fillsOf(fills []Fill, id algo.ID) []Fill {
	var out []Fill
	for _, f := range fills {
		if f.Algo == id {
			out = append(out, f)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Time.Before(out[j].Time) })
	return out
}

func buildRun(a algo.Algo, st Start, fills []Fill, tape []Print, to time.Time) AlgoRun {
	run := AlgoRun{ID: a.ID, Kind: a.Spec.Label(), Symbol: a.Spec.Symbol, Line: a.Spec.String(), State: a.State.String(),
		Reason: a.Reason, Added: st.At, Ended: to, Arrival: st.Arrival, Fills: fills}
	if a.State.Final() && a.Updated.After(st.At) && a.Updated.Before(to) {
		run.Ended = a.Updated
	}
	run.VWAP, run.Prints, run.Volume = vwap(tape, run.Added, run.Ended)
	if f := a.Fired; f != nil {
		run.Fired = &Firing{Time: f.At, Leg: f.Leg.String(), Level: f.Level, Price: f.Price, Source: f.Source.String(), Why: f.Why}
	}
	var entry, exit []Fill
	for _, f := range fills {
		if f.Leg == algo.LegEntry {
			entry = append(entry, f)
		} else {
			exit = append(exit, f)
		}
	}
	switch {
	case a.Spec.Kind.Working():
		run.Sides = append(run.Sides, side("work", a.Side, st.Exit, exit, run))
	case a.Spec.Kind == algo.KindBracket:
		run.Sides = append(run.Sides, side("entry", a.Spec.Entry.Side, a.Spec.Entry.Quantity, entry, run))
		run.Sides = append(run.Sides, side("exit", a.Side, sumQty(entry), exit, run))
	default:
		sr := side("exit", a.Side, st.Exit, exit, run)
		if a.Spec.Size.Whole() {
			// The whole position is what it closes when it fires, which may
			// have grown or shrunk since it was added.
			sr.Whole, sr.AtAdd = true, st.Exit
			if a.State == algo.StateDone && sr.Filled.IsPositive() {
				sr.Total = sr.Filled
			}
		}
		run.Sides = append(run.Sides, sr)
	}
	return run
}

// side sums one role's fills against the run's references.
func side(role string, s trade.Side, total decimal.Decimal, fills []Fill, run AlgoRun) SideRun {
	sr := SideRun{Role: role, Side: s, Total: total, Filled: sumQty(fills), Fees: feesOf(fills)}
	if sr.Filled.IsZero() {
		return sr
	}
	var notional decimal.Decimal
	for _, f := range fills {
		notional = notional.Add(f.Price.Mul(f.Qty))
	}
	sr.AvgPrice = notional.DivRound(sr.Filled, priceDigits)
	sr.VsArrival = slippage(s, sr.AvgPrice, run.Arrival)
	sr.VsVWAP = slippage(s, sr.AvgPrice, run.VWAP)
	return sr
}

// slippage is the cost of avg against ref for side s (zero ref: none).
func slippage(s trade.Side, avg, ref decimal.Decimal) Slippage {
	if !ref.IsPositive() {
		return Slippage{}
	}
	cost := avg.Sub(ref)
	if s == trade.Sell {
		cost = ref.Sub(avg)
	}
	return Slippage{Ref: ref, Price: cost, Bps: cost.Mul(decimal.NewFromInt(10_000)).DivRound(ref, 2)}
}

// vwap is the volume-weighted price of the prints in [from, to].
func vwap(tape []Print, from, to time.Time) (decimal.Decimal, int, decimal.Decimal) {
	var notional, vol decimal.Decimal
	n := 0
	for _, p := range tape {
		if p.Time.Before(from) || p.Time.After(to) {
			continue
		}
		notional = notional.Add(p.Price.Mul(p.Qty))
		vol = vol.Add(p.Qty)
		n++
	}
	if vol.IsZero() {
		return decimal.Zero, 0, decimal.Zero
	}
	return notional.DivRound(vol, priceDigits), n, vol
}

// priceDigits rounds computed prices (averages, VWAP): far below any tick.
const priceDigits = 8

func sumQty(fills []Fill) decimal.Decimal {
	var q decimal.Decimal
	for _, f := range fills {
		q = q.Add(f.Qty)
	}
	return q
}

// feesOf sums fees by asset, assets in name order.
func feesOf(fills []Fill) []AssetFees {
	sums := map[string]decimal.Decimal{}
	for _, f := range fills {
		sums[f.FeeAsset] = sums[f.FeeAsset].Add(f.Fee)
	}
	out := make([]AssetFees, 0, len(sums))
	for a, fee := range sums {
		out = append(out, AssetFees{Asset: a, Fee: fee})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Asset < out[j].Asset })
	return out
}
