package accountpane

import (
	"tradedeck/feed"
	"tradedeck/panes/common"
)

// protectionColumn says what protects each position (issue 25): drawn
// when the screen has the protective-orders engine or a view of it. It
// ranks right after the size: in a narrow pane (80 columns) it keeps its
// place before the PnL, in a short form ("S 96000.0 T 98000.0", then
// "S 96000.0*"), since a position's missing stop is what must not be
// missed. Its minimum fits "UNPROTECTED".
var protectionColumn = column{"Protection", 11, false, 2}

// wantWidth is the width a column's whole text needs ("stop 96000.0 tp
// 98000.0"): given to it before the other columns share what is left.
var wantWidth = map[string]int{protectionColumn.title: 24}

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
// else the engine's levels for the position ("stop 95000 tp 99000"), or
// UNPROTECTED; shortened to the column's width w (see protectionColumn).
func (m *Model) protectionCell(p feed.Position, w int) cell {
	t := m.Theme
	st := &m.Store.Algos
	if !st.Engine.Running() {
		if st.Engine == common.EngineStarting {
			return cell{fit(w, "engine starting", "starting"), t.Warn}
		}
		return cell{fit(w, "engine not running", "no engine"), t.Error}
	}
	pr, ok := st.Protecting(p.Symbol)
	if !ok || pr.Unprotected() {
		return cell{"UNPROTECTED", t.Error}
	}
	partial := pr.Covered.LessThan(p.Holding.Abs())
	style := t.Buy
	if !pr.Fresh || partial {
		style = t.Warn
	}
	stop := m.Store.Price(p.Symbol, pr.Stop)
	long, short := "stop "+stop, "S "+stop
	if pr.TP.IsPositive() {
		tp := m.Store.Price(p.Symbol, pr.TP)
		long += " tp " + tp
		short += " T " + tp
	}
	tiny := "S " + stop
	if partial {
		long += " partial " + m.Store.Qty(p.Symbol, pr.Covered)
		short += " part"
		tiny += "*"
	}
	if !pr.Fresh {
		long += " STALE"
		short += " STALE"
		tiny += "*"
	}
	return cell{fit(w, long, short, tiny), style}
}

// fit is the first text that fits a column of width w (one cell is the
// gap), else the last.
func fit(w int, texts ...string) string {
	for _, s := range texts {
		if len(s) <= w-1 {
			return s
		}
	}
	return texts[len(texts)-1]
}
