package accountpane

import (
	"strconv"
	"time"

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
	case PnL:
		m.ledgerRow(m.ledger[i], out)
	}
}

func (m *Model) sideStyle(s string) string {
	if s == "BUY" {
		return m.Theme.Buy
	}
	return m.Theme.Sell
}

// positionRow: the PnL, notional and margin from the live mark (the
// position's own until the first mark price arrives); the liquidation
// price, realised PnL and fees are the venue's own fields.
func (m *Model) positionRow(p feed.Position, out []cell) {
	t := m.Theme
	mark, ok := m.marks[p.Symbol]
	if !ok {
		mark = p.MarkPrice
	}
	f := Figures(p, mark, m.account)
	pct := ""
	if cost := p.AvgOpenPrice.Mul(p.Holding.Abs()); !cost.IsZero() {
		pct = f.UnrealisedPnL.Div(cost).Mul(decimal.NewFromInt(100)).StringFixed(2) + "%"
	}
	qs := t.Buy
	if p.Holding.IsNegative() {
		qs = t.Sell
	}
	out[0] = cell{p.Symbol, ""}
	out[1] = cell{m.Store.Qty(p.Symbol, p.Holding), qs}
	out[2] = cell{m.Store.Price(p.Symbol, p.AvgOpenPrice), ""}
	out[3] = cell{m.Store.Price(p.Symbol, mark), ""}
	out[4] = cell{"-", t.Muted}
	if !p.EstLiqPrice.IsZero() {
		out[4] = cell{m.Store.Price(p.Symbol, p.EstLiqPrice), t.Warn}
	}
	out[5] = cell{f.Notional.StringFixed(2), ""}
	out[6] = cell{"-", t.Muted}
	if !f.Leverage.IsZero() {
		out[6] = cell{f.Leverage.String() + "x", ""}
	}
	out[7] = cell{"-", t.Muted}
	if f.MarginKnown {
		out[7] = cell{f.Margin.StringFixed(2), ""}
	}
	out[8] = cell{f.UnrealisedPnL.StringFixed(2), m.pnlStyle(f.UnrealisedPnL)}
	out[9] = cell{pct, m.pnlStyle(f.UnrealisedPnL)}
	out[10] = cell{p.PnL24h.String(), m.pnlStyle(p.PnL24h)}
	out[11] = cell{p.Fee24h.String(), t.Muted}
	if len(out) > 12 {
		out[12] = m.protectionCell(p, m.protectionWidth)
	}
}

func (m *Model) pnlStyle(v decimal.Decimal) string {
	if v.IsNegative() {
		return m.Theme.Sell
	}
	return m.Theme.Buy
}

// orderTime: date and time (UTC) to the second, "-" when unknown.
func orderTime(t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	return t.UTC().Format("01-02 15:04:05")
}

// orderID is the venue's id, "-" before the venue acknowledged the order.
func orderID(id int64) string {
	if id == 0 {
		return "-"
	}
	return strconv.FormatInt(id, 10)
}

// orderCells fills what open orders and history share: time, symbol,
// side, type, price and quantity, and the order id.
func (m *Model) orderCells(o feed.Order, when time.Time, out []cell) {
	t := m.Theme
	out[0] = cell{orderTime(when), t.Muted}
	out[1] = cell{o.Symbol, ""}
	out[2] = cell{o.Side, m.sideStyle(o.Side)}
	out[3] = cell{o.Type, ""}
	out[4] = cell{m.priceText(o), ""}
	out[5] = cell{m.Store.Qty(o.Symbol, o.Quantity), ""}
	out[8] = cell{orderID(o.OrderID), t.Muted}
}

// orderRow: an open order, at the time it was placed.
func (m *Model) orderRow(o feed.Order, out []cell) {
	t := m.Theme
	m.orderCells(o, o.Created, out)
	out[6] = cell{progress(o, t.Glyphs.BarFull), t.Accent}
	st := ""
	if o.Status == feed.StatusPending {
		st = t.Warn
	}
	out[7] = cell{shortStatus(o.Status), st}
	out[9] = cell{strconv.FormatInt(o.ClientOrderID, 10), t.Muted}
}

// historyRow: a past order, at the time it was completed (placed, when
// the venue gave no update time).
func (m *Model) historyRow(o feed.Order, out []cell) {
	t := m.Theme
	when := o.Updated
	if when.IsZero() {
		when = o.Created
	}
	m.orderCells(o, when, out)
	avg := "-" // nothing filled
	if !o.AvgPrice.IsZero() {
		avg = m.Store.Price(o.Symbol, o.AvgPrice)
	}
	out[6] = cell{avg, ""}
	st := ""
	if o.Status == "REJECTED" {
		st = t.Error
	}
	out[7] = cell{shortStatus(o.Status), st}
	out[9] = cell{o.Reason, t.Muted}
}

func (m *Model) fillRow(f feed.Fill, out []cell) {
	t := m.Theme
	mt := "T"
	if f.Maker {
		mt = "M"
	}
	out[0] = cell{orderTime(f.Time), t.Muted}
	out[1] = cell{f.Symbol, ""}
	out[2] = cell{f.Side, m.sideStyle(f.Side)}
	out[3] = cell{m.Store.Price(f.Symbol, f.Price), ""}
	out[4] = cell{m.Store.Qty(f.Symbol, f.Qty), ""}
	out[5] = cell{f.Fee.String() + " " + f.FeeAsset, t.Muted}
	out[6] = cell{"", ""}
	if !f.RealizedPnL.IsZero() {
		out[6] = cell{f.RealizedPnL.String(), m.pnlStyle(f.RealizedPnL)}
	}
	out[7] = cell{mt, ""}
	out[8] = cell{orderID(f.OrderID), t.Muted}
}

// ledgerRow: a day's total (bold symbol "all") or one symbol of the day.
func (m *Model) ledgerRow(r LedgerRow, out []cell) {
	t := m.Theme
	out[0] = cell{r.Day.Format("2006-01-02"), t.Muted}
	out[1] = cell{r.Symbol, ""}
	if r.Symbol == "" {
		out[0].style = t.Accent
		out[1] = cell{"all", t.Accent}
	}
	out[2] = cell{strconv.Itoa(r.Fills), ""}
	out[3] = cell{r.Realised.String(), m.pnlStyle(r.Realised)}
	out[4] = cell{r.Fees.String(), t.Muted}
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
// then widens a column to the width it wants (wantWidth), then shares
// what is left over among the columns shown.
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
	for i, c := range cols {
		if want := wantWidth[c.title]; out[i] > 0 && want > c.min {
			grow := min(want-c.min, w-used)
			out[i] += grow
			used += grow
		}
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
