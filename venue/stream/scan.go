// Package stream is the venue's Websocket frame codec: purpose-built
// decoders for every market and private topic, and encoders of the frames a
// client sends (subscribe, unsubscribe, auth, ping, pong, request).
//
// The decoders walk the frame bytes once, without encoding/json and without
// allocating on the hot paths (order book deltas, bbo, trades): prices and
// sizes go straight from the JSON text to fixed-point int64 through package
// fixed. Numbers are accepted both as JSON numbers and as strings, as the
// venue sends both. Byte slices in decoded values alias the frame: copy them
// before the frame buffer is reused.
package stream

import (
	"errors"
	"fmt"

	"tradedeck/fixed"
)

// SyntaxError says where a frame stopped making sense. It never carries the
// frame itself (a private frame may be sensitive), only an offset and what
// was expected.
type SyntaxError struct {
	Offset int
	What   string
}

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("stream: malformed frame at byte %d: %s", e.Offset, e.What)
}

// ErrNotObject is returned for data that is not a JSON object.
var ErrNotObject = errors.New("stream: data is not an object")

// scanner walks JSON text. Its methods set err on the first problem and
// turn into no-ops afterwards, so decoders check once at the end.
type scanner struct {
	b   []byte
	i   int
	err error
}

func (s *scanner) fail(what string) {
	if s.err == nil {
		s.err = &SyntaxError{Offset: s.i, What: what}
	}
	s.i = len(s.b)
}

func (s *scanner) ws() {
	if s.i < len(s.b) && s.b[s.i] > ' ' {
		return // the common case: compact JSON
	}
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

// peek returns the next non-space byte, 0 at the end.
func (s *scanner) peek() byte {
	s.ws()
	if s.i < len(s.b) {
		return s.b[s.i]
	}
	return 0
}

func (s *scanner) expect(c byte) bool {
	if s.peek() != c {
		s.fail("expected " + string(c))
		return false
	}
	s.i++
	return true
}

// str reads a string and returns its raw content (escapes left as they are:
// keys, symbols and enums never contain any).
func (s *scanner) str() []byte {
	if !s.expect('"') {
		return nil
	}
	start := s.i
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case '"':
			v := s.b[start:s.i]
			s.i++
			return v
		case '\\':
			s.i += 2
		default:
			s.i++
		}
	}
	s.fail("unterminated string")
	return nil
}

// scalar reads a number, string or literal and returns its raw text; a
// string keeps its quotes so callers can tell "null" from null.
func (s *scanner) scalar() []byte {
	c := s.peek()
	start := s.i
	switch {
	case c == '"':
		s.str()
		if s.err != nil {
			return nil
		}
		return s.b[start:s.i]
	case c == '-' || c == '+' || (c >= '0' && c <= '9') || c == 't' || c == 'f' || c == 'n':
		for s.i < len(s.b) {
			switch s.b[s.i] {
			case ',', '}', ']', ' ', '\t', '\n', '\r':
				return s.b[start:s.i]
			}
			s.i++
		}
		return s.b[start:s.i]
	}
	s.fail("expected a value")
	return nil
}

// skip steps over one value of any kind and returns its raw text.
func (s *scanner) skip() []byte {
	c := s.peek()
	if c != '{' && c != '[' {
		return s.scalar()
	}
	start := s.i
	depth := 0
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case '{', '[':
			depth++
		case '}', ']':
			depth--
			if depth == 0 {
				s.i++
				return s.b[start:s.i]
			}
		case '"':
			s.str()
			continue
		}
		s.i++
	}
	s.fail("unterminated " + string(c))
	return nil
}

// firstKey and nextKey step through the keys of an object whose '{' was
// consumed, the caller consuming each value:
//
//	for k, ok := s.firstKey(); ok; k, ok = s.nextKey() { ... }
//
// They consume the ':' after the key and return false after the closing
// '}' or on a scan error.
func (s *scanner) firstKey() ([]byte, bool) { return s.key(true) }
func (s *scanner) nextKey() ([]byte, bool)  { return s.key(false) }

func (s *scanner) key(first bool) ([]byte, bool) {
	c := s.peek()
	if c == '}' {
		s.i++
		return nil, false
	}
	if !first {
		if c != ',' {
			s.fail("expected , or }")
			return nil, false
		}
		s.i++
	}
	k := s.str()
	if !s.expect(':') {
		return nil, false
	}
	return k, s.err == nil
}

// firstElem and nextElem step through the elements of an array whose '['
// was consumed, as firstKey and nextKey do through an object's keys. (The
// two walks are kept apart: sharing one separator step would cost a call
// per member on the hot paths, as peek is too large to inline twice.)
func (s *scanner) firstElem() bool { return s.elem(true) }
func (s *scanner) nextElem() bool  { return s.elem(false) }

func (s *scanner) elem(first bool) bool {
	c := s.peek()
	if c == ']' {
		s.i++
		return false
	}
	if !first {
		if c != ',' {
			s.fail("expected , or ]")
			return false
		}
		s.i++
	}
	return s.err == nil
}

// fixedVal reads a number into fixed-point with dec decimals. null reads
// as zero (the venue sends null for absent amounts). Plain decimals (the
// venue's usual "123.45" or 123.45) are converted in the same pass that
// finds their end; anything else (exponents, surplus trailing zeros) goes
// through fixed.Parse, which refuses precision loss.
func (s *scanner) fixedVal(dec int) int64 {
	s.ws()
	b, i := s.b, s.i
	quoted := i < len(b) && b[i] == '"'
	if quoted {
		i++
	}
	neg := i < len(b) && b[i] == '-'
	if neg {
		i++
	}
	var v uint64
	nd, frac := 0, -1
	for ; i < len(b); i++ {
		c := b[i]
		if c >= '0' && c <= '9' {
			v = v*10 + uint64(c-'0')
			nd++
			if frac >= 0 {
				frac++
			}
			continue
		}
		if c == '.' && frac < 0 {
			frac = 0
			continue
		}
		break
	}
	if frac < 0 {
		frac = 0
	}
	if nd > 0 && frac <= dec && nd+dec-frac <= 18 && dec <= fixed.MaxDecimals {
		end := true
		if quoted {
			end = i < len(b) && b[i] == '"'
			i++
		} else if i < len(b) {
			switch b[i] {
			case ',', '}', ']', ' ', '\t', '\n', '\r':
			default:
				end = false
			}
		}
		if end {
			s.i = i
			x := int64(v) * fixed.Pow10(dec-frac)
			if neg {
				return -x
			}
			return x
		}
	}
	raw := s.scalar()
	if s.err != nil || isNull(raw) {
		return 0
	}
	x, ok := fixed.Parse(raw, dec)
	if !ok {
		s.fail("number does not fit the symbol's scale")
	}
	return x
}

// intVal reads an integer (ms timestamps, ids, counts).
func (s *scanner) intVal() int64 { return s.fixedVal(0) }

// boolVal reads true/false, also as strings or 1/0.
func (s *scanner) boolVal() bool {
	raw := unquote(s.scalar())
	switch string(raw) {
	case "true", "1":
		return true
	case "false", "0", "null", "":
		return false
	}
	s.fail("expected a boolean")
	return false
}

func isNull(raw []byte) bool { return string(raw) == "null" || string(raw) == `""` }

func unquote(raw []byte) []byte {
	if len(raw) >= 2 && raw[0] == '"' && raw[len(raw)-1] == '"' {
		return raw[1 : len(raw)-1]
	}
	return raw
}

// object consumes the '{' opening the data; on anything else it fails the
// scan with ErrNotObject.
func (s *scanner) object() {
	if s.peek() != '{' {
		if s.err == nil {
			s.err = ErrNotObject
		}
		s.i = len(s.b)
		return
	}
	s.i++
}

// walk calls fn for each key of the object in data; fn must consume the
// value (with one of the scanner's readers or skip).
func walk(data []byte, fn func(s *scanner, key []byte)) error {
	s := scanner{b: data}
	s.object()
	for k, ok := s.firstKey(); ok; k, ok = s.nextKey() {
		fn(&s, k)
	}
	return s.err
}

// eachElem calls fn with the raw text of each element of the array in data.
func eachElem(data []byte, fn func(elem []byte) error) error {
	s := scanner{b: data}
	if !s.expect('[') {
		return s.err
	}
	for ok := s.firstElem(); ok; ok = s.nextElem() {
		e := s.skip()
		if s.err != nil {
			break
		}
		if err := fn(e); err != nil {
			return err
		}
	}
	return s.err
}
