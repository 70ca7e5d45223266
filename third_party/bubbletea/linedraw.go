package tea

// tradedeck fork: a frame is drawn one line at a time, and a line whose
// text and starting style equal the last frame's is copied from what the
// terminal renderer shows instead of being parsed again, and is not
// compared cell by cell again; a line that changed in part is parsed
// and compared from a little before its first changed byte to a little
// after its last. See third_party/README.md.

import (
	"strings"

	uv "github.com/charmbracelet/ultraviolet"
)

// markEvery is how many columns apart a line's resume points are: a
// changed stretch is parsed with up to this many columns either side.
const markEvery = 4

// shownLine is one line of the last frame drawn line by line: its text
// (a substring of that frame, or the line handed over in View.Lines;
// only the last frame's are kept alive by it),
// the pen in effect at its start and at its end, and its resume points
// (s.marks[m0:m1]).
type shownLine struct {
	text       string
	start, end uv.Pen
	m0, m1     int32
}

// drawChangedLines draws content into buf line by line, reusing the lines
// the last frame had unchanged, and reports whether it could; when it
// could not, buf holds nothing useful and the caller draws the whole
// frame. reuse says the terminal renderer still shows the last frame at
// this size and width method; kept that buf holds the last frame too (the
// same buffer came back), so an unchanged line is left as it is instead of
// copied from the terminal renderer's model (200 cells of 112 bytes,
// pointers included: most of an idle frame's cost).
func (s *cursedRenderer) drawChangedLines(buf uv.ScreenBuffer, lines []string, altScreen, reuse, kept bool) bool {
	if s.wholeFrames {
		return false
	}
	w, h := buf.Width(), buf.Height()
	// Inline frames grow and shrink with their content: the long way.
	if !altScreen || h != s.height || len(lines) > h {
		return false // taller than the screen: the whole-frame path drops the top
	}
	if !reuse {
		s.forgetShown()
	}
	if len(buf.Touched) != h {
		buf.Touched = make([]*uv.LineData, h)
	}
	if len(s.touched) != h {
		s.touched = make([]uv.LineData, h)
	}
	next := s.nextShown[:0]
	s.nextMarks = s.nextMarks[:0]
	var pen uv.Pen
	y := 0
	for ; y < len(lines); y++ {
		line := lines[y]
		var old *shownLine
		if y < len(s.shown) && penEqual(&s.shown[y].start, &pen) &&
			(kept || s.scr.CopyShownLine(buf.RenderBuffer, y)) {
			old = &s.shown[y] // buf's row y holds it
		}
		nl := shownLine{text: line, start: pen, m0: int32(len(s.nextMarks))}
		first, last := -1, -1 // the columns drawn: none
		switch {
		case old != nil && old.text == line:
			pen = old.end
			s.nextMarks = append(s.nextMarks, s.marks[old.m0:old.m1]...)
		case strings.IndexByte(line, '\n') >= 0 || strings.IndexByte(line, '\r') >= 0:
			// A "\r\n" is a newline only to the whole-frame parser, and
			// a line handed over with a newline in it is two.
			return false
		case old != nil && s.drawPart(buf.RenderBuffer, buf.Method, y, old, line, &pen, &first, &last):
		default:
			first, last = 0, w
			if !s.drawWhole(buf.RenderBuffer, buf.Method, y, line, &pen) {
				return false // the line wraps: only the whole-frame parser knows where to
			}
		}
		// Each line its own LineData: a buffer's SetCell widens its line's in place.
		s.touched[y] = uv.LineData{FirstCell: first, LastCell: last}
		buf.Touched[y] = &s.touched[y]
		nl.end, nl.m1 = pen, int32(len(s.nextMarks))
		next = append(next, nl)
	}
	for ; y < h; y++ { // below the frame: blank
		for x := range w {
			buf.SetCell(x, y, nil)
		}
		s.touched[y] = uv.LineData{FirstCell: 0, LastCell: w}
		buf.Touched[y] = &s.touched[y]
	}
	old := s.shown
	clear(old) // its texts are an older frame's: let it go
	s.shown, s.nextShown = next, old[:0]
	s.marks, s.nextMarks = s.nextMarks, s.marks
	return true
}

// drawWhole draws line into row y of buf from column 0 with pen, the
// row cleared first, its resume points appended to s.nextMarks.
func (s *cursedRenderer) drawWhole(buf *uv.RenderBuffer, m uv.WidthMethod, y int, line string, pen *uv.Pen) bool {
	row := buf.Lines[y]
	for x := range row {
		row.Set(x, nil)
	}
	d := &s.lineDraw
	*d = uv.LineDraw{Line: line, Pen: *pen, Every: markEvery, Tail: len(line) + 1, Marks: s.nextMarks}
	ok := d.Draw(buf.Buffer, m, y)
	s.nextMarks, *pen = d.Marks, d.Pen
	d.Marks = nil
	return ok
}

// drawPart draws line into row y of buf, which holds old (the last
// frame's line y, drawn with the same starting pen), parsing only the
// stretch around what changed: from the last resume point of old before
// the first changed byte to the first one after the last where the old
// line's cells go on. It reports false when it could not (the row may
// then hold anything: the caller draws the line whole); otherwise the
// columns it drew are [*first, *last).
func (s *cursedRenderer) drawPart(buf *uv.RenderBuffer, m uv.WidthMethod, y int, old *shownLine, line string, pen *uv.Pen, first, last *int) bool {
	marks, base := s.marks[old.m0:old.m1], len(s.nextMarks)
	pre := commonPrefix(old.text, line)
	suf := commonSuffix(old.text[pre:], line[pre:])
	// Resume at the last point whose whole first character is unchanged
	// (a grapheme's extent depends on the character after it).
	i := len(marks)
	for i > 0 && int(marks[i-1].Off)+4 > pre {
		i--
	}
	d := &s.lineDraw
	*d = uv.LineDraw{Line: line, Pen: *pen, Every: markEvery,
		Tail: len(line) - suf, Delta: len(line) - len(old.text), Old: marks,
		Marks: append(s.nextMarks, marks[:max(i-1, 0)]...)}
	row := buf.Lines[y]
	if i > 0 { // the pen at a resume point is its cell's
		at := marks[i-1]
		c := &row[at.X]
		d.From, d.X = int(at.Off), int(at.X)
		d.Pen = uv.Pen{Style: c.Style, Link: c.Link}
	}
	ok := d.Draw(buf.Buffer, m, y)
	s.nextMarks = d.Marks
	d.Marks, d.Old = nil, nil
	if !ok {
		s.nextMarks = s.nextMarks[:base] // drop what this draw added
		return false
	}
	*first = d.X
	if d.X > 0 || d.Stopped {
		s.partLines++
	}
	if d.Stopped { // the rest is old's, pen and points included
		*last, *pen = d.EndX, old.end
		for _, mk := range marks {
			if int(mk.Off) >= d.StopOff-d.Delta {
				s.nextMarks = append(s.nextMarks, uv.LineMark{Off: mk.Off + int32(d.Delta), X: mk.X})
			}
		}
		return true
	}
	for x := d.EndX; x < len(row); x++ {
		row.Set(x, nil)
	}
	*last, *pen = len(row), d.Pen
	return true
}

// commonPrefix is the length of the longest common prefix of a and b.
func commonPrefix(a, b string) int {
	n := min(len(a), len(b))
	i := 0
	for i+32 <= n && a[i:i+32] == b[i:i+32] {
		i += 32
	}
	for i < n && a[i] == b[i] {
		i++
	}
	return i
}

// commonSuffix is the length of the longest common suffix of a and b.
func commonSuffix(a, b string) int {
	n := min(len(a), len(b))
	i := 0
	for i+32 <= n && a[len(a)-i-32:len(a)-i] == b[len(b)-i-32:len(b)-i] {
		i += 32
	}
	for i < n && a[len(a)-1-i] == b[len(b)-1-i] {
		i++
	}
	return i
}

// forgetShown drops the last frame's lines: the next frame is drawn whole.
func (s *cursedRenderer) forgetShown() {
	clear(s.shown[:cap(s.shown)])
	clear(s.nextShown[:cap(s.nextShown)])
	s.shown, s.nextShown, s.shownScr = s.shown[:0], s.nextShown[:0], nil
	s.marks, s.nextMarks = s.marks[:0], s.nextMarks[:0]
}

func penEqual(a, b *uv.Pen) bool {
	return a.Style.Equal(&b.Style) && a.Link.Equal(&b.Link)
}
