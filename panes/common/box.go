package common

import (
	"strings"
	"unicode/utf8"

	"tradedeck/theme"
)

// BorderTop draws a box's top border, w cells wide, with a title (and an
// optional label such as the pane's digit) set into it.
func BorderTop(t *theme.Theme, label, title string, w int, focused bool) string {
	g := t.Glyphs
	bs, ts := t.Border, t.Title
	if focused {
		bs, ts = t.BorderFocus, t.TitleFocus
	}
	var l Line
	l.Styled(bs, g.TL)
	room := w - 2
	head := ""
	if label != "" {
		head = label + " "
	}
	head += title
	if room >= 4 && head != "" {
		head = " " + Cut(head, room-3) + " "
		l.Styled(bs, g.H)
		l.Styled(ts, head)
	}
	l.Styled(bs, strings.Repeat(g.H, max(0, w-1-l.Width())))
	l.Styled(bs, g.TR)
	return string(l.b)
}

// BorderBottom draws a box's bottom border with an optional right-aligned
// hint in it.
func BorderBottom(t *theme.Theme, hint string, w int, focused bool) string {
	g := t.Glyphs
	bs := t.Border
	if focused {
		bs = t.BorderFocus
	}
	var l Line
	l.Styled(bs, g.BL)
	room := w - 2
	if hint != "" && utf8.RuneCountInString(hint)+4 <= room {
		l.Styled(bs, strings.Repeat(g.H, room-utf8.RuneCountInString(hint)-3))
		l.Styled(t.Muted, " "+hint+" ")
		l.Styled(bs, g.H)
	} else {
		l.Styled(bs, strings.Repeat(g.H, max(0, room)))
	}
	l.Styled(bs, g.BR)
	return string(l.b)
}

// Box wraps lines (each already w-2 cells wide) in a border with a title:
// the frame dialogs draw themselves in.
func Box(t *theme.Theme, title string, lines []string, w int) string {
	var b strings.Builder
	b.WriteString(BorderTop(t, "", title, w, true))
	v := t.BorderFocus + t.Glyphs.V + theme.Reset
	for _, l := range lines {
		b.WriteByte('\n')
		b.WriteString(v)
		b.WriteString(l)
		b.WriteString(v)
	}
	b.WriteByte('\n')
	b.WriteString(BorderBottom(t, "", w, true))
	return b.String()
}
