package account

import (
	"strings"

	"tradedeck/panes/common"
	"tradedeck/theme"
)

// table renders rows under a header into exactly h lines of w cells,
// keeping the cursor row visible. Columns are as wide as their widest
// cell (capped), the last one takes what is left.
func table(t *theme.Theme, header []string, rows [][]string, cursor, w, h int, selectable bool) []string {
	if h <= 0 {
		return nil
	}
	widths := make([]int, len(header))
	for i, hd := range header {
		widths[i] = len([]rune(hd))
	}
	for _, r := range rows {
		for i := range widths {
			if i < len(r) {
				widths[i] = max(widths[i], len([]rune(r[i])))
			}
		}
	}
	for i := range widths {
		widths[i] = min(widths[i], 44)
	}
	line := func(cells []string) string {
		var sb strings.Builder
		for i, wd := range widths {
			c := ""
			if i < len(cells) {
				c = cells[i]
			}
			sb.WriteString(common.Fit(c, wd, t.Glyphs.Ellipsis))
			if i < len(widths)-1 {
				sb.WriteString("  ")
			}
		}
		return common.Fit(sb.String(), w, t.Glyphs.Ellipsis)
	}
	out := []string{t.Bold + line(header) + theme.Reset}
	room := h - 1
	start := 0
	if cursor >= room {
		start = cursor - room + 1
	}
	for i := start; i < len(rows) && len(out) < h; i++ {
		l := line(rows[i])
		if selectable && i == cursor {
			l = t.Selected + l + theme.Reset
		}
		out = append(out, l)
	}
	for len(out) < h {
		out = append(out, strings.Repeat(" ", max(w, 0)))
	}
	return out
}
