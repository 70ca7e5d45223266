package ui

import "sort"

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
		// The book and the tape side by side, the chart last: the
		// renderer resends every cell from a row's first change to its
		// last, and the book and the tape change on most rows; with the
		// chart between them, its unchanged cells went out with every
		// frame (a third of a busy screen's bytes over SSH).
		r[PaneWatch] = rect{0, top, watch, upper}
		r[PaneBook] = rect{watch, top, book, upper}
		r[PaneTrades] = rect{watch + book, top, trades, upper}
		r[PaneChart] = rect{watch + book + trades, top, chart, upper}
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

// setFocus moves the focus to pane p (zooming it when it is hidden).
func (m *Model) setFocus(p PaneID) {
	if p < 0 || p >= numPanes {
		return
	}
	if m.page != "" {
		m.showPage("")
	}
	if p != m.focus {
		m.panes[m.focus].Blur()
		m.focus = p
		m.panes[p].Focus()
	}
	if m.rects[p].w == 0 && !m.zoom {
		m.zoom = true
	}
	m.relayout()
}

// cycle moves the focus to the next visible pane (d = +1 or -1).
func (m *Model) cycle(d int) {
	grid := layoutGrid(max(m.c.Width, MinWidth), max(m.c.Height, MinHeight))
	p := m.focus
	for i := 0; i < int(numPanes); i++ {
		p = (p + PaneID(d) + numPanes) % numPanes
		if grid[p].w > 0 {
			break
		}
	}
	if m.zoom && grid[p].w > 0 && grid[m.focus].w == 0 {
		m.zoom = false // leaving a pane that is only shown zoomed
	}
	m.setFocus(p)
}

// relayout recomputes every rectangle and the sizes of the panes.
func (m *Model) relayout() {
	w, h := m.c.Width, m.c.Height
	m.header.invalidate()
	m.status.invalidate()
	m.helpBar.invalidate()
	if w < MinWidth || h < MinHeight {
		return
	}
	var rects [numPanes]rect
	switch {
	case m.page != "":
		r := bodyRect(w, h)
		m.pages[m.page].SetSize(r.w-2, r.h-2)
		m.pageBox.invalidate()
	case m.zoom:
		rects[m.focus] = bodyRect(w, h)
	default:
		rects = layoutGrid(w, h)
		if rects[m.focus].w == 0 {
			// The focused pane is not part of this grid (unzoomed or the
			// screen shrank): keys must not go to a pane nobody sees.
			m.panes[m.focus].Blur()
			m.focus = PaneBook
			m.panes[m.focus].Focus()
		}
	}
	m.rects = rects
	for i, r := range rects {
		if r.w > 0 {
			m.panes[i].SetSize(r.w-2, r.h-2)
		}
		m.boxes[i].invalidate()
	}
	// Row map: which panes cross each screen row, left to right.
	if cap(m.rowMap) < h {
		m.rowMap = make([][]PaneID, h)
	}
	m.rowMap = m.rowMap[:h]
	for y := range m.rowMap {
		m.rowMap[y] = m.rowMap[y][:0]
	}
	order := make([]PaneID, 0, numPanes)
	for i, r := range rects {
		if r.w > 0 {
			order = append(order, PaneID(i))
		}
	}
	sort.Slice(order, func(a, b int) bool { return rects[order[a]].x < rects[order[b]].x })
	for _, id := range order {
		r := rects[id]
		for y := r.y; y < r.y+r.h && y < h; y++ {
			m.rowMap[y] = append(m.rowMap[y], id)
		}
	}
	m.retitle()
}

// retitle refreshes the cached borders whose title changed.
func (m *Model) retitle() {
	for i, p := range m.panes {
		m.boxes[i].title(p.Title())
	}
	if m.page != "" {
		m.pageBox.title(m.pages[m.page].Title())
	}
}
