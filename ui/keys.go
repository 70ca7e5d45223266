package ui

import (
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"tradedeck/panes/common"
)

// key routes a key press past the gate (gate.go): dialogs first, then the command line, the
// global keys, the trader, and finally the focused pane.
func (m *Model) key(msg tea.KeyPressMsg) tea.Cmd {
	k := m.c.Keys
	if cmd, stop := m.gate(msg); stop {
		return cmd
	}
	if n := len(m.dialogs); n > 0 {
		d, cmd := m.dialogs[n-1].Update(msg)
		if len(m.dialogs) == n {
			m.dialogs[n-1] = d
		}
		return cmd
	}
	if m.cmdActive {
		return m.cmdKey(msg)
	}
	switch {
	case key.Matches(msg, k.Quit):
		return tea.Quit
	case key.Matches(msg, k.Help):
		return common.Open(m.helpDialog())
	case key.Matches(msg, k.Search):
		return common.Open(newPicker(m))
	case key.Matches(msg, k.Command):
		m.cmdActive = true
		m.cmdline.Reset()
		m.cmdline.SetSuggestions(m.suggestions())
		m.helpBar.invalidate()
		return m.cmdline.Focus()
	case key.Matches(msg, k.Back):
		switch {
		case m.page != "":
			return m.showPage("")
		case m.zoom:
			m.zoom = false
			m.relayout()
		}
		return nil
	case m.page != "":
		// A page gets the rest of the keys.
		_, cmd := m.pages[m.page].Update(msg)
		m.retitle()
		return cmd
	case key.Matches(msg, k.NextPane):
		m.cycle(1)
		return nil
	case key.Matches(msg, k.PrevPane):
		m.cycle(-1)
		return nil
	case key.Matches(msg, k.FocusPane):
		if r := []rune(msg.String()); len(r) == 1 && r[0] >= '1' && r[0] <= '9' {
			m.setFocus(PaneID(r[0] - '1'))
		}
		return nil
	case key.Matches(msg, k.Zoom):
		m.zoom = !m.zoom
		m.relayout()
		return nil
	case key.Matches(msg, k.Stats):
		if _, ok := m.pages["stats"]; ok {
			return m.showPage("stats")
		}
	}
	if cmd, ok := m.algoKey(msg); ok { // the Algos tab's keys before the trader's c
		return cmd
	}
	if cmd, ok := m.trader.HandleKey(m.c, msg, m.tradeFocus()); ok {
		return cmd
	}
	for _, h := range m.hooks {
		if ok, cmd := h.Key(m, msg); ok {
			return cmd
		}
	}
	_, cmd := m.panes[m.focus].Update(msg)
	m.retitle()
	m.helpBar.invalidate() // a pane's keys may depend on its state (tabs)
	return cmd
}

// mouse focuses the pane under a click and hands it the event in its own
// coordinates; the wheel scrolls the pane under the pointer.
func (m *Model) mouse(e tea.Mouse, wheel bool) tea.Cmd {
	if len(m.dialogs) > 0 || m.c.Width < MinWidth || m.c.Height < MinHeight {
		return nil
	}
	if m.page != "" {
		r := bodyRect(m.c.Width, m.c.Height)
		if !r.contains(e.X, e.Y) {
			return nil
		}
		_, cmd := m.pages[m.page].Update(common.PaneMouse{X: e.X - r.x - 1, Y: e.Y - r.y - 1, Button: e.Button, Wheel: wheel})
		return cmd
	}
	for i, r := range m.rects {
		if r.w == 0 || !r.contains(e.X, e.Y) {
			continue
		}
		p := PaneID(i)
		if !wheel && e.Button == tea.MouseLeft && p != m.focus {
			m.setFocus(p)
		}
		_, cmd := m.panes[p].Update(common.PaneMouse{X: e.X - r.x - 1, Y: e.Y - r.y - 1, Button: e.Button, Wheel: wheel})
		m.retitle()
		return cmd
	}
	return nil
}

// tradeFocus is what the trader needs to know of the user's focus.
func (m *Model) tradeFocus() Focus {
	f := Focus{Symbol: m.symbol}
	if o, ok := m.tables.SelectedOrder(); ok {
		f.Selected = &o
	}
	return f
}
