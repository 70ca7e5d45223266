package accountpane

import (
	"strconv"

	"github.com/shopspring/decimal"

	"tradedeck/feed"
	"tradedeck/panes/common"
)

type cell struct{ text, style string }

// row fills the cells of row i of the current tab.
func (m *Model) row(i int, out []cell) {
	switch m.tab {
	case Positions:
		m.positionRow(m.open[i], out)
	case Orders:
		m.orderRow(m.account.Open[i], out)
	case History:
		m.historyRow(m.account.History[i], out)
	case Fills:
		m.fillRow(m.account.Fills[i], out)
	case Balances:
		t, b := m.Theme, m.account.Balances[i]
		out[0] = cell{b.Token, ""}
		out[1] = cell{b.Holding.String(), ""}
		out[2] = cell{b.Frozen.String(), t.Muted}
		out[3] = cell{b.Available().String(), t.Accent}
		out[4] = cell{b.PendingExposure.String(), t.Muted}
	}
}

func (m *Model) sideStyle(s string) string {
	if s == "BUY" {
		return m.Theme.Buy
	}
	return m.Theme.Sell
}

// positionRow: the PnL from the live mark (the position's own until the
// first mark price arrives).
func (m *Model) positionRow(p feed.Position, out []cell) {
	t := m.Theme
	mark, ok := m.marks[p.Symbol]
	if !ok {
		mark = p.MarkPrice
	}
	pnl := p.UnrealizedPnL(mark)
	pct := ""
	if cost := p.AvgOpenPrice.Mul(p.Holding.Abs()); !cost.IsZero() {
		pct = pnl.Div(cost).Mul(decimal.NewFromInt(100)).StringFixed(2) + "%"
	}
	qs := t.Buy
	if p.Holding.IsNegative() {
		qs = t.Sell
	}
	ps := t.Buy
	if pnl.IsNegative() {
		ps = t.Sell
	}
	out[0] = cell{p.Symbol, ""}
	out[1] = cell{m.Store.Qty(p.Symbol, p.Holding), qs}
	out[2] = cell{m.Store.Price(p.Symbol, p.AvgOpenPrice), ""}
	out[3] = cell{m.Store.Price(p.Symbol, mark), ""}
	out[4] = cell{pnl.StringFixed(2), ps}
	out[5] = cell{pct, ps}
}

// orderCells fills what open orders and history share: symbol, side,
// type, price and quantity.
func (m *Model) orderCells(o feed.Order, out []cell) {
	out[0] = cell{o.Symbol, ""}
	out[1] = cell{o.Side, m.sideStyle(o.Side)}
	out[2] = cell{o.Type, ""}
	out[3] = cell{m.priceText(o), ""}
	out[4] = cell{m.Store.Qty(o.Symbol, o.Quantity), ""}
}

func (m *Model) orderRow(o feed.Order, out []cell) {
	t := m.Theme
	m.orderCells(o, out)
	out[5] = cell{progress(o, t.Glyphs.BarFull), t.Accent}
	st := ""
	if o.Status == feed.StatusPending {
		st = t.Warn
	}
	out[6] = cell{shortStatus(o.Status), st}
	out[7] = cell{strconv.FormatInt(o.ClientOrderID, 10), t.Muted}
}

func (m *Model) historyRow(o feed.Order, out []cell) {
	t := m.Theme
	m.orderCells(o, out)
	avg := "-" // nothing filled
	if !o.AvgPrice.IsZero() {
		avg = m.Store.Price(o.Symbol, o.AvgPrice)
	}
	out[5] = cell{avg, ""}
	st := ""
	if o.Status == "REJECTED" {
		st = t.Error
	}
	out[6] = cell{shortStatus(o.Status), st}
	out[7] = cell{o.Reason, t.Muted}
}

func (m *Model) fillRow(f feed.Fill, out []cell) {
	t := m.Theme
	mt := "T"
	if f.Maker {
		mt = "M"
	}
	out[0] = cell{f.Time.UTC().Format("15:04:05"), t.Muted}
	out[1] = cell{f.Symbol, ""}
	out[2] = cell{f.Side, m.sideStyle(f.Side)}
	out[3] = cell{m.Store.Price(f.Symbol, f.Price), ""}
	out[4] = cell{m.Store.Qty(f.Symbol, f.Qty), ""}
	out[5] = cell{f.Fee.String() + " " + f.FeeAsset, t.Muted}
	out[6] = cell{mt, ""}
}

// shortStatus keeps the status column narrow.
func shortStatus(s string) string {
	if s == "PARTIAL_FILLED" {
		return "PARTIAL"
	}
	return s
}

func (m *Model) priceText(o feed.Order) string {
	if o.Price.IsZero() {
		return "market"
	}
	return m.Store.Price(o.Symbol, o.Price)
}

// progress draws the filled fraction of an order: a 6-cell bar and %.
func progress(o feed.Order, full string) string {
	if o.Quantity.IsZero() {
		return o.Executed.String()
	}
	frac := o.Executed.Div(o.Quantity)
	cells := int(frac.Mul(decimal.NewFromInt(6)).IntPart())
	cells = max(0, min(cells, 6))
	bar := ""
	for i := 0; i < 6; i++ {
		if i < cells {
			bar += full
		} else {
			bar += "."
		}
	}
	return bar + " " + frac.Mul(decimal.NewFromInt(100)).StringFixed(0) + "%"
}

// fitColumns gives each column its minimum width in the order of rank
// while they fit (a column that does not fit is dropped whole, width 0),
// then shares what is left over among the columns shown.
func fitColumns(cols []column, w int) []int {
	out := make([]int, len(cols))
	used, shown := 0, 0
	for rank := range len(cols) {
		for i, c := range cols {
			if c.rank != rank || used+c.min+1 > w {
				continue
			}
			out[i] = c.min + 1
			used += c.min + 1
			shown++
		}
	}
	if shown == 0 {
		return out
	}
	extra := min((w-used)/shown, 8)
	for i := range out {
		if out[i] > 0 {
			out[i] += extra
		}
	}
	return out
}

// align pads (or cuts) s to width w minus a one-cell gap.
func align(s string, w int, right bool) string {
	if w <= 1 {
		return common.Left("", w)
	}
	if right {
		return common.Right(s, w-1) + " "
	}
	return common.Left(s, w-1) + " "
}
