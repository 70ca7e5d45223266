package uv

// tradedeck fork: drawing a frame one line at a time, so that a program
// redraws only the lines of its frame that changed (third_party/README.md).

import "github.com/charmbracelet/x/ansi"

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

// exactRange is the stretch of row y that may differ from the screen
// shown: [0, width) unless newbuf says its touched ranges are exact.
func exactRange(newbuf *RenderBuffer, y int) (lo, hi int) {
	w := newbuf.Width()
	if !newbuf.Exact || y >= len(newbuf.Touched) || newbuf.Touched[y] == nil {
		return 0, w
	}
	d := newbuf.Touched[y]
	return min(max(d.FirstCell, 0), w), min(max(d.LastCell, 0), w)
}

// partLine reports whether row y changed only in part, by an exact
// range (the rest of it is what the screen shows).
func partLine(newbuf *RenderBuffer, y int) bool {
	lo, hi := exactRange(newbuf, y)
	return newbuf.Exact && !unchangedLine(newbuf.Touched[y]) && (lo > 0 || hi < newbuf.Width())
}

// untouch marks row i untouched, in place where it has a mark already
// (upstream allocated two marks per row per frame).
func untouch(t []*LineData, i int) {
	if t[i] != nil {
		*t[i] = LineData{FirstCell: -1, LastCell: -1}
		return
	}
	t[i] = &LineData{FirstCell: -1, LastCell: -1}
}

// unchangedLine reports whether a line's LineData marks it drawn
// unchanged from the last frame (copied, not parsed): FirstCell and
// LastCell -1. Its scroll hashes are the last frame's.
func unchangedLine(d *LineData) bool { return d.FirstCell == -1 && d.LastCell == -1 }

// LineMark is a point of a styled line where drawing can resume: the
// byte offset of a grapheme's first byte, with no escape sequence
// pending, and the column that grapheme is drawn at. The pen there is
// the style and link of that column's cell, so a mark needs no pen of
// its own.
type LineMark struct{ Off, X int32 }

// LineDraw draws one line of a styled frame into a row that holds the
// last frame's version of the line, from a mark on: only the stretch
// that changed is parsed. The caller says where to start (From, X, Pen)
// and where the old line's unchanged tail begins (Tail, Delta, Old); the
// drawing stops at the first mark inside that tail where the column and
// the pen agree with the old line's, since every cell from there on is
// the old line's.
type LineDraw struct {
	Line  string // the new line
	From  int    // byte of Line to start at: a mark of the old line, or 0
	X     int    // its column
	Pen   Pen    // in effect at From; on return, at the end of Line (unless Stopped)
	Every int    // mark a grapheme at least this many columns after the last mark

	// The old line's tail: Line[Tail:] equals the old line from Tail-Delta
	// on, and Old are the old line's marks (sorted by Off).
	Tail, Delta int
	Old         []LineMark

	Marks   []LineMark // appended: the new line's marks from From up to where it stopped
	EndX    int        // the column after the last cell drawn
	Stopped bool       // stopped at StopOff (of Line), where the old line's cells go on
	StopOff int
}

// Draw draws d into row y of buf (cells left of d.X are left as they
// are; so are the cells from the stop on when it stops) and reports
// false when the line does not fit the row: the caller must then draw
// the whole frame.
func (d *LineDraw) Draw(buf *Buffer, m WidthMethod, y int) bool {
	if y < 0 || y >= len(buf.Lines) {
		return false
	}
	row := buf.Lines[y]
	p := ansi.GetParser()
	defer ansi.PutParser(p)
	decoder, method := ansi.DecodeSequenceWc[string], ansi.WcWidth
	if m == ansi.GraphemeWidth {
		decoder, method = ansi.DecodeSequence[string], ansi.GraphemeWidth
	}
	style, link := d.Pen.Style, d.Pen.Link
	str, off, x := d.Line[d.From:], d.From, d.X
	lastX, nextMark, old := -1, x, d.Old
	var state byte
	var pending Cell // escape sequences nobody reads collect here, as printString does
	for len(str) > 0 {
		seq, width, n, newState := decoder(str, state, p)
		if n == 1 && seq[0] > 0x1f && seq[0] < 0x7f && len(str) > 1 && str[1] >= 0xc0 {
			if cluster, cw := ansi.FirstGraphemeCluster(str, method); len(cluster) > 1 {
				seq, width, n = cluster, cw, len(cluster)
			}
		}
		switch {
		case width > 0:
			if state == 0 {
				if d.stopsAt(off, x, &old, row, &style, &link) {
					d.Stopped, d.StopOff, d.EndX = true, off, x
					return true
				}
				if x >= nextMark {
					d.Marks = append(d.Marks, LineMark{Off: int32(off), X: int32(x)})
					nextMark = x + max(d.Every, 1)
				}
			}
			if x+width > len(row) {
				return false // would wrap onto the next row
			}
			c := Cell{Content: internGrapheme(seq), Width: width, Style: style, Link: link}
			row.Set(x, &c)
			lastX, pending = x, Cell{}
			x += width
		case ansi.HasCsiPrefix(seq) && p.Command() == 'm':
			ReadStyle(p.Params(), &style)
		case ansi.HasOscPrefix(seq) && p.Command() == 8:
			ReadLink(p.Data(), &link)
		case seq == "\n" || seq == "\r":
			return false // one line only
		case seq[0] >= 0xc0: // a combining mark behind an escape: the last cell's
			if lastX < 0 {
				if d.From > 0 {
					return false // it belongs to a cell left of where this draw started
				}
				break // at a line's start it belongs to no cell, as printString has it
			}
			folded := row[lastX]
			folded.Content += seq
			row.Set(lastX, &folded)
		default:
			pending.Content += seq
		}
		state = newState
		str = str[n:]
		off += n
	}
	if !pending.IsZero() {
		row.Set(x, &pending) // as printString does; beyond the row it is dropped
	}
	d.Pen.Style, d.Pen.Link, d.EndX = style, link, x
	return true
}

// stopsAt reports whether the cells from column x on are the old line's:
// the rest of the line is the old line's rest, the old line had a mark
// there at the same column, and the pen is what the old line's cell at x
// (not drawn over yet) was drawn with.
func (d *LineDraw) stopsAt(off, x int, old *[]LineMark, row Line, style *Style, link *Link) bool {
	if off < d.Tail || d.Old == nil {
		return false
	}
	want := off - d.Delta
	for len(*old) > 0 && int((*old)[0].Off) < want {
		*old = (*old)[1:]
	}
	if len(*old) == 0 || int((*old)[0].Off) != want || int((*old)[0].X) != x || x >= len(row) {
		return false
	}
	c := &row[x]
	return c.Style.Equal(style) && c.Link.Equal(link)
}
