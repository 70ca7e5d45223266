package uv

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

// tradedeck fork: lines hash by what they show. Equal lines hash equal
// whichever string their cells' contents were cut from (short contents
// by their bytes, long ones through the interned set); a line differing
// in one cell anywhere hashes apart.
func TestLineHashFollowsContent(t *testing.T) {
	line := func(text, long string) Line {
		l := NewLine(8)
		for i, r := range text {
			c := string(r)
			if r == '*' {
				c = internGrapheme(strings.Clone(long)) // a new copy each time: shared by interning
			}
			l.Set(i, &Cell{Content: c, Width: 1})
		}
		return l
	}
	const long = "👩‍👩‍👧‍👦" // 25 bytes: hashed by where it lives
	a, b := line("ab─*de", long), line(strings.Clone("ab─*de"), long)
	if hash(nil, a) != hash(nil, b) {
		t.Fatal("equal lines hash apart")
	}
	for _, other := range []string{"ab─*dx", "xb─*de", "ab-*de", "ab─ de"} {
		if hash(nil, line(other, long)) == hash(nil, a) {
			t.Errorf("%q hashes as %q", other, "ab─*de")
		}
	}
}

// tradedeck fork: under grapheme width only a wide cell drifts, wherever
// it is on the line; under wcwidth a cell the two measures disagree on
// drifts too.
func TestLineHasDriftFindsWideCells(t *testing.T) {
	l := NewLine(10)
	for i := range l {
		l.Set(i, &Cell{Content: "a", Width: 1})
	}
	if lineHasDrift(ansi.GraphemeWidth, l) || lineHasDrift(ansi.WcWidth, l) {
		t.Fatal("narrow cells only, drift reported")
	}
	l.Set(7, &Cell{Content: "界", Width: 2})
	if !lineHasDrift(ansi.GraphemeWidth, l) || !lineHasDrift(ansi.WcWidth, l) {
		t.Fatal("a wide cell near the end not found")
	}
}
