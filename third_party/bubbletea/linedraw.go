package tea

// tradedeck fork: a frame is drawn one line at a time, and a line whose
// text and starting style equal the last frame's is copied from what the
// terminal renderer shows instead of being parsed again, and is not
// compared cell by cell again. See third_party/README.md.

import (
	"strings"

	uv "github.com/charmbracelet/ultraviolet"
)

// shownLine is one line of the last frame drawn line by line: its text
// (a substring of that frame, which only the last frame is kept alive by)
// and the pen in effect at its start and at its end.
type shownLine struct {
	text       string
	start, end uv.Pen
}

// drawChangedLines draws content into buf line by line, reusing the lines
// the last frame had unchanged, and reports whether it could; when it
// could not, buf holds nothing useful and the caller draws the whole
// frame. reuse says the terminal renderer still shows the last frame at
// this size and width method; kept that buf holds the last frame too (the
// same buffer came back), so an unchanged line is left as it is instead of
// copied from the terminal renderer's model (200 cells of 112 bytes,
// pointers included: most of an idle frame's cost).
func (s *cursedRenderer) drawChangedLines(buf uv.ScreenBuffer, content string, altScreen, reuse, kept bool) bool {
	if s.wholeFrames {
		return false
	}
	w, h := buf.Width(), buf.Height()
	// Inline frames grow and shrink with their content, and a "\r\n" is
	// a newline only to the whole-frame parser: both take the long way.
	if !altScreen || h != s.height || strings.IndexByte(content, '\r') >= 0 {
		return false
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
	// Each line its own LineData: a buffer's SetCell widens its line's in place.
	mark := func(y int, changed bool) {
		s.touched[y] = uv.LineData{FirstCell: -1, LastCell: -1}
		if changed {
			s.touched[y] = uv.LineData{FirstCell: 0, LastCell: w}
		}
		buf.Touched[y] = &s.touched[y]
	}
	next := s.nextShown[:0]
	var pen uv.Pen
	y := 0
	for rest, more := content, true; more; y++ {
		var line string
		line, rest, more = strings.Cut(rest, "\n")
		if y >= h {
			return false // taller than the screen: the whole-frame path drops the top
		}
		start := pen
		if y < len(s.shown) && s.shown[y].text == line && penEqual(&s.shown[y].start, &start) &&
			(kept || s.scr.CopyShownLine(buf.RenderBuffer, y)) {
			pen = s.shown[y].end
			mark(y, false)
		} else {
			if !uv.DrawStyledLine(buf, buf.Method, y, line, &pen) {
				return false // the line wraps: only the whole-frame parser knows where to
			}
			mark(y, true)
		}
		next = append(next, shownLine{text: line, start: start, end: pen})
	}
	for ; y < h; y++ { // below the frame: blank
		for x := range w {
			buf.SetCell(x, y, nil)
		}
		mark(y, true)
	}
	old := s.shown
	clear(old) // its texts are an older frame's: let it go
	s.shown, s.nextShown = next, old[:0]
	return true
}

// forgetShown drops the last frame's lines: the next frame is drawn whole.
func (s *cursedRenderer) forgetShown() {
	clear(s.shown[:cap(s.shown)])
	clear(s.nextShown[:cap(s.nextShown)])
	s.shown, s.nextShown, s.shownScr = s.shown[:0], s.nextShown[:0], nil
}

func penEqual(a, b *uv.Pen) bool {
	return a.Style.Equal(&b.Style) && a.Link.Equal(&b.Link)
}
