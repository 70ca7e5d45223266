// Package alerts is the `:alerts` dialog: the alerts with their state (see,
// pause, resume, delete) and the ones that fired (read them).
package alerts

import (
	"fmt"
	"strconv"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"tradedeck/alerts"
	"tradedeck/panes/common"
	"tradedeck/theme"
)

// Desk is what the dialog needs of the alert engine (*alerts.Engine).
type Desk interface {
	List() []alerts.Alert
	History() []alerts.Fired
	SetPaused(id int, paused bool) error
	Remove(id int) error
	MarkRead() error
}

var _ Desk = (*alerts.Engine)(nil)

// ChangedMsg tells an open dialog the alerts changed (one fired, another
// process edited the file): it reads them again.
type ChangedMsg struct{}

// doneMsg is the result of a change the dialog asked for.
type doneMsg struct {
	text string
	err  error
}

// Tabs of the dialog.
const (
	tabAlerts = iota
	tabFired
)

// Model is the dialog.
type Model struct {
	c     common.Common
	desk  Desk
	tab   int
	list  []alerts.Alert
	fired []alerts.Fired
	sel   [2]int
	top   [2]int
	w, h  int
}

// New opens the dialog on the alerts tab (the fired tab when some are
// unread: they are what the user came for).
func New(c common.Common, d Desk) *Model {
	m := &Model{c: c, desk: d, w: c.Width, h: c.Height}
	m.refresh()
	for _, f := range m.fired {
		if !f.Read {
			m.tab = tabFired
			break
		}
	}
	return m
}

// Init marks the fired alerts read when the dialog opens on them.
func (m *Model) Init() tea.Cmd {
	if m.tab == tabFired {
		return m.markRead()
	}
	return nil
}

func (m *Model) refresh() {
	m.list, m.fired = m.desk.List(), m.desk.History()
	for t, n := range [2]int{len(m.list), len(m.fired)} {
		m.sel[t] = max(0, min(m.sel[t], n-1))
	}
}

// SetSize takes the screen's size; the dialog picks its own.
func (m *Model) SetSize(w, h int) { m.w, m.h = w, h }

// Update handles the dialog's keys and the results of its changes.
func (m *Model) Update(msg tea.Msg) (common.Dialog, tea.Cmd) {
	switch msg := msg.(type) {
	case ChangedMsg:
		m.refresh()
	case doneMsg:
		m.refresh()
		if msg.err != nil {
			return m, common.Notify(common.NoticeError, msg.err.Error())
		}
		if msg.text != "" {
			return m, common.Notify(common.NoticeInfo, msg.text)
		}
	case tea.KeyPressMsg:
		return m, m.key(msg)
	}
	return m, nil
}

func (m *Model) key(k tea.KeyPressMsg) tea.Cmd {
	km := m.c.Keys
	n := len(m.list)
	if m.tab == tabFired {
		n = len(m.fired)
	}
	switch {
	case key.Matches(k, km.Back) || k.String() == "q":
		return common.Close
	case k.String() == "tab" || key.Matches(k, km.NextTab, km.PrevTab):
		m.tab = 1 - m.tab
		if m.tab == tabFired {
			return m.markRead()
		}
	case key.Matches(k, km.Up):
		m.sel[m.tab] = max(0, m.sel[m.tab]-1)
	case key.Matches(k, km.Down):
		m.sel[m.tab] = max(0, min(n-1, m.sel[m.tab]+1))
	case key.Matches(k, km.Top):
		m.sel[m.tab] = 0
	case key.Matches(k, km.Bottom):
		m.sel[m.tab] = max(0, n-1)
	case m.tab == tabAlerts && n > 0 && (k.String() == "space" || k.String() == "p"):
		a := m.list[m.sel[m.tab]]
		pause := a.Active()
		verb := "paused"
		if !pause {
			verb = "resumed"
		}
		return m.do(fmt.Sprintf("alert %d %s: %s", a.ID, verb, a.Condition()), func() error { return m.desk.SetPaused(a.ID, pause) })
	case m.tab == tabAlerts && n > 0 && (k.String() == "d" || k.String() == "delete" || k.String() == "x"):
		a := m.list[m.sel[m.tab]]
		return m.do(fmt.Sprintf("alert %d deleted: %s", a.ID, a.Condition()), func() error { return m.desk.Remove(a.ID) })
	}
	return nil
}

// do runs a change off the UI goroutine (it writes the alerts file).
func (m *Model) do(text string, fn func() error) tea.Cmd {
	return func() tea.Msg {
		if err := fn(); err != nil {
			return doneMsg{err: err}
		}
		return doneMsg{text: text}
	}
}

func (m *Model) markRead() tea.Cmd {
	for _, f := range m.fired {
		if !f.Read {
			return m.do("", m.desk.MarkRead)
		}
	}
	return nil
}

// row is one line of a table: plain text and the style it is drawn in.
type row struct{ style, text string }

// View draws the dialog.
func (m *Model) View() string {
	t := m.c.Theme
	iw := max(20, min(m.w-4, 110))
	var body []row
	if m.tab == tabAlerts {
		body = m.alertRows()
	} else {
		body = m.firedRows()
	}
	// As tall as the longer list, within the screen.
	rows := max(3, min(m.h-10, 30, max(len(m.list), len(m.fired))))
	line := func(style, text string) string {
		return style + common.Fit(text, iw, t.Glyphs.Ellipsis) + theme.Reset
	}
	lines := []string{line(t.TitleFocus, m.tabBar()), common.Left("", iw), line(t.Title, body[0].text)}
	body = body[1:]
	sel := m.sel[m.tab]
	top := min(m.top[m.tab], sel)
	if sel >= top+rows {
		top = sel - rows + 1
	}
	m.top[m.tab] = top
	for i := top; i < len(body) && i < top+rows; i++ {
		style := body[i].style
		if i == sel {
			style = t.Selected
		}
		lines = append(lines, line(style, body[i].text))
	}
	if len(body) == 0 {
		msg := " no alerts: :alert SYMBOL above|below PRICE adds one, a in the book sets one at the selected level"
		if m.tab == tabFired {
			msg = " nothing fired yet"
		}
		lines = append(lines, line(t.Muted, msg))
	}
	for len(lines) < rows+3 {
		lines = append(lines, common.Left("", iw))
	}
	lines = append(lines, common.Left("", iw), line(t.Muted, m.help()))
	return common.Box(t, "Alerts (esc to close)", lines, iw+2)
}

// help names the keys that act on what the tab shows: selecting with
// more than one row, pausing or resuming and deleting the selected alert.
func (m *Model) help() string {
	sep, updown := " · ", "↑↓"
	if m.c.Theme.Glyphs.ASCII {
		sep, updown = " - ", "up/down"
	}
	parts := []string{"tab alerts/fired"}
	n := len(m.list)
	if m.tab == tabFired {
		n = len(m.fired)
	}
	if n > 1 {
		parts = append(parts, updown+" select")
	}
	if m.tab == tabAlerts && n > 0 {
		if m.list[m.sel[tabAlerts]].Active() {
			parts = append(parts, "space pause")
		} else {
			parts = append(parts, "space resume")
		}
		parts = append(parts, "d delete")
	}
	return " " + strings.Join(append(parts, "esc close"), sep)
}

func (m *Model) tabBar() string {
	unread := 0
	for _, f := range m.fired {
		if !f.Read {
			unread++
		}
	}
	a := "Alerts (" + strconv.Itoa(len(m.list)) + ")"
	f := "Fired (" + strconv.Itoa(len(m.fired))
	if unread > 0 {
		f += ", " + strconv.Itoa(unread) + " new"
	}
	f += ")"
	if m.tab == tabAlerts {
		return " [" + a + "]   " + f + " "
	}
	return "  " + a + "   [" + f + "]"
}

func (m *Model) alertRows() []row {
	t := m.c.Theme
	out := []row{{"", fmt.Sprintf(" %4s  %-7s %-44s %-11s %5s  %s", "ID", "STATE", "ALERT", "MODE", "FIRED", "LAST")}}
	for _, a := range m.list {
		last := ""
		if !a.Last.IsZero() {
			last = a.Last.Local().Format("01-02 15:04:05")
		}
		style := t.Text
		switch {
		case a.Done:
			style = t.Muted
		case a.Paused:
			style = t.Warn
		}
		cond := a.Condition()
		if a.Then != nil { // what it does to an algo is part of what it is
			cond += " then " + a.Then.String()
		}
		out = append(out, row{style, fmt.Sprintf(" %4d  %-7s %-44s %-11s %5d  %s", a.ID, a.State(), clean(cond), a.Mode(), a.Count, last)})
	}
	return out
}

func (m *Model) firedRows() []row {
	t := m.c.Theme
	out := []row{{"", fmt.Sprintf(" %-14s %4s  %s", "TIME", "#", "MESSAGE")}}
	for _, f := range m.fired {
		style, mark := t.Muted, " "
		if !f.Read {
			style, mark = t.Accent, "*"
		}
		out = append(out, row{style, fmt.Sprintf("%s%-14s %4d  %s", mark, f.Time.Local().Format("01-02 15:04:05"), f.Alert, clean(f.Message))})
	}
	return out
}

// clean drops control characters: a message may quote the venue (a
// reject reason) and must not reach the terminal as a sequence.
func clean(s string) string {
	return strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) {
			return ' '
		}
		return r
	}, s)
}
