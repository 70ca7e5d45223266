package ui

// PaneID names a pane of the grid; its number is the digit that focuses it.
type PaneID int

const (
	PaneBook PaneID = iota
	PaneChart
	PaneTrades
	PaneWatch
	PaneTables
	numPanes
)

var paneNames = [numPanes]string{"book", "chart", "trades", "watchlist", "account"}

func (p PaneID) String() string { return paneNames[p] }

// rect is a pane's outer box (border included) on the screen.
type rect struct{ x, y, w, h int }

func (r rect) contains(x, y int) bool { return x >= r.x && x < r.x+r.w && y >= r.y && y < r.y+r.h }

func (r rect) intersects(o rect) bool {
	return r.x < o.x+o.w && o.x < r.x+r.w && r.y < o.y+o.h && o.y < r.y+r.h
}

// MinWidth and MinHeight are the smallest screen the dashboard draws.
const (
	MinWidth  = 80
	MinHeight = 24
)

const (
	headerRows = 2
	footerRows = 2 // status bar and help line
)

// layoutGrid places the panes in the body (the rows between the header
// and the footer). Wide screens show every pane; narrower ones drop the
// watchlist (reachable by its digit, shown zoomed). A zero rect is hidden.
func layoutGrid(w, h int) [numPanes]rect {
	var r [numPanes]rect
	top := headerRows
	body := h - headerRows - footerRows
	// The account tables rarely need more than a dozen rows: the market
	// panes get the rest of a tall screen.
	lower := max(6, min(body*2/5, 16))
	upper := body - lower
	ly := top + upper
	switch {
	case w >= 150:
		watch := 34
		book := 42
		trades := 34
		chart := w - watch - book - trades
		r[PaneWatch] = rect{0, top, watch, upper}
		r[PaneBook] = rect{watch, top, book, upper}
		r[PaneChart] = rect{watch + book, top, chart, upper}
		r[PaneTrades] = rect{watch + book + chart, top, trades, upper}
		r[PaneTables] = rect{0, ly, w, lower}
	case w >= 110:
		book := 40
		trades := 32
		r[PaneBook] = rect{0, top, book, upper}
		r[PaneChart] = rect{book, top, w - book - trades, upper}
		r[PaneTrades] = rect{w - trades, top, trades, upper}
		r[PaneWatch] = rect{0, ly, 36, lower}
		r[PaneTables] = rect{36, ly, w - 36, lower}
	default:
		book := 36
		r[PaneBook] = rect{0, top, book, upper}
		r[PaneChart] = rect{book, top, w - book, upper}
		r[PaneTrades] = rect{0, ly, book, lower}
		r[PaneTables] = rect{book, ly, w - book, lower}
	}
	return r
}

// bodyRect is the whole body, for a zoomed pane or a full-screen page.
func bodyRect(w, h int) rect { return rect{0, headerRows, w, h - headerRows - footerRows} }
