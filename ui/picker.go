package ui

import (
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"

	"tradedeck/panes/common"
)

// picker is the '/' fuzzy symbol finder, a dialog.
type picker struct {
	c       common.Common
	input   textinput.Model
	all     []string
	matches []match
	cursor  int
	w, h    int
}

func newPicker(m *Model) *picker {
	all := m.allSymbols()
	ti := textinput.New()
	ti.Prompt = "/ "
	ti.Placeholder = "symbol"
	ti.CharLimit = 40
	ti.Focus()
	p := &picker{c: m.c, input: ti, all: all}
	p.SetSize(m.c.Width, m.c.Height)
	p.rerank()
	return p
}

func (p *picker) SetSize(w, h int) {
	p.w = min(56, max(w-4, 20))
	p.h = max(3, min(12, h-8))
	p.input.SetWidth(p.w - 6)
}

func (p *picker) rerank() {
	p.matches = rank(p.input.Value(), p.all)
	p.cursor = 0
}

func (p *picker) Update(msg tea.Msg) (common.Dialog, tea.Cmd) {
	if k, ok := msg.(tea.KeyPressMsg); ok {
		switch k.String() {
		case "esc":
			return p, common.Close
		case "enter":
			if p.cursor < len(p.matches) {
				s := p.matches[p.cursor].text
				return p, tea.Sequence(common.Close, func() tea.Msg { return common.SetSymbolMsg{Symbol: s} })
			}
			return p, nil
		case "up", "ctrl+p", "ctrl+k":
			p.cursor = max(0, p.cursor-1)
			return p, nil
		case "down", "ctrl+n", "ctrl+j", "tab":
			p.cursor = max(0, min(p.cursor+1, len(p.matches)-1))
			return p, nil
		}
		var cmd tea.Cmd
		before := p.input.Value()
		p.input, cmd = p.input.Update(k)
		if p.input.Value() != before {
			p.rerank()
		}
		return p, cmd
	}
	var cmd tea.Cmd
	p.input, cmd = p.input.Update(msg)
	return p, cmd
}

func (p *picker) View() string {
	t := p.c.Theme
	iw := p.w - 2
	lines := make([]string, 0, p.h+2)
	lines = append(lines, common.Left(" "+p.input.View(), iw))
	if len(lines[0]) > 0 {
		lines[0] = truncate(" "+p.input.View(), iw, "")
	}
	start := 0
	if p.cursor >= p.h {
		start = p.cursor - p.h + 1
	}
	for i := start; i < len(p.matches) && i < start+p.h; i++ {
		var l common.Line
		st := t.Text
		mark := "  "
		if i == p.cursor {
			st, mark = t.Selected, t.Glyphs.Dot+" "
		}
		l.Styled(t.Accent, " "+mark).Styled(st, common.Left(p.matches[i].text, iw-4))
		lines = append(lines, l.String(iw))
	}
	if len(p.matches) == 0 {
		lines = append(lines, common.Left("  no symbol matches", iw))
	}
	for len(lines) < p.h+1 {
		lines = append(lines, common.Left("", iw))
	}
	hint := "enter select · esc cancel"
	if t.Glyphs.ASCII {
		hint = "enter select, esc cancel"
	}
	lines = append(lines, t.Muted+common.Left("  "+hint, iw)+"\x1b[m")
	return common.Box(t, "Symbol", lines, p.w)
}
