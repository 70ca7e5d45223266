package algo

import (
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"tradedeck/trade"
)

// The working orders' part of the surface (issue 26): what a chase, a
// scale (ladder) and a TWAP are asked to do (Work), what their
// confirmation shows (WorkPreview) and what the Algos tab shows of them
// while they run (Progress).

// Work is what a working order buys or sells and how it works the book.
type Work struct {
	Side     trade.Side
	Quantity decimal.Decimal
	Reduce   bool // every child reduce-only (perpetuals): it closes, never opens
	Post     bool // POST_ONLY children (chase, scale)

	// chase
	Offset    int             // ticks behind the best price of its side (0: join the best)
	Threshold int             // re-price only when the best moved by more than this many ticks (0: any move)
	Leash     decimal.Decimal // the worst price it ever rests at; zero: the default (1 % from the arrival price), always shown resolved
	AtLeash   LeashPolicy     // LeashRest (default): rest at the leash; LeashCancel: cancel and end

	// scale
	From, To decimal.Decimal
	Count    int  // 2..100
	Skew     Skew // flat (zero value), linear or exponential

	// twap
	Over      time.Duration   // 1m..24h
	Slices    int             // 0: the default (one slice per 30 s, 2..1440)
	Jitter    decimal.Decimal // percent 0..50 of slice size and of slice time
	Bound     decimal.Decimal // "limit PRICE": the worst price a slice may trade at (zero: none)
	Outside   BoundPolicy     // BoundPause (default), BoundSkip, BoundStop
	SliceType SliceType       // SliceMarket (default), SliceBest (LIMIT at the best of its side, IOC)
	CatchUp   CatchUp         // after a stall or restart
}

// LeashPolicy is what a chase does when the best price is past its leash.
type LeashPolicy uint8

const (
	LeashRest   LeashPolicy = iota // rest at the leash price
	LeashCancel                    // cancel and end
)

// SkewKind is how a ladder's sizes change from From to To.
type SkewKind uint8

const (
	SkewFlat   SkewKind = iota // every rung the same size
	SkewLinear                 // sizes change linearly: the last rung is Factor x the first
	SkewExp                    // each rung is Factor x the previous
)

// Skew is a ladder's size skew; Factor < 1 shrinks toward To.
type Skew struct {
	Kind   SkewKind
	Factor decimal.Decimal
}

// BoundPolicy is what a TWAP does while the market is past its bound.
type BoundPolicy uint8

const (
	BoundPause BoundPolicy = iota // wait (the schedule's clock keeps running; CatchUp applies after)
	BoundSkip                     // drop the slice, reported
	BoundStop                     // end the TWAP
)

// SliceType is the order a TWAP slice is.
type SliceType uint8

const (
	SliceMarket SliceType = iota // MARKET
	SliceBest                    // LIMIT at the best price of its side, IOC
)

// CatchUpPolicy is what a TWAP does with slices it missed (a stall, a
// restart, a pause): never all of them at once.
type CatchUpPolicy uint8

const (
	CatchSpread  CatchUpPolicy = iota // the overdue quantity spread over the remaining slices
	CatchSkip                         // overdue slices dropped, reported
	CatchBounded                      // at most Max extra slices' worth per slice
)

// CatchUp is a TWAP's catch-up policy.
type CatchUp struct {
	Policy CatchUpPolicy
	Max    int // CatchBounded: extra slices' worth per slice (1..)
}

var (
	leashNames   = [...]string{"rest", "cancel"}
	skewNames    = [...]string{"flat", "linear", "exp"}
	boundNames   = [...]string{"pause", "skip", "stop"}
	sliceNames   = [...]string{"market", "best"}
	catchUpNames = [...]string{"spread", "skip", "bounded"}
)

func nameOf(names []string, i int) string {
	if i >= 0 && i < len(names) {
		return names[i]
	}
	return "unknown"
}

func (p LeashPolicy) String() string   { return nameOf(leashNames[:], int(p)) }
func (k SkewKind) String() string      { return nameOf(skewNames[:], int(k)) }
func (p BoundPolicy) String() string   { return nameOf(boundNames[:], int(p)) }
func (t SliceType) String() string     { return nameOf(sliceNames[:], int(t)) }
func (p CatchUpPolicy) String() string { return nameOf(catchUpNames[:], int(p)) }

func (c CatchUp) String() string {
	if c.Policy == CatchBounded {
		return fmt.Sprintf("%d", c.Max)
	}
	return c.Policy.String()
}

// WorkPreview is a working order's plan, shown in its confirmation.
type WorkPreview struct {
	Arrival  decimal.Decimal // mid when previewed
	Orders   []PlannedOrder  // scale: every rung, on the tick and lot grid, above min notional; chase: the first order; twap: the first slice
	Leash    decimal.Decimal // chase: resolved
	Slices   int             // twap: resolved
	SliceQty decimal.Decimal // twap: nominal slice size
	Interval time.Duration   // twap: nominal time between slices
	Notional decimal.Decimal // total at the planned prices (twap: at the arrival price)
}

// PlannedOrder is one order of a plan.
type PlannedOrder struct {
	Price, Quantity decimal.Decimal
	Type            trade.Type
	ReduceOnly      bool
}

// Progress is a working order's progress (the Algos tab, `algo list`).
type Progress struct {
	Total, Filled                     decimal.Decimal
	AvgPrice                          decimal.Decimal // of what filled
	Arrival                           decimal.Decimal
	Peg                               decimal.Decimal // chase: the open order's price (zero: none open)
	Leash                             decimal.Decimal // chase
	LeashDistance                     decimal.Decimal // chase: from the best of its side to the leash (positive: room left)
	Reprices                          int             // chase
	Orders, OrdersOpen, OrdersFilled  int             // scale; open: what the venue acknowledged and holds open
	OrdersInFlight                    int             // sent (or journaled to be sent) with no answer from the venue yet
	Slices, SlicesDone, SlicesSkipped int             // twap
	NextSlice, Ends                   time.Time       // twap
	Paused                            bool
	PausedWhy                         string
}

// Limits of the working orders' specs.
const (
	MinScaleCount = 2
	MaxScaleCount = 100
	MinTWAP       = time.Minute
	MaxTWAP       = 24 * time.Hour
	MinSlices     = 2
	MaxSlices     = 1440
	// DefaultSliceEvery is the nominal time between a TWAP's slices when
	// the spec does not say how many.
	DefaultSliceEvery = 30 * time.Second
	// MinSliceEvery: slices closer than this would spend the rate budget
	// protective orders may need.
	MinSliceEvery = time.Second
	// MaxSkewRatio bounds a ladder's largest rung against its smallest.
	MaxSkewRatio = 1000
	maxTicks     = 100_000
)

// SliceCount is a TWAP's number of slices: the spec's, else one per
// DefaultSliceEvery within MinSlices..MaxSlices.
func (w Work) SliceCount() int {
	if w.Slices > 0 {
		return w.Slices
	}
	return min(max(int(w.Over/DefaultSliceEvery), MinSlices), MaxSlices)
}

// workString is the canonical grammar of a working order (parses back to
// the same Spec).
func (s Spec) workString() string {
	w := s.Work
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s %s %s", s.Kind, s.Symbol, strings.ToLower(string(w.Side)), w.Quantity)
	switch s.Kind {
	case KindChase:
		if w.Offset != 0 {
			fmt.Fprintf(&b, " offset %d", w.Offset)
		}
		if w.Threshold != 0 {
			fmt.Fprintf(&b, " threshold %d", w.Threshold)
		}
		if w.Leash.IsPositive() {
			fmt.Fprintf(&b, " leash %s", w.Leash)
		}
		if w.AtLeash != LeashRest {
			fmt.Fprintf(&b, " at-leash %s", w.AtLeash)
		}
	case KindScale:
		fmt.Fprintf(&b, " from %s to %s count %d", w.From, w.To, w.Count)
		if w.Skew.Kind != SkewFlat {
			fmt.Fprintf(&b, " skew %s %s", w.Skew.Kind, w.Skew.Factor)
		}
	case KindTWAP:
		fmt.Fprintf(&b, " over %s", shortDuration(w.Over))
		if w.Slices > 0 {
			fmt.Fprintf(&b, " slices %d", w.Slices)
		}
		if w.Jitter.IsPositive() {
			fmt.Fprintf(&b, " jitter %s%%", w.Jitter)
		}
		if w.Bound.IsPositive() {
			fmt.Fprintf(&b, " limit %s", w.Bound)
		}
		if w.Outside != BoundPause {
			fmt.Fprintf(&b, " outside %s", w.Outside)
		}
		if w.SliceType != SliceMarket {
			fmt.Fprintf(&b, " slice %s", w.SliceType)
		}
		if w.CatchUp.Policy != CatchSpread {
			fmt.Fprintf(&b, " catchup %s", w.CatchUp)
		}
	}
	if w.Post && s.Kind != KindTWAP {
		b.WriteString(" post")
	}
	if w.Reduce {
		b.WriteString(" reduce")
	}
	return b.String()
}

// shortDuration prints 10m rather than 10m0s (time.ParseDuration reads
// both).
func shortDuration(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}

// checkWork refuses what no market makes possible for a working order.
func (s Spec) checkWork(bad func(string, ...any) error) error {
	w := s.Work
	if w.Side != trade.Buy && w.Side != trade.Sell {
		return bad("side must be buy or sell")
	}
	if !w.Quantity.IsPositive() {
		return bad("quantity %s is not positive", w.Quantity)
	}
	if w.Reduce && !trade.IsPerp(s.Symbol) {
		return bad("reduce-only is a perpetual's: a spot order cannot open a position anyway")
	}
	switch s.Kind {
	case KindChase:
		if w.Offset < 0 || w.Offset > maxTicks || w.Threshold < 0 || w.Threshold > maxTicks {
			return bad("offset %d and threshold %d must be 0..%d ticks", w.Offset, w.Threshold, maxTicks)
		}
		if w.Leash.IsNegative() {
			return bad("leash %s is negative", w.Leash)
		}
		if w.AtLeash > LeashCancel {
			return bad("at-leash must be rest or cancel")
		}
	case KindScale:
		return s.checkScale(bad)
	case KindTWAP:
		return s.checkTWAP(bad)
	}
	return nil
}

func (s Spec) checkScale(bad func(string, ...any) error) error {
	w := s.Work
	if !w.From.IsPositive() || !w.To.IsPositive() {
		return bad("from %s and to %s must be positive prices", w.From, w.To)
	}
	if w.From.Equal(w.To) {
		return bad("from and to are the same price %s: a ladder needs a range", w.From)
	}
	if w.Count < MinScaleCount || w.Count > MaxScaleCount {
		return bad("count %d must be %d..%d", w.Count, MinScaleCount, MaxScaleCount)
	}
	switch w.Skew.Kind {
	case SkewFlat:
		if !w.Skew.Factor.IsZero() {
			return bad("a flat ladder takes no factor")
		}
	case SkewLinear, SkewExp:
		if !w.Skew.Factor.IsPositive() {
			return bad("skew factor %s must be positive", w.Skew.Factor)
		}
		if r := skewRatio(w.Skew, w.Count); r > MaxSkewRatio || math.IsNaN(r) {
			return bad("skew %s %s over %d rungs makes the largest rung more than %dx the smallest", w.Skew.Kind, w.Skew.Factor, w.Count, MaxSkewRatio)
		}
	default:
		return bad("skew must be flat, linear or exp")
	}
	return nil
}

// skewRatio is the largest rung over the smallest.
func skewRatio(k Skew, count int) float64 {
	f := k.Factor.InexactFloat64()
	if k.Kind == SkewExp {
		f = math.Pow(f, float64(count-1))
	}
	if f < 1 {
		f = 1 / f
	}
	return f
}

func (s Spec) checkTWAP(bad func(string, ...any) error) error {
	w := s.Work
	if w.Over < MinTWAP || w.Over > MaxTWAP {
		return bad("duration %s must be %s..%s", shortDuration(w.Over), shortDuration(MinTWAP), shortDuration(MaxTWAP))
	}
	if w.Slices != 0 && (w.Slices < MinSlices || w.Slices > MaxSlices) {
		return bad("slices %d must be %d..%d", w.Slices, MinSlices, MaxSlices)
	}
	if every := w.Over / time.Duration(w.SliceCount()); every < MinSliceEvery {
		return bad("%d slices over %s is a slice every %s: at most one a second", w.SliceCount(), shortDuration(w.Over), every)
	}
	if w.Jitter.IsNegative() || w.Jitter.GreaterThan(decimal.NewFromInt(50)) {
		return bad("jitter %s%% must be 0..50%%", w.Jitter)
	}
	if w.Bound.IsNegative() {
		return bad("limit %s is negative", w.Bound)
	}
	if w.Outside > BoundStop || w.SliceType > SliceBest || w.CatchUp.Policy > CatchBounded {
		return bad("unknown outside, slice or catchup policy")
	}
	if w.CatchUp.Policy == CatchBounded && (w.CatchUp.Max < 1 || w.CatchUp.Max > MaxSlices) {
		return bad("catchup %d must be 1..%d extra slices", w.CatchUp.Max, MaxSlices)
	}
	if w.Post {
		return bad("a TWAP slice takes liquidity: post is a chase's or a ladder's")
	}
	return nil
}
