package common

import (
	"bytes"
	"strings"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"

	"tradedeck/fixed"
	"tradedeck/theme"
)

// Line builds one styled line of a known width without lipgloss: every
// glyph the dashboard draws is one cell wide, so the width is the rune
// count of the visible text. Reuse a Line (Reset) to avoid allocations.
type Line struct {
	b []byte
	w int
}

// Reset empties the line, keeping its buffer.
func (l *Line) Reset() { l.b, l.w = l.b[:0], 0 }

// Width is the number of cells written so far.
func (l *Line) Width() int { return l.w }

// Text appends unstyled text.
func (l *Line) Text(s string) *Line {
	l.b = append(l.b, s...)
	l.w += utf8.RuneCountInString(s)
	return l
}

// Styled appends s in style (an SGR prefix from theme), then resets.
func (l *Line) Styled(style, s string) *Line {
	if s == "" {
		return l
	}
	l.b = append(l.b, style...)
	l.b = append(l.b, s...)
	l.b = append(l.b, theme.Reset...)
	l.w += utf8.RuneCountInString(s)
	return l
}

// Bytes appends unstyled bytes already known to be n cells wide.
func (l *Line) Bytes(p []byte) *Line {
	l.b = append(l.b, p...)
	l.w += utf8.RuneCount(p)
	return l
}

// StyledBytes appends p in style.
func (l *Line) StyledBytes(style string, p []byte) *Line {
	if len(p) == 0 {
		return l
	}
	l.b = append(l.b, style...)
	l.b = append(l.b, p...)
	l.b = append(l.b, theme.Reset...)
	l.w += utf8.RuneCount(p)
	return l
}

// Raw appends an escape sequence (zero width).
func (l *Line) Raw(seq string) *Line { l.b = append(l.b, seq...); return l }

// Space appends n blanks.
func (l *Line) Space(n int) *Line {
	for ; n > 0; n-- {
		l.b = append(l.b, ' ')
		l.w++
	}
	return l
}

// Repeat appends s n times.
func (l *Line) Repeat(s string, n int) *Line {
	for ; n > 0; n-- {
		l.b = append(l.b, s...)
		l.w++
	}
	return l
}

// PadTo fills with blanks up to width w.
func (l *Line) PadTo(w int) *Line { return l.Space(w - l.w) }

// String returns the line padded to w cells (it never truncates styled
// text, so callers keep their content within w; Fit helps).
func (l *Line) String(w int) string {
	l.PadTo(w)
	return string(l.b)
}

// Fit cuts s to at most w cells (with an ellipsis when cut) or pads it on
// the right to exactly w cells.
func Fit(s string, w int, ellipsis string) string {
	if w <= 0 {
		return ""
	}
	n := utf8.RuneCountInString(s)
	if n == w {
		return s
	}
	if n < w {
		return s + strings.Repeat(" ", w-n)
	}
	return Cut(s, w-1) + ellipsis
}

// Cut returns the first w cells of s.
func Cut(s string, w int) string {
	if w <= 0 {
		return ""
	}
	i := 0
	for j := range s {
		if i == w {
			return s[:j]
		}
		i++
	}
	return s
}

// Left pads s on the right to w cells, cutting if longer.
func Left(s string, w int) string {
	n := utf8.RuneCountInString(s)
	if n >= w {
		return Cut(s, w)
	}
	return s + strings.Repeat(" ", w-n)
}

// Right pads s on the left to w cells, cutting (keeping the left) if longer.
func Right(s string, w int) string {
	n := utf8.RuneCountInString(s)
	if n >= w {
		return Cut(s, w)
	}
	return strings.Repeat(" ", w-n) + s
}

// Blank returns lines of w blanks, h of them, sharing one string.
func Blank(w, h int) []string {
	s := strings.Repeat(" ", max(w, 0))
	out := make([]string, max(h, 0))
	for i := range out {
		out[i] = s
	}
	return out
}

// Centered returns h lines of width w with msg centred, in style.
func Centered(w, h int, style, msg string) []string {
	out := Blank(w, h)
	if h == 0 || w == 0 {
		return out
	}
	msg = Cut(msg, w)
	n := utf8.RuneCountInString(msg)
	var l Line
	l.Space((w-n)/2).Styled(style, msg)
	out[h/2] = l.String(w)
	return out
}

// Canvas renders a pane's lines into one buffer and converts it to one
// string; Lines are substrings of it. Rebuilding a pane therefore costs a
// couple of allocations however many rows it has.
type Canvas struct {
	Line
	width int
	ends  []int
	lines []string
}

// Begin starts a new frame of lines w cells wide.
func (c *Canvas) Begin(w int) {
	c.Reset()
	c.width = w
	c.ends = c.ends[:0]
}

// EndLine pads the current line to the width and starts the next one.
func (c *Canvas) EndLine() {
	c.PadTo(c.width)
	c.ends = append(c.ends, len(c.b))
	c.w = 0
}

// Lines writes whole lines (already styled and sized), one row each.
func (c *Canvas) Lines(lines []string) {
	for _, l := range lines {
		c.Text(l)
		c.EndLine()
	}
}

// Rows is the number of finished lines.
func (c *Canvas) Rows() int { return len(c.ends) }

// Num appends v (fixed-point, dec decimals, all fraction digits kept when
// pad) right-aligned in width cells.
func (c *Canvas) Num(style string, v int64, dec, width int, pad bool) *Canvas {
	var tmp [40]byte
	p := AppendNum(tmp[:0], v, dec, width, pad)
	c.StyledBytes(style, p)
	return c
}

// AppendNum appends v (fixed-point with dec decimals; all fraction digits
// kept when pad, so columns align on the point) right-aligned in width
// cells. A number too wide loses fraction digits, never integer digits:
// when even the integer part does not fit the cell shows '#', like a
// spreadsheet, rather than a wrong value.
func AppendNum(b []byte, v int64, dec, width int, pad bool) []byte {
	start := len(b)
	if pad {
		b = fixed.AppendPadded(b, v, dec)
	} else {
		b = fixed.Append(b, v, dec)
	}
	n := len(b) - start
	if n > width {
		num := b[start:]
		dot := bytes.IndexByte(num, '.')
		if dot < 0 || dot > width {
			b = b[:start]
			for i := 0; i < width; i++ {
				b = append(b, '#')
			}
			return b
		}
		n = width
		if n == dot+1 { // no digit would follow the point
			n = dot
		}
		b = b[:start+n]
	}
	// Right-align: shift the digits right by the padding.
	pad0 := width - n
	for i := 0; i < pad0; i++ {
		b = append(b, ' ')
	}
	copy(b[start+pad0:], b[start:start+n])
	for i := start; i < start+pad0; i++ {
		b[i] = ' '
	}
	return b
}

// Finish pads to h lines and returns them (valid until the next Begin).
func (c *Canvas) Finish(h int) []string {
	for len(c.ends) < h {
		c.EndLine()
	}
	s := string(c.b)
	c.lines = c.lines[:0]
	start := 0
	for i, e := range c.ends {
		if i == h {
			break
		}
		c.lines = append(c.lines, s[start:e])
		start = e
	}
	return c.lines
}

// Pen switches the current style only when it differs from the last one
// set by Pen, so runs of equally styled cells share one escape sequence.
// Use Put for the cells and PenOff at the end of the run.
type Pen struct {
	cur string
}

// Put appends one cell s (one rune wide) in style.
func (l *Line) Put(p *Pen, style, s string) {
	if style != p.cur {
		if p.cur != "" {
			l.b = append(l.b, theme.Reset...)
		}
		l.b = append(l.b, style...)
		p.cur = style
	}
	l.b = append(l.b, s...)
	l.w++
}

// PenOff ends the current run.
func (l *Line) PenOff(p *Pen) {
	if p.cur != "" {
		l.b = append(l.b, theme.Reset...)
		p.cur = ""
	}
}

// Wrap breaks text (which may carry SGR styles) into lines of at most w
// cells (at least 10), at spaces, cutting a word longer than a line; ""
// gives no lines. The one wrap of the dashboard.
func Wrap(s string, w int) []string {
	if s == "" {
		return nil
	}
	return strings.Split(ansi.Wrap(s, max(w, 10), ""), "\n")
}

// Pack lays parts (help items such as "esc close") out on lines of at most
// w cells, joined by sep, never cutting an item: a footer keeps every key
// it names, the last ones on a second line when the first is full.
func Pack(parts []string, sep string, w int) []string {
	var out []string
	line, lw, sw := "", 0, ansi.StringWidth(sep)
	for _, p := range parts {
		pw := ansi.StringWidth(p)
		switch {
		case lw == 0:
			line, lw = p, pw
		case lw+sw+pw <= w:
			line, lw = line+sep+p, lw+sw+pw
		default:
			out = append(out, line)
			line, lw = p, pw
		}
	}
	if lw > 0 {
		out = append(out, line)
	}
	return out
}
