package loadgen

import (
	"fmt"
	"strings"
	"sync"

	"github.com/charmbracelet/x/ansi"
)

// ScreenBytes is a viewer's output sink that says where on the screen the
// bytes went: it follows the cursor through the renderer's output (moves,
// text, erases) and charges every byte to the cell the cursor is on, and
// keeps the screen's text, so the bytes of a busy frame can be put down to
// the panes that sent them. It knows the sequences the Bubble Tea renderer
// writes; anything else is charged to where the cursor is.
type ScreenBytes struct {
	mu     sync.Mutex
	w, h   int
	buf    []byte // not parsed yet: a sequence may be cut between writes
	writes int
	total  int64
	bytes  [][]int64 // per cell
	text   [][]rune
	x, y   int
	wrap   bool // the last column was written: the next text wraps
	last   rune // for REP
	savedX int
	savedY int
	parser *ansi.Parser
}

// NewScreenBytes follows a w x h screen.
func NewScreenBytes(w, h int) *ScreenBytes {
	s := &ScreenBytes{w: w, h: h, parser: ansi.NewParser()}
	s.bytes = make([][]int64, h)
	s.text = make([][]rune, h)
	for y := range h {
		s.bytes[y] = make([]int64, w)
		s.text[y] = []rune(strings.Repeat(" ", w))
	}
	return s
}

// Write parses p and charges its bytes.
func (s *ScreenBytes) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.writes++
	s.total += int64(len(p))
	s.buf = append(s.buf, p...)
	for len(s.buf) > 0 {
		seq, width, n, state := ansi.DecodeSequence(s.buf, ansi.NormalState, s.parser)
		if n == 0 || (state != ansi.NormalState && n == len(s.buf)) {
			break // the rest of a sequence is still to come
		}
		s.apply(seq, width)
		s.buf = s.buf[n:]
	}
	if len(s.buf) == 0 {
		s.buf = nil
	}
	return len(p), nil
}

// Reset forgets the bytes counted so far (not the screen).
func (s *ScreenBytes) Reset() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.writes, s.total = 0, 0
	for y := range s.bytes {
		clear(s.bytes[y])
	}
}

// Total is the bytes counted and the writes they came in.
func (s *ScreenBytes) Total() (bytes int64, writes int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.total, s.writes
}

// Text is the screen as text, one line per row.
func (s *ScreenBytes) Text() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]string, s.h)
	for y, r := range s.text {
		out[y] = string(r)
	}
	return out
}

// Region is the bytes charged to the cells of rows [Y0,Y1) and columns
// [X0,X1).
func (s *ScreenBytes) Region(x0, y0, x1, y1 int) int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	var n int64
	for y := max(0, y0); y < min(y1, s.h); y++ {
		for x := max(0, x0); x < min(x1, s.w); x++ {
			n += s.bytes[y][x]
		}
	}
	return n
}

// Report is the screen with the bytes charged to each row, per band of
// band columns, scaled by 1/per (e.g. seconds measured).
func (s *ScreenBytes) Report(band int, per float64) string {
	var b strings.Builder
	text := s.Text()
	for y, line := range text {
		fmt.Fprintf(&b, "%2d %s |", y, line)
		for x := 0; x < s.w; x += band {
			fmt.Fprintf(&b, " %5.0f", float64(s.Region(x, y, x+band, y+1))/per)
		}
		b.WriteByte('\n')
	}
	return b.String()
}

func (s *ScreenBytes) charge(n int) {
	x, y := min(s.x, s.w-1), min(max(s.y, 0), s.h-1)
	s.bytes[y][max(x, 0)] += int64(n)
}

// apply moves the cursor and the text as seq does, and charges its bytes.
func (s *ScreenBytes) apply(seq []byte, width int) {
	switch {
	case width > 0 || (len(seq) > 0 && seq[0] >= 0x20 && seq[0] != 0x7f && seq[0] != 0x1b && seq[0] < 0x80):
		s.charge(len(seq))
		s.print(seq, max(width, 1))
		return
	case len(seq) == 1:
		s.control(seq[0])
	case len(seq) >= 2 && seq[0] == 0x1b && seq[1] == '[':
		s.csi()
	case len(seq) == 2 && seq[0] == 0x1b:
		s.esc(seq[1])
	}
	s.charge(len(seq))
}

func (s *ScreenBytes) print(seq []byte, width int) {
	if s.wrap {
		s.x, s.wrap = 0, false
		s.y = min(s.y+1, s.h-1)
	}
	r := []rune(string(seq))
	if len(r) > 0 && s.y >= 0 && s.y < s.h && s.x < s.w {
		s.last = r[0]
		s.text[s.y][s.x] = r[0]
		for i := 1; i < width && s.x+i < s.w; i++ {
			s.text[s.y][s.x+i] = 0 // the wide rune's second cell
		}
	}
	if s.x+width >= s.w {
		s.x, s.wrap = s.w-1, true
		return
	}
	s.x += width
}

func (s *ScreenBytes) control(c byte) {
	switch c {
	case '\r':
		s.x, s.wrap = 0, false
	case '\n':
		s.y, s.wrap = min(s.y+1, s.h-1), false
	case '\b':
		s.x, s.wrap = max(s.x-1, 0), false
	}
}

func (s *ScreenBytes) esc(c byte) {
	switch c {
	case '7':
		s.savedX, s.savedY = s.x, s.y
	case '8':
		s.x, s.y = s.savedX, s.savedY
	case 'M':
		s.y = max(s.y-1, 0)
	case 'D':
		s.y = min(s.y+1, s.h-1)
	case 'E':
		s.x, s.y = 0, min(s.y+1, s.h-1)
	}
	s.wrap = false
}

func (s *ScreenBytes) csi() {
	cmd := ansi.Cmd(s.parser.Command())
	if cmd.Prefix() != 0 || cmd.Intermediate() != 0 {
		return // private modes: no move
	}
	p := func(i, def int) int {
		v, _ := s.parser.Param(i, def)
		return max(v, 1)
	}
	switch cmd.Final() {
	case 'A':
		s.y = max(s.y-p(0, 1), 0)
	case 'B':
		s.y = min(s.y+p(0, 1), s.h-1)
	case 'C':
		s.x = min(s.x+p(0, 1), s.w-1)
	case 'D':
		s.x = max(s.x-p(0, 1), 0)
	case 'E':
		s.x, s.y = 0, min(s.y+p(0, 1), s.h-1)
	case 'F':
		s.x, s.y = 0, max(s.y-p(0, 1), 0)
	case 'G', '`':
		s.x = min(p(0, 1)-1, s.w-1)
	case 'd':
		s.y = min(p(0, 1)-1, s.h-1)
	case 'H', 'f':
		s.y, s.x = min(p(0, 1)-1, s.h-1), min(p(1, 1)-1, s.w-1)
	case 'X':
		s.blank(s.y, s.x, s.x+p(0, 1))
	case 'K':
		s.erase()
	case 'b':
		for range p(0, 1) {
			s.print([]byte(string(s.last)), 1)
		}
	}
	s.wrap = false
}

func (s *ScreenBytes) erase() {
	v, _ := s.parser.Param(0, 0)
	switch v {
	case 0:
		s.blank(s.y, s.x, s.w)
	case 1:
		s.blank(s.y, 0, s.x+1)
	case 2:
		s.blank(s.y, 0, s.w)
	}
}

func (s *ScreenBytes) blank(y, x0, x1 int) {
	if y < 0 || y >= s.h {
		return
	}
	for x := max(x0, 0); x < min(x1, s.w); x++ {
		s.text[y][x] = ' '
	}
}
