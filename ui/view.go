package ui

import (
	"slices"
	"strconv"
	"strings"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"tradedeck/panes/common"
	"tradedeck/theme"
)

// box caches a pane's borders; they change only with size, focus, title
// or theme.
type box struct {
	valid       bool
	titleText   string
	w           int
	focused     bool
	top, bottom string
	left, right string
}

func (b *box) invalidate() { b.valid = false }

func (b *box) title(t string) {
	if t != b.titleText {
		b.titleText = t
		b.valid = false
	}
}

func (b *box) ensure(t *theme.Theme, label string, w int, focused bool, hint string) {
	if b.valid && b.w == w && b.focused == focused {
		return
	}
	b.w, b.focused, b.valid = w, focused, true
	b.top = common.BorderTop(t, label, b.titleText, w, focused)
	b.bottom = common.BorderBottom(t, hint, w, focused)
	bs := t.Border
	if focused {
		bs = t.BorderFocus
	}
	b.left = bs + t.Glyphs.V + theme.Reset
	b.right = b.left
}

// View renders the whole screen: cached header, the panes' cached lines
// inside cached borders, the status bar and the help line. It hands the
// renderer the screen's lines (the bubbletea fork's View.Lines): a row
// that did not change is the same string as in the last frame, so a frame
// costs a string per changed row, not one frame-sized string (40 KB at
// 200x60, most of what a busy dashboard allocated), and the renderer
// finds the unchanged rows by identity.
func (m *Model) View() tea.View {
	var v tea.View
	v.Lines = m.renderLines()
	v.AltScreen = true
	v.MouseMode = tea.MouseModeCellMotion
	v.WindowTitle = m.title
	return v
}

// Render is the screen's content as one string (View without the
// terminal modes).
func (m *Model) Render() string { return strings.Join(m.renderLines(), "\n") }

// renderLines is the screen's rows, dialogs drawn over them. The slice
// and its strings are never changed once returned: a new frame is a new
// slice.
func (m *Model) renderLines() []string {
	w, h := m.c.Width, m.c.Height
	if w == 0 || h == 0 {
		return nil
	}
	if w < MinWidth || h < MinHeight {
		return m.tooSmallView(w, h)
	}
	t := m.c.Theme
	f, ends := m.frame[:0], m.rowEnds[:0]
	for _, l := range m.header.lines(m, w) {
		f = append(f, l...)
		ends = append(ends, len(f))
	}
	if m.page != "" {
		p := m.pages[m.page]
		r := bodyRect(w, h)
		m.pageBox.ensure(t, "", r.w, true, "esc back")
		f, ends = appendBox(f, ends, &m.pageBox, p.Lines(), r.h)
	} else {
		for y := headerRows; y < h-footerRows; y++ {
			for _, id := range m.rowMap[y] {
				r := m.rects[id]
				b := &m.boxes[id]
				hint := ""
				if id == m.focus && m.zoom {
					hint = "z/esc unzoom"
				}
				b.ensure(t, strconv.Itoa(int(id)+1), r.w, id == m.focus, hint)
				switch ry := y - r.y; ry {
				case 0:
					f = append(f, b.top...)
				case r.h - 1:
					f = append(f, b.bottom...)
				default:
					lines := m.panes[id].Lines()
					f = append(f, b.left...)
					if i := ry - 1; i < len(lines) {
						f = append(f, lines[i]...)
					}
					f = append(f, b.right...)
				}
			}
			ends = append(ends, len(f))
		}
	}
	f = append(f, m.status.line(m, w)...)
	ends = append(ends, len(f))
	switch {
	case m.cmdActive:
		f = append(f, m.commandLine(w)...)
	case m.status.second != "":
		f = append(f, m.status.second...) // a long notice, for its lifetime
	default:
		f = append(f, m.helpBar.line(m, w)...)
	}
	ends = append(ends, len(f))
	m.frame, m.rowEnds = f, ends
	base := m.keepRows(f, ends)
	// Every dialog of the stack is drawn, bottom first: a prompt opened
	// from the account screen sits over that screen, not over the grid.
	if len(m.dialogs) == 0 {
		m.shown = frameShown{gen: m.stackGen, banner: true}
		return base
	}
	views := make([]string, 0, len(m.dialogs))
	for _, d := range m.dialogs {
		views = append(views, d.View())
	}
	if o := &m.overlaid; o.gen == m.stackGen && o.baseGen == m.rowsGen && o.w == w && o.h == h && slices.Equal(o.views, views) {
		m.shown = o.shown // nothing under or in the dialogs changed: no cutting
		return o.out
	}
	s := base
	rects := make([]rect, len(m.dialogs))
	whole := false
	if len(m.overlaid.layers) != len(views) {
		m.overlaid.layers = make([]overlayLines, len(views))
	}
	for i, v := range views {
		s, rects[i], whole = overlayCached(&m.overlaid.layers[i], s, v, w, h)
	}
	m.shown = frameShown{gen: m.stackGen, whole: whole, banner: true}
	badge := rect{0, 0, badgeWidth(m.opts.Venue), 1}
	for _, r := range rects {
		if r.intersects(badge) {
			m.shown.banner = false
		}
	}
	m.overlaid = overlaidFrame{gen: m.stackGen, baseGen: m.rowsGen, w: w, h: h, views: views, out: s, shown: m.shown, layers: m.overlaid.layers}
	return s
}

// keepRows is the frame composed in f (row i ends at ends[i]) as row
// strings: the last frame's slice while no row changed, else a new slice
// holding the last frame's string for every row that did not change (one
// string per changed row; comparing a row with its string allocates
// nothing).
func (m *Model) keepRows(f []byte, ends []int) []string {
	last := m.rows
	var rows []string
	start := 0
	for y, end := range ends {
		seg := f[start:end]
		start = end
		if y < len(last) && len(ends) == len(last) && string(seg) == last[y] {
			continue
		}
		if rows == nil {
			rows = make([]string, len(ends))
			if len(ends) == len(last) {
				copy(rows, last)
			}
		}
		rows[y] = string(seg)
	}
	if rows == nil {
		return last
	}
	m.rows = rows
	m.rowsGen++
	return rows
}

// remember keeps what a composition was made of and what it made.
func (c *overlayLines) remember(base, dialog, out []string, widths []int, x0, w int) {
	c.base, c.dialog, c.out = base, append(c.dialog[:0], dialog...), out
	c.width = append(c.width[:0], widths...)
	c.x0, c.lw = c.x0[:0], c.lw[:0]
	for _, lw := range widths {
		c.x0 = append(c.x0, x0)
		c.lw = append(c.lw, min(lw, w))
	}
}

// widthsOf measures the dialog's lines, taking a line's width from the
// last composition when the line is unchanged (measuring ~40 lines of an
// open help twice per composition was most of an idle screen's View).
func (c *overlayLines) widthsOf(dl []string) []int {
	ws := make([]int, len(dl))
	for i, l := range dl {
		if c != nil && i < len(c.dialog) && i < len(c.width) && c.dialog[i] == l {
			ws[i] = c.width[i]
		} else {
			ws[i] = ansi.StringWidth(l)
		}
	}
	return ws
}

// overlaidFrame is the last frame with dialogs over it and what it was
// made of: while the screen under an open dialog (help, a form) and the
// dialog's own view are unchanged, View hands it back instead of cutting
// the frame again (an idle screen with the help open redrew it on every
// message, the clock's and the health line's).
type overlaidFrame struct {
	gen     uint64
	baseGen uint64 // Model.rowsGen of the rows under the dialogs
	w, h    int
	views   []string
	out     []string
	shown   frameShown
	layers  []overlayLines // per dialog, bottom first
}

// appendBox draws a whole box of lines (a page), a row end in ends after
// each row.
func appendBox(f []byte, ends []int, b *box, lines []string, h int) ([]byte, []int) {
	f = append(f, b.top...)
	ends = append(ends, len(f))
	for i := 0; i < h-2; i++ {
		f = append(f, b.left...)
		if i < len(lines) {
			f = append(f, lines[i]...)
		}
		f = append(f, b.right...)
		ends = append(ends, len(f))
	}
	f = append(f, b.bottom...)
	ends = append(ends, len(f))
	return f, ends
}

func (m *Model) tooSmallView(w, h int) []string {
	m.shown = frameShown{} // nothing acts on this screen
	lines := make([]string, h)
	words := wrap(m.tooSmallText(w, h), w)
	start := max(0, (h-len(words))/2)
	for i, l := range words {
		if start+i < h {
			pad := max(0, (w-len(l))/2)
			lines[start+i] = strings.Repeat(" ", pad) + m.c.Theme.Warn + l + theme.Reset
		}
	}
	return lines
}

// wrap breaks s into lines of at most w cells at spaces.
func wrap(s string, w int) []string {
	var out []string
	line := ""
	for _, word := range strings.Fields(s) {
		switch {
		case line == "":
			line = word
		case len(line)+1+len(word) <= w:
			line += " " + word
		default:
			out = append(out, line)
			line = word
		}
	}
	if line != "" {
		out = append(out, line)
	}
	for i, l := range out {
		if len(l) > w {
			out[i] = l[:w]
		}
	}
	return out
}

// overlay draws a dialog centred over the screen, below the header (the
// SIM/LIVE badge stays visible). It returns where the dialog went and
// whether it fit: a dialog wider or taller than the room is cut.
func overlay(base []string, dialog string, w, h int) ([]string, rect, bool) {
	return overlayCached(nil, base, dialog, w, h)
}

// overlayLines is one dialog layer's last composition, line by line: a
// covered line whose screen line and dialog line are unchanged is taken
// from it instead of being cut again (the clock changing the status bar
// under an open help re-cut its ~40 lines every second).
type overlayLines struct {
	base, dialog, out []string
	x0, lw            []int
	width             []int // each dialog line's own width (lw is it cut to the screen)
	y0                int   // the dialog's first row: line i of it stood at row y0+i
}

func overlayCached(c *overlayLines, base []string, dialog string, w, h int) ([]string, rect, bool) {
	bl := slices.Clone(base) // base is the rows handed over last: never changed
	dl := strings.Split(dialog, "\n")
	widths := c.widthsOf(dl)
	natural := 0
	for _, lw := range widths {
		natural = max(natural, lw)
	}
	dw := min(natural, w)
	x0 := max(0, (w-dw)/2)
	y0 := max(headerRows, (h-len(dl))/2)
	drawn := 0
	for i, l := range dl {
		y := y0 + i
		if y >= len(bl) {
			break
		}
		drawn++
		lw := widths[i]
		if lw > dw {
			l = ansi.Truncate(l, dw, "")
			lw = dw
		}
		if c != nil && c.y0 == y0 && y < len(c.base) && i < len(c.dialog) && c.base[y] == bl[y] && c.dialog[i] == l &&
			c.x0[i] == x0 && c.lw[i] == lw {
			bl[y] = c.out[y]
			continue
		}
		left := ansi.Truncate(bl[y], x0, "")
		right := ansi.TruncateLeft(bl[y], x0+lw, "")
		bl[y] = left + theme.Reset + l + theme.Reset + right
	}
	if c != nil {
		c.remember(base, dl, bl, widths, x0, w)
		c.y0 = y0
	}
	fit := natural <= w && drawn == len(dl)
	return bl, rect{x0, y0, dw, drawn}, fit
}
