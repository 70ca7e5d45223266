package confirm

import (
	"strings"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"

	"tradedeck/panes/common"
	"tradedeck/theme"
)

// Frame draws body lines (which may carry SGR styles) inside a box of
// inner width w with the title in the top border, in the theme's glyphs.
// The trading dialogs (confirm, order form, account) share it.
func Frame(t *theme.Theme, title string, body []string, w int, border string) string {
	g := t.Glyphs
	var sb strings.Builder
	title = common.Cut(title, max(w-2, 0))
	top := g.H + " " + title + " "
	sb.WriteString(border + g.TL + theme.Reset + border + top + theme.Reset + border +
		strings.Repeat(g.H, max(w-utf8.RuneCountInString(top), 0)) + g.TR + theme.Reset + "\n")
	for _, line := range body {
		sb.WriteString(border + g.V + theme.Reset + " ")
		sb.WriteString(fitStyled(line, w-2) + theme.Reset)
		sb.WriteString(" " + border + g.V + theme.Reset + "\n")
	}
	sb.WriteString(border + g.BL + strings.Repeat(g.H, w) + g.BR + theme.Reset)
	return sb.String()
}

// fitStyled pads or cuts a styled line to w cells.
func fitStyled(s string, w int) string {
	n := ansi.StringWidth(s)
	if n > w {
		return ansi.Truncate(s, w, "") + theme.Reset
	}
	return s + strings.Repeat(" ", w-n)
}
