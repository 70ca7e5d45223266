package stats

import (
	"image/color"

	"charm.land/lipgloss/v2"

	"tradedeck/theme"
)

// styles colour the pane, made from the dashboard's theme (its palette;
// attributes only in mono, where the selection still shows as [brackets]
// in the text). lipgloss styles because ntcharts draws with them.
type styles struct {
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

// stylesOf makes the pane's styles from a theme.
func stylesOf(t *theme.Theme) styles {
	p := t.Palette
	fg := func(c color.Color) lipgloss.Style {
		s := lipgloss.NewStyle()
		if c != nil {
			s = s.Foreground(c)
		}
		return s
	}
	s := styles{
		Title: fg(p.Fg).Bold(true), Label: fg(p.Accent), Muted: fg(p.Muted), Value: fg(p.Fg),
		Selected: lipgloss.NewStyle().Bold(true).Reverse(true),
		Up:       fg(p.Buy), Down: fg(p.Sell), Bar: fg(p.Accent), Series: fg(p.Warn), Axis: fg(p.Muted),
		Stale: fg(p.Warn).Bold(true), Error: fg(p.Error).Bold(true),
	}
	if p.Fg == nil { // mono: the sides and states by attribute
		s.Muted, s.Axis = s.Muted.Faint(true), s.Axis.Faint(true)
		s.Up, s.Error = s.Up.Bold(true), s.Error.Reverse(true)
	}
	return s
}

// glyphs are the theme's characters, named for what charts draw with them.
type glyphs struct {
	vEighths []string // column tops, 0..8 eighths of a cell, bottom up
	hEighths []string // bar ends, 0..8 eighths of a cell, left to right
	axisV    string
	axisTick string
	corner   string
	axisH    string
	ellipsis string
	dot      string // separates items in a line
	up, down string
	ascii    bool
}

func glyphsOf(g theme.Glyphs) *glyphs {
	return &glyphs{vEighths: g.VolEighths, hEighths: g.BarEighths, axisV: g.V, axisTick: g.AxisTick,
		corner: g.AxisCorner, axisH: g.H, ellipsis: g.Ellipsis, dot: g.Sep, up: g.Up, down: g.Down, ascii: g.ASCII}
}
