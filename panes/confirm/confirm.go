// Package confirm is the confirmation dialog every order and cancel goes
// through. Keys that arrive within a grace period after it opened are
// ignored: they were typed before the user could read it (a double Enter
// on the order form, a key repeat), so they never confirm anything. Only
// backing out (n, esc) works at once, since it sends nothing.
package confirm

import (
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"tradedeck/panes/common"
)

// DefaultGrace is how long keys are ignored after the dialog opens.
const DefaultGrace = 300 * time.Millisecond

// Options describe one confirmation.
type Options struct {
	Title string
	Lines []string // what will happen, one fact per line
	// List is a section after Lines, one entry per line (a ladder's
	// rungs): it scrolls when the screen cannot hold it (list.go), so the
	// dialog is always drawn whole. SeeAll: confirming waits until every
	// entry has been on screen.
	List   []string
	SeeAll bool
	// Wide: the box takes the screen's width (up to 120 columns), for a
	// List laid out in columns.
	Wide bool
	// Strong marks a dangerous action (MARKET order, large notional, panic
	// cancel): Warning is shown in the error style, and only the explicit
	// "y" key confirms; Enter does not.
	Strong    bool
	Warning   string
	Action    string        // the confirm button's label, e.g. "send BUY LIMIT"
	OnConfirm tea.Cmd       // run after the dialog closed
	OnCancel  tea.Cmd       // optional
	Grace     time.Duration // 0: DefaultGrace
}

// Model is the dialog (a common.Dialog).
type Model struct {
	common.Common
	opts    Options
	opened  time.Time
	ignored int
	hint    string
	done    bool
	// The List's window (list.go): its first entry on screen, which
	// entries have been drawn, and how many.
	top, seen int
	shownAt   []bool
	entryW    int // the widest List entry
}

var (
	yesKey    = key.NewBinding(key.WithKeys("y", "Y"))
	enterKey  = key.NewBinding(key.WithKeys("enter"))
	cancelKey = key.NewBinding(key.WithKeys("n", "N", "esc", "q", "ctrl+c"))
)

// New opens a confirmation now (by c's clock).
func New(c common.Common, o Options) *Model {
	if o.Grace == 0 {
		o.Grace = DefaultGrace
	}
	return &Model{Common: c, opts: o, opened: c.Clock()}
}

// Strong reports whether this is the stronger form.
func (m *Model) Strong() bool { return m.opts.Strong }

// Ignored is the number of keys dropped by the grace period.
func (m *Model) Ignored() int { return m.ignored }

// SetSize records the screen size.
func (m *Model) SetSize(w, h int) { m.Common.SetSize(w, h) }

// Update handles keys; everything else passes by.
func (m *Model) Update(msg tea.Msg) (common.Dialog, tea.Cmd) {
	k, ok := msg.(tea.KeyPressMsg)
	if !ok || m.done {
		return m, nil
	}
	inGrace := m.Clock().Sub(m.opened) < m.opts.Grace
	switch {
	case key.Matches(k, cancelKey):
		// Backing out is always safe, even within the grace period.
		m.done = true
		return m, tea.Sequence(common.Close, m.opts.OnCancel)
	case m.scroll(k):
		// Scrolling sends nothing: it works within the grace period.
		return m, nil
	case inGrace:
		m.ignored++
		return m, nil
	case (key.Matches(k, yesKey) || key.Matches(k, enterKey)) && !m.AllSeen():
		m.hint = m.unseenHint()
	case key.Matches(k, yesKey), key.Matches(k, enterKey) && !m.opts.Strong:
		m.done = true
		return m, tea.Sequence(common.Close, m.opts.OnConfirm)
	case key.Matches(k, enterKey):
		m.hint = "press y to confirm, n or esc to cancel"
	}
	return m, nil
}

// View renders the dialog box.
func (m *Model) View() string {
	t := m.Theme
	w := m.innerWidth()
	var body []string
	if m.opts.Warning != "" {
		for _, l := range wrap("! "+m.opts.Warning, w-2) {
			body = append(body, t.Error+l+t.Text)
		}
		body = append(body, "")
	}
	for _, l := range m.opts.Lines {
		body = append(body, wrap(l, w-2)...)
	}
	body = m.appendList(body)
	body = append(body, "")
	yes := "[y] " + m.opts.Action
	if !m.opts.Strong {
		yes += " (enter)"
	}
	style := t.Accent
	if m.opts.Strong {
		style = t.Error
	}
	body = append(body, style+yes+t.Text+"   "+t.Muted+"[n/esc] back"+t.Text)
	if m.hint != "" {
		for _, l := range wrap(m.hint, w-2) {
			body = append(body, t.Warn+l+t.Text)
		}
	}
	border := t.BorderFocus
	if m.opts.Strong {
		border = t.Error
	}
	return Frame(t, m.opts.Title, body, w, border)
}

// innerWidth is the box's inner width on the current screen.
func (m *Model) innerWidth() int {
	w := 56
	switch {
	case m.Width > 0 && m.opts.Wide:
		w = min(m.Width-4, 120)
	case m.Width > 0:
		w = min(max(w, m.Width/2), m.Width-4, 90)
	}
	return w
}

// wrap breaks plain text into lines of at most w cells.
func wrap(s string, w int) []string {
	return strings.Split(ansi.Wordwrap(s, max(w, 10), ""), "\n")
}
