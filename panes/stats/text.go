package stats

import (
	"strings"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"
)

// line builds one styled line and knows its width in cells.
type line struct {
	b strings.Builder
	w int
}

// put appends text in a style. Text is plain (no escape sequences).
func (l *line) put(s lipgloss.Style, text string) *line {
	if text == "" {
		return l
	}
	l.b.WriteString(s.Render(text))
	l.w += width(text)
	return l
}

// putN appends text whose width is known (chart glyphs are one cell each),
// sparing the grapheme segmentation of long bars.
func (l *line) putN(s lipgloss.Style, text string, w int) *line {
	if text == "" {
		return l
	}
	l.b.WriteString(s.Render(text))
	l.w += w
	return l
}

// width is the cell width of plain text, with a fast path for ASCII.
func width(s string) int {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return ansi.StringWidth(s)
		}
	}
	return len(s)
}

func (l *line) space(n int) *line {
	if n > 0 {
		l.b.WriteString(strings.Repeat(" ", n))
		l.w += n
	}
	return l
}

// fit returns the line cut or padded to exactly w cells.
func (l *line) fit(w int, ellipsis string) string {
	if l.w > w {
		t := ansi.Truncate(l.b.String(), w, ellipsis)
		return t + strings.Repeat(" ", max(0, w-ansi.StringWidth(t)))
	}
	return l.b.String() + strings.Repeat(" ", w-l.w)
}

// cut shortens plain text to w cells.
func cut(s string, w int, ellipsis string) string {
	if w <= 0 {
		return ""
	}
	if ansi.StringWidth(s) <= w {
		return s
	}
	return ansi.Truncate(s, w, ellipsis)
}

func padRight(s string, w int) string {
	return s + strings.Repeat(" ", max(0, w-ansi.StringWidth(s)))
}

func padLeft(s string, w int) string {
	return strings.Repeat(" ", max(0, w-ansi.StringWidth(s))) + s
}

// blank returns h lines of w spaces.
func blank(w, h int) []string {
	out := make([]string, h)
	for i := range out {
		out[i] = strings.Repeat(" ", w)
	}
	return out
}

// beside joins two blocks of lines side by side with a gap; the shorter
// block is padded with blank lines of its width.
func beside(a []string, aw int, b []string, bw int, gap int) []string {
	n := max(len(a), len(b))
	out := make([]string, n)
	sep := strings.Repeat(" ", gap)
	for i := range out {
		l, r := strings.Repeat(" ", aw), strings.Repeat(" ", bw)
		if i < len(a) {
			l = a[i]
		}
		if i < len(b) {
			r = b[i]
		}
		out[i] = l + sep + r
	}
	return out
}
