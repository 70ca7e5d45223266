package uv

// tradedeck fork: drawing a frame one line at a time, so that a program
// redraws only the lines of its frame that changed (third_party/README.md).

// Pen is the style and hyperlink text is drawn with at some point of a
// styled string.
type Pen struct {
	Style Style
	Link  Link
}

// DrawStyledLine draws line, one line of a styled frame (no newline), into
// row y of buf from column 0, starting with pen and leaving in pen what is
// in effect at its end. It reports false when the line does not fit the
// row: drawn as part of the whole frame it would have wrapped onto the
// next row, so the caller must draw the whole frame instead.
func DrawStyledLine(buf Screen, m WidthMethod, y int, line string, pen *Pen) bool {
	w := buf.Bounds().Dx()
	for x := range w {
		buf.SetCell(x, y, nil)
	}
	// Unbounded to the right, so that the end tells whether the line ran
	// past the screen (cells beyond it are not stored).
	row := Rect(0, y, 1<<30, 1)
	_, end := printStringPen(buf, m, 0, y, row, line, false, "", pen)
	return end.Y == y && end.X <= w
}

// CopyShownLine copies row y of what the renderer last drew (its model of
// the terminal) into row y of dst, and reports whether it could: both must
// have the row and the same width.
func (s *TerminalRenderer) CopyShownLine(dst *RenderBuffer, y int) bool {
	if s.curbuf == nil || y < 0 || y >= s.curbuf.Height() || y >= dst.Height() ||
		s.curbuf.Width() != dst.Width() {
		return false
	}
	copy(dst.Lines[y], s.curbuf.Lines[y])
	return true
}

// touchRedrawn marks as touched in newbuf every line this render has
// already changed on screen by other means than transforming it: moved by
// a scroll, or erased by a clear to the bottom (which starts on the last
// line it keeps). Upstream every line of a frame is touched and so
// transformed back; a frame drawn one changed line at a time leaves the
// others untouched.
func (s *TerminalRenderer) touchRedrawn(newbuf *RenderBuffer) {
	for i, t := range s.curbuf.Touched {
		if i >= len(newbuf.Touched) {
			return
		}
		if t != nil && (t.FirstCell != -1 || t.LastCell != -1) {
			newbuf.Touched[i] = &LineData{FirstCell: 0, LastCell: newbuf.Width()}
		}
	}
}

// unchangedLine reports whether a line's LineData marks it drawn
// unchanged from the last frame (copied, not parsed): FirstCell and
// LastCell -1. Its scroll hashes are the last frame's.
func unchangedLine(d *LineData) bool { return d.FirstCell == -1 && d.LastCell == -1 }
