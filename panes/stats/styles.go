package stats

import "charm.land/lipgloss/v2"

// Styles colour the pane. DefaultStyles uses the 16 ANSI colours so the
// terminal's own palette applies; PlainStyles has none (NO_COLOR): the
// selection is still visible as [brackets] in the text.
type Styles struct {
	Title    lipgloss.Style // "Swap stats" and section titles
	Label    lipgloss.Style // field names
	Muted    lipgloss.Style // axis labels, secondary text
	Value    lipgloss.Style // numbers
	Selected lipgloss.Style // the selected network and period
	Up, Down lipgloss.Style // a change's sign
	Bar      lipgloss.Style // volume bars, source bars
	Series   lipgloss.Style // traders, trades and turnover series
	Axis     lipgloss.Style
	Stale    lipgloss.Style // the STALE marker
	Error    lipgloss.Style
}

// DefaultStyles are the colours used when the caller passes none.
func DefaultStyles() Styles {
	c := lipgloss.Color
	return Styles{
		Title:    lipgloss.NewStyle().Bold(true),
		Label:    lipgloss.NewStyle().Foreground(c("6")),
		Muted:    lipgloss.NewStyle().Foreground(c("8")),
		Value:    lipgloss.NewStyle(),
		Selected: lipgloss.NewStyle().Bold(true).Reverse(true),
		Up:       lipgloss.NewStyle().Foreground(c("2")),
		Down:     lipgloss.NewStyle().Foreground(c("1")),
		Bar:      lipgloss.NewStyle().Foreground(c("4")),
		Series:   lipgloss.NewStyle().Foreground(c("5")),
		Axis:     lipgloss.NewStyle().Foreground(c("8")),
		Stale:    lipgloss.NewStyle().Bold(true).Foreground(c("3")),
		Error:    lipgloss.NewStyle().Foreground(c("1")),
	}
}

// PlainStyles carry no colour or attribute at all (NO_COLOR).
func PlainStyles() Styles { return Styles{} }

// glyphs are the characters charts are drawn with.
type glyphs struct {
	vEighths [9]string // column tops, 0..8 eighths of a cell, bottom up
	hEighths [9]string // bar ends, 0..8 eighths of a cell, left to right
	axisV    string
	axisTick string
	corner   string
	axisH    string
	ellipsis string
	dot      string // separates items in a line
	up, down string
}

var unicodeGlyphs = glyphs{
	vEighths: [9]string{" ", "▁", "▂", "▃", "▄", "▅", "▆", "▇", "█"},
	hEighths: [9]string{" ", "▏", "▎", "▍", "▌", "▋", "▊", "▉", "█"},
	axisV:    "│", axisTick: "┤", corner: "└", axisH: "─", ellipsis: "…", dot: "·", up: "▲", down: "▼",
}

var asciiGlyphs = glyphs{
	vEighths: [9]string{" ", " ", ".", ".", ":", ":", "#", "#", "#"},
	hEighths: [9]string{" ", " ", " ", " ", "=", "=", "=", "=", "#"},
	axisV:    "|", axisTick: "+", corner: "+", axisH: "-", ellipsis: "~", dot: "-", up: "+", down: "-",
}
