package tea

import "strings"

// tradedeck fork: a View may hand its content over as lines (View.Lines).
// The renderer draws an alt-screen frame line by line anyway
// (linedraw.go), so a model that keeps the strings of its unchanged lines
// spares the frame-sized string it would otherwise build, copy and hand
// over every frame (~40 KB at 200x60: most of the bytes a busy dashboard
// allocated, each one a large allocation whose pages the runtime had
// returned to the system), and the renderer finds an unchanged line by
// its string's identity instead of comparing its bytes. An inline frame,
// or one that cannot be drawn line by line, is joined and drawn whole as
// upstream draws Content.

// viewEmpty reports a view with nothing to show.
func viewEmpty(v *View) bool {
	if v.Lines != nil {
		return len(v.Lines) == 0
	}
	return len(v.Content) == 0
}

// viewLines is v's content as lines: v.Lines, or Content cut at its
// newlines into a slice the renderer reuses.
func (s *cursedRenderer) viewLines(v *View) []string {
	if v.Lines != nil {
		return v.Lines
	}
	s.cut = s.cut[:0]
	for rest, more := v.Content, true; more; {
		var line string
		line, rest, more = strings.Cut(rest, "\n")
		s.cut = append(s.cut, line)
	}
	return s.cut
}
