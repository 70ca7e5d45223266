package ui

import "testing"

// On a wide screen the book and the trades tape sit side by side, the
// chart to their right: the renderer resends a row from its first
// changed cell to its last, so nothing that rarely changes may sit
// between the two panes that change on most rows (docs/serve.md).
func TestWideGridBookNextToTrades(t *testing.T) {
	for _, w := range []int{150, 160, 200, 320} {
		g := layoutGrid(w, 48)
		book, trades, chart := g[PaneBook], g[PaneTrades], g[PaneChart]
		if book.x+book.w != trades.x || trades.x+trades.w != chart.x || chart.x+chart.w != w {
			t.Errorf("width %d: book %+v, trades %+v, chart %+v: want book | trades | chart to the right edge", w, book, trades, chart)
		}
	}
}
