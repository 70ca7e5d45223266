package serve

import "io"

// maxPaste bounds one bracketed paste. Bubble Tea's input reader buffers
// a paste until its end marker, so a client that opens a paste and never
// closes it would grow the server without limit; past this many bytes the
// paste is closed for it and the rest dropped until the client's own end.
const maxPaste = 64 << 10

var pasteEnd = []byte("\x1b[201~")

// boundedPaste passes a session's input through, capping every bracketed
// paste (ESC [ 200 ~ ... ESC [ 201 ~) at maxPaste bytes.
type boundedPaste struct {
	r       io.Reader
	buf     []byte // read from r
	out     []byte // ready for the caller
	matched int    // bytes of "\x1b[20" plus the kind digit matched so far
	kind    byte   // '0' start or '1' end, once matched == 5
	inPaste bool
	n       int  // bytes of the current paste passed on
	drop    bool // over the limit: dropping until the client's end marker
}

func (b *boundedPaste) Read(p []byte) (int, error) {
	for len(b.out) == 0 {
		if cap(b.buf) < len(p) {
			b.buf = make([]byte, len(p))
		}
		n, err := b.r.Read(b.buf[:len(p)])
		b.out = b.out[:0]
		for _, c := range b.buf[:n] {
			b.scan(c)
		}
		if err != nil && len(b.out) == 0 {
			return 0, err
		}
		if n == 0 && err == nil {
			return 0, nil
		}
	}
	k := copy(p, b.out)
	b.out = b.out[k:]
	return k, nil
}

// scan passes or drops one byte, following the paste markers.
func (b *boundedPaste) scan(c byte) {
	marker := b.match(c)
	if b.drop {
		if marker == '1' { // the client's end: already closed for it
			b.drop, b.inPaste = false, false
		}
		return
	}
	b.out = append(b.out, c)
	switch {
	case marker == '0':
		b.inPaste, b.n = true, 0
	case marker == '1':
		b.inPaste = false
	case b.inPaste:
		b.n++
		if b.n > maxPaste {
			b.out = append(b.out, pasteEnd...)
			b.drop = true
		}
	}
}

// match advances the marker match by c and returns the marker's kind
// ('0' start, '1' end) when c completes one, else 0.
func (b *boundedPaste) match(c byte) byte {
	const prefix = "\x1b[20"
	switch {
	case b.matched < len(prefix) && c == prefix[b.matched]:
		b.matched++
		return 0
	case b.matched == len(prefix) && (c == '0' || c == '1'):
		b.kind, b.matched = c, b.matched+1
		return 0
	case b.matched == len(prefix)+1 && c == '~':
		b.matched = 0
		return b.kind
	}
	b.matched = 0
	if c == prefix[0] {
		b.matched = 1
	}
	return 0
}
