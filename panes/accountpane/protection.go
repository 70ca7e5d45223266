package accountpane

import (
	"tradedeck/feed"
	"tradedeck/panes/common"
)

// protectionColumn says what protects each position (issue 25): drawn
// when the screen has the protective-orders engine or a view of it. It
// ranks right after the size and the PnL: a narrow pane keeps it.
var protectionColumn = column{"Protection", 24, false, 2} // "stop 96000.0 tp 98000.0" whole

// positionsWithProtection are the positions' columns with it, after uPnL
// and PnL%, the ranks of the columns it outranks moved down by one.
var positionsWithProtection = func() []column {
	base := columns[Positions]
	out := make([]column, 0, len(base)+1)
	for _, c := range base {
		if c.rank >= protectionColumn.rank {
			c.rank++
		}
		out = append(out, c)
	}
	return append(out, protectionColumn)
}()

// columns are the current tab's columns.
func (m *Model) columns() []column {
	if m.tab == Positions && m.Store != nil && m.Store.Algos.Shown {
		return positionsWithProtection
	}
	return columns[m.tab]
}

// protectionCell: "engine not running" when no process runs the engine,
// else the engine's line for the position ("stop 95000 #12, tp 99000
// #12"), or UNPROTECTED.
func (m *Model) protectionCell(p feed.Position) cell {
	t := m.Theme
	st := &m.Store.Algos
	if !st.Engine.Running() {
		if st.Engine == common.EngineStarting {
			return cell{"engine starting", t.Warn}
		}
		return cell{"engine not running", t.Error}
	}
	pr, ok := st.Protecting(p.Symbol)
	if !ok || pr.Unprotected() {
		return cell{"UNPROTECTED", t.Error}
	}
	style := t.Buy
	if !pr.Fresh || pr.Covered.LessThan(p.Holding.Abs()) {
		style = t.Warn
	}
	text := "stop " + m.Store.Price(p.Symbol, pr.Stop)
	if pr.TP.IsPositive() {
		text += " tp " + m.Store.Price(p.Symbol, pr.TP)
	}
	if pr.Covered.LessThan(p.Holding.Abs()) {
		text += " partial " + m.Store.Qty(p.Symbol, pr.Covered)
	}
	if !pr.Fresh {
		text += " STALE"
	}
	return cell{text, style}
}
