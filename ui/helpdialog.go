package ui

import (
	"slices"
	"unicode/utf8"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"tradedeck/panes/common"
)

type helpGroup struct {
	title    string
	bindings []key.Binding
}

// helpDialog is the '?' full help: every binding by group, and the
// commands of the ':' line.
type helpDialog struct {
	c       common.Common
	groups  []helpGroup
	trading []string // the trader's ':' commands
	w, h    int
	last    helpView // the last view and what it was made of
}

// helpView is a help drawn: an open help is asked for its view on every
// message, the clock's and each book's, and draws the same box again
// unless a binding, the commands or the size changed.
type helpView struct {
	cols   [][]helpEntry
	titles []string
	w, h   int
	out    string
}

func (v *helpView) same(cols [][]helpEntry, titles []string, w, h int) bool {
	return v.out != "" && v.w == w && v.h == h && slices.Equal(v.titles, titles) &&
		slices.EqualFunc(v.cols, cols, func(a, b []helpEntry) bool { return slices.Equal(a, b) })
}

func (d *helpDialog) SetSize(w, h int) { d.w, d.h = w, h }

func (d *helpDialog) Update(msg tea.Msg) (common.Dialog, tea.Cmd) {
	if k, ok := msg.(tea.KeyPressMsg); ok {
		if key.Matches(k, d.c.Keys.Back, d.c.Keys.Help, d.c.Keys.Quit) || k.String() == "enter" {
			return d, common.Close
		}
	}
	return d, nil
}

// helpEntry is one line of a help column: a key (or command) and what it
// does.
type helpEntry struct{ k, desc string }

// columns are the help's columns: one per group plus the commands.
func (d *helpDialog) columns() (cols [][]helpEntry, titles []string) {
	t := d.c.Theme
	type entry = helpEntry
	for _, g := range d.groups {
		var col []entry
		for _, b := range g.bindings {
			if !b.Enabled() || b.Help().Key == "" {
				continue
			}
			col = append(col, entry{keyLabel(b.Help().Key, t.Glyphs.ASCII), b.Help().Desc})
		}
		cols = append(cols, col)
		titles = append(titles, g.title)
	}
	var cmds []entry
	for _, c := range append(slices.Clone(Commands), d.trading...) {
		cmds = append(cmds, entry{":" + c, ""})
	}
	return append(cols, cmds), append(titles, "Commands")
}

func (d *helpDialog) View() string {
	cols, titles := d.columns()
	if d.last.same(cols, titles, d.w, d.h) {
		return d.last.out
	}
	d.last = helpView{cols: cols, titles: titles, w: d.w, h: d.h, out: d.draw(cols, titles)}
	return d.last.out
}

// draw lays the columns out in bands as wide as the screen allows.
func (d *helpDialog) draw(cols [][]helpEntry, titles []string) string {
	t := d.c.Theme
	widths := make([]int, len(cols))
	rows := 0
	for i, col := range cols {
		widths[i] = utf8.RuneCountInString(titles[i])
		for _, e := range col {
			widths[i] = max(widths[i], utf8.RuneCountInString(e.k)+1+utf8.RuneCountInString(e.desc))
		}
		widths[i] += 3
		rows = max(rows, len(col))
	}
	// Too wide: stack the columns in two bands.
	bands := [][]int{{}}
	acc := 2
	for i, w := range widths {
		if acc+w > d.w-4 && len(bands[len(bands)-1]) > 0 {
			bands = append(bands, []int{})
			acc = 2
		}
		bands[len(bands)-1] = append(bands[len(bands)-1], i)
		acc += w
	}
	iw := 0
	for _, band := range bands {
		bw := 1
		for _, i := range band {
			bw += widths[i]
		}
		iw = max(iw, bw)
	}
	iw = min(iw, d.w-2)
	var lines []string
	for _, band := range bands {
		var l common.Line
		l.Space(1)
		for _, i := range band {
			l.Styled(t.TitleFocus, common.Left(titles[i], widths[i]))
		}
		lines = append(lines, cutLine(&l, iw))
		n := 0
		for _, i := range band {
			n = max(n, len(cols[i]))
		}
		for r := 0; r < n; r++ {
			l.Reset()
			l.Space(1)
			for _, i := range band {
				if r < len(cols[i]) {
					e := cols[i][r]
					l.Styled(t.Accent, e.k).Space(1).Styled(t.Muted, common.Left(e.desc, widths[i]-utf8.RuneCountInString(e.k)-1))
				} else {
					l.Space(widths[i])
				}
			}
			lines = append(lines, cutLine(&l, iw))
		}
		lines = append(lines, common.Left("", iw))
	}
	if len(lines) > d.h-2 {
		lines = lines[:max(d.h-2, 1)]
	}
	return common.Box(t, "Help (esc to close)", lines, iw+2)
}

func cutLine(l *common.Line, w int) string {
	if l.Width() > w {
		return truncate(l.String(l.Width()), w, "")
	}
	return l.String(w)
}
