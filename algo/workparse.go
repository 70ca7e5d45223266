package algo

import (
	"strconv"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"tradedeck/trade"
)

// The grammar of the working orders (Grammar lists it):
//
//	chase SYMBOL buy|sell QTY [offset TICKS] [threshold TICKS] [leash PRICE] [at-leash rest|cancel] [post] [reduce]
//	scale SYMBOL buy|sell QTY from PRICE to PRICE count N [skew flat|linear FACTOR|exp FACTOR] [post] [reduce]
//	twap SYMBOL buy|sell QTY over DURATION [slices N] [jitter PERCENT%] [limit PRICE] [outside pause|skip|stop] [slice market|best] [catchup spread|skip|N] [reduce]

// workOptions are each working kind's keyword options.
var workOptions = map[Kind][]string{
	KindChase: {"offset", "threshold", "leash", "at-leash", "post", "reduce"},
	KindScale: {"skew", "post", "reduce"},
	KindTWAP:  {"slices", "jitter", "limit", "outside", "slice", "catchup", "reduce"},
}

// work reads a working order: SYMBOL buy|sell QTY, the kind's positional
// words, then its options in any order.
func (p *parser) work(k Kind) (Spec, error) {
	s := Spec{Kind: k}
	w := &s.Work
	var err error
	if s.Symbol, err = p.symbol(); err != nil {
		return s, err
	}
	if w.Side, err = p.side(); err != nil {
		return s, err
	}
	if w.Quantity, err = p.quantity("QTY (a positive quantity)"); err != nil {
		return s, err
	}
	switch k {
	case KindScale:
		if err = p.keyword("from"); err == nil {
			w.From, err = p.price("from PRICE")
		}
		if err == nil {
			err = p.keyword("to")
		}
		if err == nil {
			w.To, err = p.price("to PRICE")
		}
		if err == nil {
			err = p.keyword("count")
		}
		if err == nil {
			w.Count, err = p.integer("count N (2..100)", MinScaleCount)
		}
	case KindTWAP:
		if err = p.keyword("over"); err == nil {
			w.Over, err = p.duration()
		}
	}
	if err != nil {
		return s, err
	}
	return s, p.workOptions(k, w)
}

func (p *parser) workOptions(k Kind, w *Work) error {
	allowed := workOptions[k]
	for p.i < len(p.words) {
		word := strings.ToLower(p.next())
		if !contains(allowed, word) {
			return p.fail("one of: " + strings.Join(allowed, ", "))
		}
		var err error
		switch word {
		case "offset":
			w.Offset, err = p.integer("offset TICKS (0 or more)", 0)
		case "threshold":
			w.Threshold, err = p.integer("threshold TICKS (0 or more)", 0)
		case "leash":
			w.Leash, err = p.price("leash PRICE")
		case "at-leash":
			w.AtLeash, err = pick(p, "rest or cancel", map[string]LeashPolicy{"rest": LeashRest, "cancel": LeashCancel})
		case "post":
			w.Post = true
		case "reduce":
			w.Reduce = true
		case "skew":
			err = p.skew(w)
		case "slices":
			w.Slices, err = p.integer("slices N (2..1440)", MinSlices)
		case "jitter":
			w.Jitter, err = p.percent()
		case "limit":
			w.Bound, err = p.price("limit PRICE")
		case "outside":
			w.Outside, err = pick(p, "pause, skip or stop", map[string]BoundPolicy{"pause": BoundPause, "skip": BoundSkip, "stop": BoundStop})
		case "slice":
			w.SliceType, err = pick(p, "market or best", map[string]SliceType{"market": SliceMarket, "best": SliceBest})
		case "catchup":
			err = p.catchUp(w)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

func (p *parser) side() (trade.Side, error) {
	switch strings.ToLower(p.next()) {
	case "buy":
		return trade.Buy, nil
	case "sell":
		return trade.Sell, nil
	}
	return "", p.fail("buy or sell")
}

func (p *parser) quantity(what string) (decimal.Decimal, error) {
	q, err := number(p.next())
	if err != nil || !q.IsPositive() {
		return decimal.Zero, p.fail(what)
	}
	return q, nil
}

func (p *parser) keyword(k string) error {
	if !strings.EqualFold(p.next(), k) {
		return p.fail(k)
	}
	return nil
}

func (p *parser) integer(what string, least int) (int, error) {
	n, err := strconv.Atoi(p.next())
	if err != nil || n < least {
		return 0, p.fail(what)
	}
	return n, nil
}

func (p *parser) duration() (time.Duration, error) {
	d, err := time.ParseDuration(p.next())
	if err != nil || d <= 0 {
		return 0, p.fail("DURATION like 10m or 2h30m")
	}
	return d, nil
}

func (p *parser) percent() (decimal.Decimal, error) {
	v, err := number(strings.TrimSuffix(p.next(), "%"))
	if err != nil || v.IsNegative() {
		return decimal.Zero, p.fail("PERCENT% (like 20%)")
	}
	return v, nil
}

func (p *parser) skew(w *Work) error {
	k, err := pick(p, "flat, linear FACTOR or exp FACTOR", map[string]SkewKind{"flat": SkewFlat, "linear": SkewLinear, "exp": SkewExp})
	if err != nil {
		return err
	}
	w.Skew = Skew{Kind: k}
	if k != SkewFlat {
		w.Skew.Factor, err = p.price("FACTOR (a positive number: 2 doubles toward TO, 0.5 halves)")
	}
	return err
}

func (p *parser) catchUp(w *Work) error {
	word := strings.ToLower(p.next())
	switch word {
	case "spread":
		w.CatchUp = CatchUp{Policy: CatchSpread}
	case "skip":
		w.CatchUp = CatchUp{Policy: CatchSkip}
	default:
		n, err := strconv.Atoi(word)
		if err != nil || n < 1 {
			return p.fail("spread, skip or N (at most N extra slices' worth per slice)")
		}
		w.CatchUp = CatchUp{Policy: CatchBounded, Max: n}
	}
	return nil
}

// pick reads one word of a closed set.
func pick[T any](p *parser, want string, set map[string]T) (T, error) {
	v, ok := set[strings.ToLower(p.next())]
	if !ok {
		var zero T
		return zero, p.fail(want)
	}
	return v, nil
}

// workNextWords is Complete's list for the working kinds: done are the
// words after the symbol (the last one excluded), prev the word just
// before the one completed.
func workNextWords(k Kind, done []string, prev string) []string {
	switch prev {
	case "offset", "threshold":
		return []string{"TICKS"}
	case "leash", "limit", "from", "to":
		return []string{"PRICE"}
	case "at-leash":
		return []string{"cancel", "rest"}
	case "count", "slices":
		return []string{"N"}
	case "skew":
		return []string{"exp", "flat", "linear"}
	case "linear", "exp":
		return []string{"FACTOR"}
	case "jitter":
		return []string{"PERCENT%"}
	case "outside":
		return []string{"pause", "skip", "stop"}
	case "slice":
		return []string{"best", "market"}
	case "catchup":
		return []string{"N", "skip", "spread"}
	case "over":
		return []string{"DURATION"}
	}
	switch len(done) {
	case 0:
		return []string{"buy", "sell"}
	case 1:
		return []string{"QTY"}
	}
	positional := map[Kind][]string{KindScale: {"from", "", "to", "", "count", ""}, KindTWAP: {"over", ""}}[k]
	if i := len(done) - 2; i < len(positional) {
		return []string{positional[i]}
	}
	return without(workOptions[k], done)
}

// workKind maps a grammar word to a working kind (0: not one).
func workKind(word string) Kind {
	switch word {
	case "chase":
		return KindChase
	case "scale", "ladder":
		return KindScale
	case "twap":
		return KindTWAP
	}
	return 0
}
