package accountpane

import (
	"github.com/shopspring/decimal"

	"tradedeck/feed"
	"tradedeck/panes/common"
)

// PositionFigures are what a trader reads of a position before acting.
type PositionFigures struct {
	Notional      decimal.Decimal // |holding| x mark
	Leverage      decimal.Decimal // the account's perpetual leverage (0 when unknown)
	Margin        decimal.Decimal // initial margin the position uses
	MarginKnown   bool
	UnrealisedPnL decimal.Decimal
}

// Figures computes a position's notional, leverage and margin at mark.
// The margin is notional x the venue's initial margin ratio when it sent
// one, else notional / leverage.
func Figures(p feed.Position, mark decimal.Decimal, a *feed.Account) PositionFigures {
	f := PositionFigures{Notional: p.Holding.Abs().Mul(mark), UnrealisedPnL: p.UnrealizedPnL(mark)}
	if a == nil {
		return f
	}
	f.Leverage = a.Margin.FuturesLeverage
	imr := a.Collateral.InitialMarginRatio
	switch {
	case imr.IsPositive():
		f.Margin, f.MarginKnown = f.Notional.Mul(imr), true
		if f.Leverage.IsZero() {
			f.Leverage = decimal.NewFromInt(1).DivRound(imr, 2)
		}
	case f.Leverage.IsPositive():
		f.Margin, f.MarginKnown = f.Notional.DivRound(f.Leverage, 8), true
	}
	return f
}

// summary draws the account line above the positions: equity, free
// collateral, margin used by the positions, today's realised PnL and fees.
func (m *Model) summary(c *common.Canvas) {
	t, a := m.Theme, m.account
	c.Space(1)
	if a == nil {
		c.EndLine()
		return
	}
	used, known := decimal.Zero, false
	for _, p := range m.open {
		mark, ok := m.marks[p.Symbol]
		if !ok {
			mark = p.MarkPrice
		}
		if f := Figures(p, mark, a); f.MarginKnown {
			used, known = used.Add(f.Margin), true
		}
	}
	today := Today(m.ledger, m.Clock())
	w := m.Width - 1
	item := func(label, value, style string) {
		if c.Width()+len(label)+len(value)+3 > w {
			return
		}
		c.Styled(t.Muted, label+" ")
		c.Styled(style, value)
		c.Space(2)
	}
	col := a.Collateral
	if col.Known {
		item("Equity", col.TotalAccountValue.StringFixed(2), t.Text)
		item("Free", col.FreeCollateral.StringFixed(2), t.Accent)
	} else {
		item("Equity", "-", t.Muted)
	}
	if known {
		item("Margin", used.StringFixed(2), t.Text)
	}
	item("rPnL today", today.Realised.String(), m.pnlStyle(today.Realised))
	item("Fees today", today.Fees.String(), t.Muted)
	if col.Known && !col.CurrentMarginRatio.IsZero() {
		item("Margin ratio", col.CurrentMarginRatio.StringFixed(4), t.Text)
	}
	c.EndLine()
}
