package confirm

// The scrolling section of a confirmation (Options.List): a ladder of a
// hundred rungs does not fit a 24-row terminal, and a dialog that is not
// drawn whole takes no key but esc (the root's key gate). So the list
// is laid out in as many columns as the box's width holds (row by row,
// re-laid on every size), shows as many rows as the screen holds,
// scrolls with the arrows, and with SeeAll the confirmation waits until
// every entry has been on screen: a trader confirms only what was shown.

import (
	"strconv"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
)

var (
	lineUp   = key.NewBinding(key.WithKeys("up", "k"))
	lineDown = key.NewBinding(key.WithKeys("down", "j"))
	pageUp   = key.NewBinding(key.WithKeys("pgup", "b"))
	pageDown = key.NewBinding(key.WithKeys("pgdown", "space", "f"))
	listHome = key.NewBinding(key.WithKeys("home", "g"))
	listEnd  = key.NewBinding(key.WithKeys("end", "G"))
)

// listGap separates the list's columns.
const listGap = "   "

// listCols is how many entries one row of the box holds.
func (m *Model) listCols() int {
	if m.entryW == 0 {
		for _, e := range m.opts.List {
			m.entryW = max(m.entryW, ansi.StringWidth(e))
		}
	}
	room := m.innerWidth() - 2
	return max(1, (room+len(listGap))/(m.entryW+len(listGap)))
}

// listLen is the list's length in rows.
func (m *Model) listLen() int {
	c := m.listCols()
	return (len(m.opts.List) + c - 1) / c
}

// listRows is how many rows of the List the screen holds: all of them
// when they fit, else what is left after the other lines (the hint is
// counted, so pressing y never pushes the box off the screen).
func (m *Model) listRows() int {
	n := m.listLen()
	if n == 0 || m.Height <= 0 {
		return n
	}
	w := m.innerWidth()
	fixed := 2 + 1 + 1 + 2 // the frame, the blank and button lines, two hint lines
	if m.opts.Warning != "" {
		fixed += len(wrap("! "+m.opts.Warning, w-2)) + 1
	}
	for _, l := range m.opts.Lines {
		fixed += len(wrap(l, w-2))
	}
	room := m.Height - 1 - fixed
	if n <= room {
		return n
	}
	return max(room-1, 3) // one row says where the window is
}

// scrolls reports whether the List is longer than its window.
func (m *Model) scrolls() bool { return m.listRows() < m.listLen() }

// scroll moves the window for a scrolling key; false: not one.
func (m *Model) scroll(k tea.KeyPressMsg) bool {
	if !m.scrolls() {
		return false
	}
	rows, n := m.listRows(), m.listLen()
	top := m.top
	switch {
	case key.Matches(k, lineUp):
		top--
	case key.Matches(k, lineDown):
		top++
	case key.Matches(k, pageUp):
		top -= rows
	case key.Matches(k, pageDown):
		top += rows
	case key.Matches(k, listHome):
		top = 0
	case key.Matches(k, listEnd):
		top = n
	default:
		return false
	}
	m.top = max(0, min(top, n-rows))
	m.hint = "" // it counted what was shown before this move
	return true
}

// AllSeen reports whether confirming may act: without SeeAll always,
// else once every entry of the List has been drawn.
func (m *Model) AllSeen() bool { return !m.opts.SeeAll || m.seen >= len(m.opts.List) }

func (m *Model) unseenHint() string {
	return strconv.Itoa(m.seen) + " of " + strconv.Itoa(len(m.opts.List)) +
		" shown: scroll through the rest (pgdn) before confirming, n or esc to back out"
}

// appendList adds the List's window to the body and records what has
// been shown (View's output is what the terminal shows).
func (m *Model) appendList(body []string) []string {
	n := len(m.opts.List)
	if n == 0 {
		return body
	}
	if len(m.shownAt) != n {
		m.shownAt = make([]bool, n)
	}
	cols, total, rows := m.listCols(), m.listLen(), m.listRows()
	m.top = max(0, min(m.top, total-rows))
	first, last := m.top*cols, min((m.top+rows)*cols, n) // entries [first, last)
	for r := m.top; r < m.top+rows; r++ {
		var b strings.Builder
		for i := r * cols; i < min((r+1)*cols, n); i++ {
			if i > r*cols {
				b.WriteString(listGap)
			}
			e := m.opts.List[i]
			b.WriteString(e + strings.Repeat(" ", m.entryW-ansi.StringWidth(e)))
			if !m.shownAt[i] {
				m.shownAt[i] = true
				m.seen++
			}
		}
		body = append(body, b.String())
	}
	if rows < total {
		t := m.Theme
		body = append(body, t.Muted+strconv.Itoa(first+1)+"-"+strconv.Itoa(last)+" of "+strconv.Itoa(n)+
			" · ↑↓ pgup/pgdn home/end scroll"+t.Text)
	}
	return body
}
