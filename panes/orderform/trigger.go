package orderform

// The protective kinds in the order form (issue 25): a kind row above the
// side chooses a plain order, a bracket (the order as entered, with a
// take-profit and a stop attached), or a stop, stop-limit, take-profit,
// OCO or trailing stop on the position. Their rows: trigger, take-profit
// and stop prices, a stop-limit's limit price and post-trigger policy,
// trailing distance or percentage and activation, size, and the price
// source with its default shown. The form checks what it can (algo.Spec's
// Check); the engine's Preview in the confirmation says the rest (side,
// size, distance, already through).

import (
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"tradedeck/algo"
	"tradedeck/panes/common"
	"tradedeck/trade"
)

// Kind is what the form makes.
type Kind uint8

const (
	KindOrder   Kind = iota // a plain order
	KindBracket             // the order with a take-profit and a stop attached
	KindStop                // stop-market, or stop-limit with a limit price
	KindTP
	KindOCO
	KindTrail
	KindChase // the working kinds (working.go): continued on the ':' line
	KindScale
	KindTWAP
)

var kindNames = [...]string{"order", "bracket", "stop", "tp", "oco", "trail", "chase", "scale", "twap"}

func (k Kind) String() string { return kindNames[k] }

// algo reports the protective kinds that make no order of their own.
func (k Kind) protective() bool { return k >= KindStop && k <= KindTrail }

// makesOrder reports the kinds whose rows are an order checked against
// the rule and the account (a plain order, a bracket's entry).
func (k Kind) makesOrder() bool { return k == KindOrder || k == KindBracket }

// sources are the source row's choices; default is resolved to the exit
// side's best price by the engine, and the row says which.
var sources = []algo.Source{algo.SourceDefault, algo.SourceLast, algo.SourceBid, algo.SourceAsk, algo.SourceMid, algo.SourceMark}

// kindRows are a protective kind's rows after the kind row.
func (f *Form) kindRows() []row {
	switch f.kind {
	case KindStop:
		rs := []row{rowTrigger, rowSize, rowLimit}
		if f.text(rowLimit) != "" {
			rs = append(rs, rowAfter)
		}
		return append(rs, rowSource)
	case KindTP:
		return []row{rowTrigger, rowSize, rowTPMarket, rowSource}
	case KindOCO:
		return []row{rowTPPrice, rowSLPrice, rowSize, rowSource}
	case KindTrail:
		return []row{rowTrail, rowSize, rowActivation, rowSource}
	}
	return nil
}

// exitSide is the side of the exits: a bracket's closes its entry; the
// other kinds close the position (spot: sell the free balance).
func (f *Form) exitSide() trade.Side {
	if f.kind == KindBracket {
		return f.side.Opposite()
	}
	if trade.IsPerp(f.symbol) && f.position().IsNegative() {
		return trade.Buy
	}
	return trade.Sell
}

// position is the symbol's signed perpetual position, or the free base
// balance of a spot symbol.
func (f *Form) position() decimal.Decimal {
	a := f.Store.Account
	if a == nil {
		return decimal.Zero
	}
	if trade.IsPerp(f.symbol) {
		for _, p := range a.Positions {
			if p.Symbol == f.symbol {
				return p.Holding
			}
		}
		return decimal.Zero
	}
	return f.env.Funds.BaseAvail
}

// sourceText is the source row: the choice, and what default means here.
func (f *Form) sourceText() string {
	s := sources[f.source]
	if s != algo.SourceDefault {
		return s.String()
	}
	side := "bid"
	if f.exitSide() == trade.Buy {
		side = "ask"
	}
	return "default: " + side + " (the exit side's best price)"
}

// buildSpec reads the protective rows into a spec; parse errors go to
// parseErr like the order's.
func (f *Form) buildSpec() algo.Spec {
	num := func(r row) decimal.Decimal {
		s := f.text(r)
		if s == "" {
			return decimal.Zero
		}
		v, err := decimal.NewFromString(strings.TrimSuffix(s, "%"))
		if err != nil {
			f.parseErr[r] = r.label() + ": " + s + " is not a number"
		}
		return v
	}
	s := algo.Spec{Symbol: f.symbol, Source: sources[f.source]}
	if z := f.text(rowSize); strings.HasSuffix(z, "%") {
		s.Size.Percent = num(rowSize)
	} else {
		s.Size.Qty = num(rowSize)
	}
	switch f.kind {
	case KindBracket:
		s.Kind = algo.KindBracket
		s.Size = algo.Size{}
		s.Entry = algo.Entry{Side: f.order.Side, Type: f.order.Type, Price: f.order.Price, Quantity: f.order.Quantity}
		s.TP, s.SL = num(rowTPPrice), num(rowSLPrice)
	case KindStop:
		s.Kind, s.Trigger, s.Limit = algo.KindStop, num(rowTrigger), num(rowLimit)
		if a := f.text(rowAfter); a != "" && s.Limit.IsPositive() {
			d, err := time.ParseDuration(a)
			if err != nil || d < 0 {
				f.parseErr[rowAfter] = "then market after: a duration (5s, 1m) or empty to leave it resting"
			}
			s.After.MarketAfter = d
		}
	case KindTP:
		s.Kind, s.Trigger, s.TPMarket = algo.KindTP, num(rowTrigger), f.tpMarket
	case KindOCO:
		s.Kind, s.TP, s.SL = algo.KindOCO, num(rowTPPrice), num(rowSLPrice)
	case KindTrail:
		s.Kind, s.Activation = algo.KindTrail, num(rowActivation)
		if strings.HasSuffix(f.text(rowTrail), "%") {
			s.TrailPercent = num(rowTrail)
		} else {
			s.TrailDistance = num(rowTrail)
		}
	}
	return s
}

// checkSpec validates the spec for the form: what algo.Spec.Check says
// once every needed row is filled.
func (f *Form) checkSpec() {
	f.spec = f.buildSpec()
	f.specErr = ""
	need := map[Kind][]row{KindBracket: {rowTPPrice, rowSLPrice}, KindStop: {rowTrigger}, KindTP: {rowTrigger},
		KindOCO: {rowTPPrice, rowSLPrice}, KindTrail: {rowTrail}}[f.kind]
	for _, r := range need {
		if f.text(r) == "" {
			f.specErr = r.label() + " is needed"
			return
		}
	}
	if err := f.spec.Check(); err != nil {
		f.specErr = err.Error()
	}
}

// cycleKind moves the kind row.
func (f *Form) cycleKind(d int) {
	n := Kind(len(kindNames))
	f.kind = (f.kind + Kind(d%int(n)) + n) % n
	if f.kind == KindBracket || f.kind.working() { // by quantity, whole
		f.inputs[rowAmount].SetValue("")
		f.inputs[rowVisible].SetValue("")
	}
	if f.kind.working() { // a scale's "from" is the price row
		f.typ = trade.Limit
		if f.text(rowPrice) == "" {
			f.setPriceIf(f.bestSame())
		}
	}
}

// stepPrice steps a price row by the tick (from the book's price when empty).
func (f *Form) stepPrice(r row, n int) {
	cur, _ := decimal.NewFromString(f.text(r))
	if !cur.IsPositive() {
		n = 0
		if f.exitSide() == trade.Sell {
			cur = f.env.Book.BestBid
		} else {
			cur = f.env.Book.BestAsk
		}
	}
	if cur.IsPositive() {
		f.setText(r, f.fmtPrice(f.rule.StepPrice(cur, n)))
	}
}

// algoChoice draws a protective choice row.
func (f *Form) algoChoice(r row) string {
	t := f.Theme
	var sb strings.Builder
	switch r {
	case rowKind:
		for i, n := range kindNames {
			if i > 0 {
				sb.WriteString(" ")
			}
			if Kind(i) == f.kind {
				sb.WriteString(t.Reverse + n + t.Text)
			} else {
				sb.WriteString(t.Muted + n + t.Text)
			}
		}
	case rowSource:
		sb.WriteString(f.sourceText())
		sb.WriteString(t.Muted + "  (←/→)" + t.Text)
	case rowTPMarket:
		if f.tpMarket {
			sb.WriteString(t.Warn + "MARKET when the source reaches it" + t.Text)
		} else {
			sb.WriteString("resting LIMIT at the price")
		}
		sb.WriteString(t.Muted + "  (←/→)" + t.Text)
	}
	return sb.String()
}

// kindLines say what the protective kind will do, or what is missing.
func (f *Form) kindLines(w int) []string {
	t := f.Theme
	var out []string
	if f.kind.working() {
		return f.workLines(w)
	}
	if f.specErr != "" {
		for _, l := range common.Wrap(f.specErr, w-2) {
			out = append(out, t.Error+l+t.Text)
		}
		return out
	}
	what := f.spec.String()
	pos := ""
	if f.kind.protective() {
		pos = " · exit " + string(f.exitSide()) + " on position " + f.position().String()
		if trade.IsPerp(f.symbol) {
			pos += ", reduce-only"
		}
	} else {
		pos = " · exits " + string(f.exitSide()) + ", reduce-only, protect what the entry fills"
	}
	for _, l := range common.Wrap(what+pos, w-2) {
		out = append(out, t.Accent+l+t.Text)
	}
	for _, l := range common.Wrap("the confirmation shows the engine's preview: size, distance, already through", w-2) {
		out = append(out, t.Muted+l+t.Text)
	}
	return out
}
