package tea

// tradedeck fork: frame buffers shared by every program in the process.
// See third_party/README.md.

import (
	"runtime"
	"sync"

	uv "github.com/charmbracelet/ultraviolet"
)

// pooledFrame is one frame buffer and the lines it was made with: a
// flush may reslice Lines (a frame taller than the screen), and the pool
// must get the whole buffer back.
type pooledFrame struct {
	buf   *uv.RenderBuffer
	lines []uv.Line
	// owner drew its frame number gen into buf line by line: while owner
	// has drawn no other since, buf still holds that frame, and a line
	// unchanged since need not be copied into it (linedraw.go).
	owner *cursedRenderer
	gen   uint64
}

// frameList lends the buffers a flush draws a frame into: a free list,
// newest last, that a garbage collection does not empty (a sync.Pool is
// emptied by every collection, and a buffer is 112 bytes a cell: 1.3 MB at
// 200x60, so a collector that ran every few frames had it allocated anew
// almost every frame, which made the collector run more). A single
// program (the local dashboard) gets its own buffer back every frame; a
// server with many sessions needs only as many as flush at the same
// moment, and keeps at most max, the least recently returned going first.
type frameList struct {
	mu   sync.Mutex
	free []*pooledFrame
	max  int
}

var framePool = frameList{max: runtime.GOMAXPROCS(0) + 1}

// getFrameBuffer returns a buffer of exactly width x height. One of
// another size is never resized: resizing keeps the larger backing
// arrays, and a client's odd size must not grow every buffer.
func getFrameBuffer(width, height int, owner *cursedRenderer) *pooledFrame {
	if f := framePool.take(width, height, owner); f != nil {
		f.buf.Lines = f.lines
		return f
	}
	buf := uv.NewRenderBuffer(width, height)
	return &pooledFrame{buf: buf, lines: buf.Lines}
}

func putFrameBuffer(f *pooledFrame) {
	f.buf.Lines = f.lines
	framePool.give(f)
}

// ownFrame is f if it is width x height, else a new buffer of that size:
// a renderer drawing whole frames (upstream's way, kept for comparison)
// keeps its own, as upstream did.
func ownFrame(f *pooledFrame, width, height int) *pooledFrame {
	if f != nil && f.buf.Width() == width && len(f.lines) == height {
		f.buf.Lines = f.lines
		return f
	}
	buf := uv.NewRenderBuffer(width, height)
	return &pooledFrame{buf: buf, lines: buf.Lines}
}

// take removes and returns a buffer of the size, or nil: the one owner
// drew its last frame into if it is there (no unchanged line to copy),
// else the most recently returned.
func (l *frameList) take(width, height int, owner *cursedRenderer) *pooledFrame {
	l.mu.Lock()
	defer l.mu.Unlock()
	found := -1
	for i := len(l.free) - 1; i >= 0; i-- {
		if f := l.free[i]; f.buf.Width() == width && len(f.lines) == height {
			if found < 0 || f.owner == owner && owner != nil {
				found = i
			}
			if f.owner == owner && owner != nil {
				break
			}
		}
	}
	if found < 0 {
		return nil
	}
	f := l.free[found]
	copy(l.free[found:], l.free[found+1:])
	l.free[len(l.free)-1] = nil
	l.free = l.free[:len(l.free)-1]
	return f
}

// give adds f, dropping the least recently returned buffer when full.
func (l *frameList) give(f *pooledFrame) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.free) >= max(1, l.max) {
		copy(l.free, l.free[1:])
		l.free = l.free[:len(l.free)-1]
	}
	l.free = append(l.free, f)
}
