package tea

// tradedeck fork: the frame buffers' free list (framepool.go).

import (
	"bytes"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"

	"github.com/charmbracelet/colorprofile"
	uv "github.com/charmbracelet/ultraviolet"
)

// A collection does not empty the list, a buffer comes back only at its
// own size, and the list holds at most max buffers, the oldest dropped.
func TestFrameListKeepsBuffersAcrossCollections(t *testing.T) {
	l := &frameList{max: 2}
	a := testFrame(10, 3)
	l.give(a)
	runtime.GC()
	runtime.GC()
	if got := l.take(10, 3, nil); got != a {
		t.Fatalf("after two collections: got %p, want the buffer given (%p)", got, a)
	}
	if got := l.take(10, 3, nil); got != nil {
		t.Fatal("a buffer taken twice")
	}
	b, c := testFrame(10, 3), testFrame(20, 5)
	l.give(a)
	l.give(b)
	if got := l.take(20, 5, nil); got != nil {
		t.Fatal("a buffer of another size lent")
	}
	l.give(c) // full: a, the oldest, goes
	if len(l.free) != 2 {
		t.Fatalf("%d buffers kept, want at most 2", len(l.free))
	}
	if got := l.take(10, 3, nil); got != b {
		t.Fatalf("got %p, want the newer 10x3 buffer %p", got, b)
	}
	if got := l.take(10, 3, nil); got != nil {
		t.Fatal("the dropped buffer was lent")
	}
	if got := l.take(20, 5, nil); got != c {
		t.Fatal("the 20x5 buffer is missing")
	}
}

// A renderer gets back the buffer it drew its last frame into, when the
// list has it, before more recently returned ones.
func TestFrameListPrefersTheOwnersBuffer(t *testing.T) {
	l := &frameList{max: 3}
	r1, r2 := &cursedRenderer{}, &cursedRenderer{}
	a, b := testFrame(10, 3), testFrame(10, 3)
	a.owner, b.owner = r1, r2
	l.give(a)
	l.give(b)
	if got := l.take(10, 3, r1); got != a {
		t.Fatal("r1 did not get its own buffer back")
	}
	if got := l.take(10, 3, r1); got != b {
		t.Fatal("with its own gone, r1 did not get the other")
	}
}

func testFrame(w, h int) *pooledFrame {
	buf := uv.NewRenderBuffer(w, h)
	return &pooledFrame{buf: buf, lines: buf.Lines}
}

// flushFrames returns 64 frames of a 160x48 screen where three lines
// change from one to the next (BenchmarkFlush's).
func flushFrames(w, h int) []string {
	g := &frameGen{r: rand.New(rand.NewPCG(1, 1)), w: w, h: h}
	g.next()
	frames := make([]string, 64)
	for i := range frames {
		for range 3 {
			y := g.r.IntN(h)
			g.lines[y] = g.line(w)
		}
		frames[i] = strings.Join(g.lines, "\n")
	}
	return frames
}

// BenchmarkFlushCollected is BenchmarkFlush with a garbage collection
// every other frame, as the dashboard had under its soft memory limit:
// the frame buffer must not be allocated again after a collection.
// sessions renderers (serve's screens) flush in turn.
func BenchmarkFlushCollected(b *testing.B) {
	const w, h = 160, 48
	frames := flushFrames(w, h)
	for _, sessions := range []int{1, 16} {
		b.Run(map[int]string{1: "dashboard", 16: "16sessions"}[sessions], func(b *testing.B) {
			var out bytes.Buffer
			rs := make([]*cursedRenderer, sessions)
			for i := range rs {
				rs[i] = newCursedRenderer(&out, []string{"TERM=xterm-256color"}, w, h)
				rs[i].setColorProfile(colorprofile.ANSI256)
				rs[i].start()
			}
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				if i%2 == 1 {
					b.StopTimer()
					runtime.GC()
					b.StartTimer()
				}
				v := NewView(frames[i%len(frames)])
				v.AltScreen = true
				r := rs[i%sessions]
				r.render(v)
				if err := r.flush(false); err != nil {
					b.Fatal(err)
				}
				out.Reset()
			}
		})
	}
}
