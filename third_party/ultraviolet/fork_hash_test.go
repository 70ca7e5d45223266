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

// tradedeck fork: tabsTo finds what upstream's loop found (it asked for
// the next stop three times per tab), for every move on default and
// irregular stops.
func TestTabsToMatchesUpstreamLoop(t *testing.T) {
	upstream := func(ts *TabStops, fx, tx int) (int, int) {
		var tabs, col int
		for col = fx; ts.Next(col) <= tx; col = ts.Next(col) {
			tabs++
			if col == ts.Next(col) || col >= ts.Width()-1 {
				break
			}
		}
		return tabs, col
	}
	irregular := DefaultTabStops(50)
	irregular.Reset(16)
	irregular.Set(19)
	irregular.Reset(40)
	for _, ts := range []*TabStops{DefaultTabStops(80), DefaultTabStops(13), irregular} {
		for fx := 0; fx < ts.Width(); fx++ {
			for tx := fx + 1; tx < ts.Width()+2; tx++ {
				gt, gc := tabsTo(ts, fx, tx)
				wt, wc := upstream(ts, fx, tx)
				if gt != wt || gc != wc {
					t.Fatalf("width %d, %d -> %d: %d tabs to %d, upstream %d to %d", ts.Width(), fx, tx, gt, gc, wt, wc)
				}
			}
		}
	}
}
