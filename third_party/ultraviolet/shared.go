package uv

// tradedeck fork: what many terminals in one process (one per SSH session)
// can share instead of each building its own. See third_party/README.md.

import (
	"strings"
	"sync"
	"unicode/utf8"
)

// keysTableKey names one key table: tables differ only by these inputs.
type keysTableKey struct {
	flags       LegacyKeyEncoding
	term        string
	useTerminfo bool
}

// keysTables holds every table built so far. Tables are read-only once
// built, so every reader of the same kind of terminal shares one
// (~100 KB each; a server with 200 sessions built 200 of them).
var keysTables sync.Map // keysTableKey -> map[string]Key

// sharedKeysTable returns the key table for the inputs, building it once.
func sharedKeysTable(flags LegacyKeyEncoding, term string, useTerminfo bool) map[string]Key {
	k := keysTableKey{flags, term, useTerminfo}
	if t, ok := keysTables.Load(k); ok {
		return t.(map[string]Key)
	}
	t, _ := keysTables.LoadOrStore(k, buildKeysTable(flags, term, useTerminfo))
	return t.(map[string]Key)
}

// Interned grapheme contents. A cell's Content used to be a substring of
// the frame it was drawn from, so one unchanged cell kept that whole frame
// (tens of KB) alive; a screen of such cells pinned many old frames.
// Interned strings point into nothing but themselves: ASCII and the
// symbols below are substrings of two strings built once, the rest are
// kept in a bounded set.
var (
	asciiText = func() string {
		b := make([]byte, utf8.RuneSelf)
		for i := range b {
			b[i] = byte(i)
		}
		return string(b)
	}()
	// Box drawing, blocks, shapes, arrows, dingbats and braille: what
	// charts and borders draw with, each three bytes of UTF-8.
	symbolText = func() string {
		b := make([]byte, 0, 3*(symbolLast-symbolFirst+1))
		for r := rune(symbolFirst); r <= symbolLast; r++ {
			b = utf8.AppendRune(b, r)
		}
		return string(b)
	}()
	otherGraphemes = map[string]string{} // at most maxOtherGraphemes
	otherMu        sync.RWMutex
)

const (
	symbolFirst       = 0x2000
	symbolLast        = 0x28FF
	maxOtherGraphemes = 4096
)

// internGrapheme returns a string equal to seq that shares no memory with
// it: one of a fixed set for ASCII and symbols, one kept per distinct
// grapheme for up to maxOtherGraphemes others, a copy beyond that (so
// whatever a screen prints, the set stays bounded).
func internGrapheme[T []byte | string](seq T) string {
	if len(seq) == 1 && seq[0] < utf8.RuneSelf {
		return asciiText[seq[0] : seq[0]+1]
	}
	// U+2000..U+28FF in UTF-8 is 0xE2, 0x80..0xA3, 0x80..0xBF.
	if len(seq) == 3 && seq[0] == 0xE2 && seq[1] >= 0x80 && seq[1] <= 0xA3 && seq[2] >= 0x80 && seq[2] <= 0xBF {
		i := 3 * (int(seq[1]&0x3F)<<6 | int(seq[2]&0x3F))
		return symbolText[i : i+3]
	}
	otherMu.RLock()
	s, ok := otherGraphemes[string(seq)]
	otherMu.RUnlock()
	if ok {
		return s
	}
	s = strings.Clone(string(seq))
	otherMu.Lock()
	defer otherMu.Unlock()
	if prev, ok := otherGraphemes[s]; ok {
		return prev
	}
	if len(otherGraphemes) < maxOtherGraphemes {
		otherGraphemes[s] = s
	}
	return s
}
