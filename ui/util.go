package ui

import "github.com/charmbracelet/x/ansi"

// truncate cuts a styled string to w cells, padding when shorter.
func truncate(s string, w int, tail string) string {
	out := ansi.Truncate(s, w, tail)
	if n := ansi.StringWidth(out); n < w {
		out += spaces(w - n)
	}
	return out
}

func spaces(n int) string {
	if n <= 0 {
		return ""
	}
	b := make([]byte, n)
	for i := range b {
		b[i] = ' '
	}
	return string(b)
}
