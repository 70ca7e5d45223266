package tea

// tradedeck fork: the line-by-line frame path must put on the terminal
// exactly what drawing every frame whole puts there (linedraw.go).

import (
	"bytes"
	"fmt"
	"image/color"
	"io"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/charmbracelet/colorprofile"
	uv "github.com/charmbracelet/ultraviolet"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/vt"
)

// frameGen makes a sequence of frames that change the way a dashboard's
// do, and the ways that defeat a line cache: a style left open at the end
// of a line (the next line starts with it), identical text under another
// starting style, lines shifted up or down (the renderer scrolls), wide
// characters, short frames (the renderer clears to the bottom), and lines
// too wide for the screen (the whole-frame parser wraps them). Hyperlinks
// only with links: upstream's renderer drops a link carried over a line
// end whichever way the frame is drawn, and differently on each.
type frameGen struct {
	r      *rand.Rand
	w, h   int
	lines  []string
	links  bool
	narrow bool        // no wide characters (as a dashboard: the renderer repaints a line with one whole)
	panes  [][3]string // lines made of three panes side by side (nextPanes)
}

var glyphs = []string{"a", "b", "7", ".", " ", "│", "█", "⣿", "─", "·", "中"}

var styles = []string{"\x1b[31m", "\x1b[1;32m", "\x1b[38;5;208m", "\x1b[48;2;10;20;30m", "\x1b[4m", "\x1b[7m", "\x1b[m"}

func (g *frameGen) line(maxWidth int) string {
	var b strings.Builder
	width := 0
	for width < maxWidth {
		switch g.r.IntN(8) {
		case 0:
			b.WriteString(styles[g.r.IntN(len(styles))])
		case 1:
			if g.links {
				if g.r.IntN(4) == 0 {
					b.WriteString(ansi.SetHyperlink("https://example.com/" + fmt.Sprint(g.r.IntN(3))))
				} else {
					b.WriteString(ansi.ResetHyperlink())
				}
			}
		default:
			gl := glyphs[g.r.IntN(len(glyphs))]
			if g.narrow && gl == "中" {
				gl = "="
			}
			gw := ansi.StringWidth(gl)
			if width+gw > maxWidth {
				return b.String()
			}
			b.WriteString(gl)
			width += gw
		}
	}
	return b.String()
}

func (g *frameGen) next() string {
	if g.lines == nil {
		for range g.h {
			g.lines = append(g.lines, g.line(g.w))
		}
	}
	for range 1 + g.r.IntN(4) {
		y := g.r.IntN(g.h)
		switch g.r.IntN(10) {
		case 0: // shift a block down by one, a new line on top
			end := y + g.r.IntN(g.h-y)
			copy(g.lines[y+1:end+1], g.lines[y:end])
			g.lines[y] = g.line(g.w)
		case 1: // and up
			end := y + g.r.IntN(g.h-y)
			copy(g.lines[y:end], g.lines[y+1:end+1])
			g.lines[end] = g.line(g.w)
		case 2: // leave a style open at the end, or close it
			if strings.HasSuffix(g.lines[y], "\x1b[m") {
				g.lines[y] = strings.TrimSuffix(g.lines[y], "\x1b[m")
			} else {
				g.lines[y] += styles[g.r.IntN(len(styles)-1)]
			}
		case 3:
			if g.r.IntN(8) == 0 { // too wide: wraps
				g.lines[y] = g.line(g.w) + "xyz"
			}
		default:
			g.lines[y] = g.line(g.w - g.r.IntN(10))
		}
	}
	lines := g.lines
	if g.r.IntN(15) == 0 {
		lines = lines[:g.h-1-g.r.IntN(4)] // a short frame
	}
	return strings.Join(lines, "\n")
}

// nextPanes makes frames whose lines are three panes side by side, as a
// dashboard's are: one pane's part of a line changes and the others stay
// (a price, a size), or one pane's column of parts scrolls down by one
// (the trades tape), so most changed lines changed in part. A pane may
// leave its style open into the next one.
func (g *frameGen) nextPanes() string {
	widths := [3]int{g.w / 4, g.w / 4, g.w - 2*(g.w/4)}
	if g.panes == nil {
		g.panes = make([][3]string, g.h)
		for y := range g.panes {
			for k := range 3 {
				g.panes[y][k] = g.line(widths[k])
			}
		}
	}
	for range 1 + g.r.IntN(3) {
		y, k := g.r.IntN(g.h), g.r.IntN(3)
		switch g.r.IntN(4) {
		case 0: // the tape scrolls: pane k of lines y.. moves down, a new part on top
			for i := g.h - 1; i > y; i-- {
				g.panes[i][k] = g.panes[i-1][k]
			}
			g.panes[y][k] = g.line(widths[k])
		case 1: // a narrower part: the line's later panes move left
			g.panes[y][k] = g.line(widths[k] - 1 - g.r.IntN(3))
		default:
			g.panes[y][k] = g.line(widths[k])
		}
	}
	lines := make([]string, g.h)
	for y, p := range g.panes {
		lines[y] = p[0] + p[1] + p[2]
	}
	if g.r.IntN(20) == 0 {
		lines = lines[:g.h-1] // a short frame
	}
	return strings.Join(lines, "\n")
}

func sameCell(got, want *uv.Cell) bool {
	if got == nil || want == nil {
		return got == want
	}
	return got.Content == want.Content && got.Width == want.Width && got.Style.Equal(&want.Style) && got.Link.Equal(&want.Link)
}

// sameText is sameCell but for hyperlinks (see frameGen), and for what
// a blank does not show: its foreground and weight. Upstream erases a
// line's blank end with the background alone.
func sameText(got, want *uv.Cell) bool {
	if got == nil || want == nil {
		return got == want
	}
	if got.Content == " " && want.Content == " " && (got.Style.Attrs|want.Style.Attrs)&uv.AttrReverse == 0 {
		g, w := got.Style, want.Style
		return g.Underline == w.Underline && (g.Bg == nil) == (w.Bg == nil) && (g.Bg == nil || colorsEqual(g.Bg, w.Bg))
	}
	return got.Content == want.Content && got.Width == want.Width && got.Style.Equal(&want.Style)
}

func colorsEqual(a, b color.Color) bool {
	ar, ag, ab, aa := a.RGBA()
	br, bg, bb, ba := b.RGBA()
	return ar == br && ag == bg && ab == bb && aa == ba
}

// screen is a renderer and the terminal it draws on.
type screen struct {
	out  bytes.Buffer
	r    *cursedRenderer
	term *vt.Emulator
}

func newScreen(t *testing.T, w, h int, whole bool) *screen {
	s := &screen{term: vt.NewEmulator(w, h)}
	s.r = newCursedRenderer(&s.out, []string{"TERM=xterm-256color"}, w, h)
	s.r.wholeFrames = whole
	s.r.setColorProfile(colorprofile.TrueColor)
	s.r.start()
	return s
}

func (s *screen) show(t *testing.T, frame string) {
	v := NewView(frame)
	v.AltScreen = true
	s.r.render(v)
	if err := s.r.flush(false); err != nil {
		t.Fatal(err)
	}
	if _, err := s.term.Write(s.out.Bytes()); err != nil {
		t.Fatal(err)
	}
	s.out.Reset()
}

// showLines is show with the frame handed over as lines (View.Lines).
func (s *screen) showLines(t *testing.T, lines []string) {
	v := View{Lines: lines, AltScreen: true}
	s.r.render(v)
	if err := s.r.flush(false); err != nil {
		t.Fatal(err)
	}
	if _, err := s.term.Write(s.out.Bytes()); err != nil {
		t.Fatal(err)
	}
	s.out.Reset()
}

// Frames handed over as lines (View.Lines), a line unchanged since the
// last frame handed over as the same string as a model keeping its lines
// does, put on the terminal what the frames mean, through the same paths
// (lines reused, drawn in part, the kept buffer). A line with a newline
// in it, or a "\r", goes the whole-frame way, as in Content.
func TestFramesAsLinesShowWhatTheyMean(t *testing.T) {
	for seed := range uint64(40) {
		t.Run(fmt.Sprint("seed", seed), func(t *testing.T) {
			const w, h = 40, 12
			scr := newScreen(t, w, h, false)
			g := &frameGen{r: rand.New(rand.NewPCG(seed, 1)), w: w, h: h}
			panes := seed >= 30
			var prev []string
			same, reused := 0, 0
			for i := range 300 {
				frame := g.next()
				if panes {
					frame = g.nextPanes()
				}
				lines := strings.Split(frame, "\n")
				if i%50 == 49 && len(lines) > 2 { // two lines handed over as one
					lines = append(append(lines[:1:1], lines[1]+"\n"+lines[2]), lines[3:]...)
				}
				for j := range lines {
					if j < len(prev) && prev[j] == lines[j] {
						lines[j] = prev[j]
						same++
					}
				}
				prev = lines
				scr.showLines(t, lines)
				if scr.r.shownScr != nil {
					reused += countUnchanged(scr.r)
				}
				means := uv.NewScreenBuffer(w, h)
				means.Clear()
				uv.NewStyledString(frame).Draw(means, means.Bounds())
				for y := range h {
					for x := range w {
						if got, want := scr.term.CellAt(x, y), means.CellAt(x, y); !sameText(got, want) {
							t.Fatalf("frame %d, cell %d,%d: the terminal shows %q %+v, the frame means %q %+v\nframe:\n%q", i, x, y, got.Content, got.Style, want.Content, want.Style, frame)
						}
					}
				}
			}
			if scr.r.keptFrames < 50 || reused < 500 || same < 500 {
				t.Fatalf("%d frames kept, %d lines reused, %d handed over again: the paths under test hardly ran", scr.r.keptFrames, reused, same)
			}
			if panes && scr.r.partLines < 300 {
				t.Fatalf("%d lines drawn in part: the path under test hardly ran", scr.r.partLines)
			}
		})
	}
}

// Two renderers get the same frames, one drawing them line by line (the
// fork) and one whole (upstream): after every frame both terminals show
// the same cells.
// Frames of panes side by side (nextPanes) do the same, most of their
// changed lines drawn in part.
func TestLineByLineFramesShowWhatWholeFramesShow(t *testing.T) {
	for seed := range uint64(40) {
		t.Run(fmt.Sprint("seed", seed), func(t *testing.T) {
			const w, h = 40, 12
			byLine, whole := newScreen(t, w, h, false), newScreen(t, w, h, true)
			g := &frameGen{r: rand.New(rand.NewPCG(seed, 1)), w: w, h: h}
			panes := seed >= 30
			reused, drawn := 0, 0
			for i := range 300 {
				frame := g.next()
				if panes {
					frame = g.nextPanes()
				}
				byLine.show(t, frame)
				whole.show(t, frame)
				if byLine.r.shownScr != nil {
					drawn++
					reused += countUnchanged(byLine.r)
				}
				means := uv.NewScreenBuffer(w, h)
				means.Clear()
				uv.NewStyledString(frame).Draw(means, means.Bounds())
				for y := range h {
					for x := range w {
						// What the frame means, drawn into a buffer: the
						// renderer's output (its jumps over unchanged
						// cells included) must put it on the terminal.
						if got, want := byLine.term.CellAt(x, y), means.CellAt(x, y); !sameText(got, want) {
							t.Fatalf("frame %d, cell %d,%d: the terminal shows %q %+v, the frame means %q %+v\nframe:\n%q", i, x, y, got.Content, got.Style, want.Content, want.Style, frame)
						}
						if got, want := byLine.term.CellAt(x, y), whole.term.CellAt(x, y); !sameCell(got, want) {
							t.Fatalf("frame %d, cell %d,%d: line by line shows %q %+v %+v, whole frames %q %+v %+v\nframe:\n%q", i, x, y, got.Content, got.Style, got.Link, want.Content, want.Style, want.Link, frame)
						}
					}
				}
			}
			if byLine.r.keptFrames < 50 {
				t.Fatalf("%d frames drawn into the buffer that held the last: the kept path hardly ran", byLine.r.keptFrames)
			}
			if drawn < 100 || reused < 500 {
				t.Fatalf("%d of 300 frames drawn line by line, %d lines reused: the path under test hardly ran", drawn, reused)
			}
			if panes && byLine.r.partLines < 300 {
				t.Fatalf("%d lines drawn in part: the path under test hardly ran", byLine.r.partLines)
			}
		})
	}
}

// countUnchanged is how many lines of the last frame were copied.
func countUnchanged(r *cursedRenderer) int {
	n := 0
	for _, d := range r.touched {
		if d.FirstCell == -1 && d.LastCell == -1 {
			n++
		}
	}
	return n
}

// BenchmarkFlush is one frame of a 160x48 screen where a few lines
// changed since the last (a calm market: a price, a size, the clock), drawn
// line by line (the fork) and whole (upstream).
func BenchmarkFlush(b *testing.B) {
	const w, h = 160, 48
	g := &frameGen{r: rand.New(rand.NewPCG(1, 1)), w: w, h: h}
	g.next()
	frames := make([]string, 64)
	for i := range frames {
		for range 3 { // a few lines change per frame
			y := g.r.IntN(h)
			g.lines[y] = g.line(w)
		}
		frames[i] = strings.Join(g.lines, "\n")
	}
	for _, whole := range []bool{false, true} {
		name := "byLine"
		if whole {
			name = "whole"
		}
		b.Run(name, func(b *testing.B) {
			var out bytes.Buffer
			r := newCursedRenderer(&out, []string{"TERM=xterm-256color"}, w, h)
			r.wholeFrames = whole
			r.setColorProfile(colorprofile.ANSI256)
			r.start()
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				v := NewView(frames[i%len(frames)])
				v.AltScreen = true
				r.render(v)
				if err := r.flush(false); err != nil {
					b.Fatal(err)
				}
				out.Reset()
			}
		})
	}
}

// A line changed in part must end up as the same cells as drawn whole,
// where where a grapheme ends depends on the bytes after it (a combining
// mark, an emoji modifier), a wide character moves what follows, and a
// style opened before the change runs through it. The terminal
// renderer's model of the screen is compared with the frame drawn whole.
func TestLinesChangedInPartHoldWhatWholeLinesHold(t *testing.T) {
	for _, m := range []ansi.Method{ansi.WcWidth, ansi.GraphemeWidth} {
		t.Run(fmt.Sprint("method", m), func(t *testing.T) { testLinesChangedInPart(t, m) })
	}
}

func testLinesChangedInPart(t *testing.T, m ansi.Method) {
	const w, h = 40, 3
	frames := [][3]string{
		{"ab│\x1b[31mxyz│cd", "e: 👍 ok", "中文 \x1b[1mbold"},
		{"ab│\x1b[31mxqz│cd", "e: 👍🏽 ok", "中文 \x1b[1mbold"},
		{"ab│\x1b[31mx\u0301qz│cd", "e:\x1b[32m 👍 ok", "中 \x1b[1mbold"},
		{"ab│\x1b[31mxe\u0301z│cd", "é: 👍 ok", "中文字 \x1b[1mbolder"},
		{"ab│\x1b[31mxe\x1b[4m\u0301z│cd", "é: 👍 ok!", "中文字 \x1b[1mbolder"},
		{"ab│\x1b[31mxez│\x1b[mcd", "é: 👍 o", "中文字 \x1b[1mbold"},
	}
	r := newCursedRenderer(io.Discard, []string{"TERM=xterm-256color"}, w, h)
	r.setColorProfile(colorprofile.TrueColor)
	r.setWidthMethod(m)
	r.start()
	shown := uv.NewRenderBuffer(w, h)
	for i, f := range frames {
		var lines []string
		for _, l := range f { // unchanged stretches either side
			lines = append(lines, "0123456789 "+l+"\x1b[m ..........")
		}
		frame := strings.Join(lines, "\n")
		v := NewView(frame)
		v.AltScreen = true
		r.render(v)
		if err := r.flush(false); err != nil {
			t.Fatal(err)
		}
		want := uv.NewScreenBuffer(w, h)
		want.Method = r.method
		want.Clear()
		uv.NewStyledString(frame).Draw(want, want.Bounds())
		for y := range h {
			if !r.scr.CopyShownLine(shown, y) {
				t.Fatal("no line shown")
			}
			for x := range w {
				if got, want := shown.CellAt(x, y), want.CellAt(x, y); !sameCell(got, want) {
					t.Fatalf("frame %d, cell %d,%d: %q %+v, drawn whole %q %+v", i, x, y, got.Content, got.Style, want.Content, want.Style)
				}
			}
		}
	}
	if r.partLines < 8 {
		t.Fatalf("%d lines drawn in part: the path under test hardly ran", r.partLines)
	}
}

// BenchmarkFlushTape is a busy dashboard's frame at 200x60: panes side by
// side, the trades tape (the second) scrolling down by one row and a book
// size changing in the first.
func BenchmarkFlushTape(b *testing.B) {
	const w, h = 200, 60
	g := &frameGen{r: rand.New(rand.NewPCG(1, 1)), w: w, h: h, narrow: true}
	widths := [3]int{76, 34, 90}
	panes := make([][3]string, h)
	for y := range panes {
		for k := range 3 {
			panes[y][k] = g.line(widths[k])
		}
	}
	frames := make([]string, 64)
	for i := range frames {
		for y := h - 5; y > 3; y-- {
			panes[y][1] = panes[y-1][1]
		}
		for y := range 3 { // the tape's new row, a book row, the header
			panes[3*y+3][y] = g.line(widths[y])
		}
		lines := make([]string, h)
		for y, p := range panes {
			lines[y] = p[0] + p[1] + p[2]
		}
		frames[i] = strings.Join(lines, "\n")
	}
	var out bytes.Buffer
	r := newCursedRenderer(&out, []string{"TERM=xterm-256color"}, w, h)
	r.setColorProfile(colorprofile.ANSI256)
	r.setWidthMethod(ansi.GraphemeWidth) // as the dashboard asks
	r.start()
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		v := NewView(frames[i%len(frames)])
		v.AltScreen = true
		r.render(v)
		if err := r.flush(false); err != nil {
			b.Fatal(err)
		}
		out.Reset()
	}
}
