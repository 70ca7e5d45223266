package tea

// tradedeck fork: frame buffers shared by every program in the process.
// See third_party/README.md.

import (
	"sync"

	uv "github.com/charmbracelet/ultraviolet"
)

// pooledFrame is one frame buffer and the lines it was made with: a
// flush may reslice Lines (a frame taller than the screen), and the pool
// must get the whole buffer back.
type pooledFrame struct {
	buf   *uv.RenderBuffer
	lines []uv.Line
}

// framePool lends the buffers a flush draws a frame into. A server with
// many sessions needs only as many as flush at the same moment.
var framePool sync.Pool // *pooledFrame

// getFrameBuffer returns a buffer of exactly width x height. One of
// another size is dropped rather than resized: resizing keeps the larger
// backing arrays, and a client's odd size must not grow every buffer.
func getFrameBuffer(width, height int) *pooledFrame {
	if f, ok := framePool.Get().(*pooledFrame); ok {
		if f.buf.Width() == width && len(f.lines) == height {
			f.buf.Lines = f.lines
			return f
		}
	}
	buf := uv.NewRenderBuffer(width, height)
	return &pooledFrame{buf: buf, lines: buf.Lines}
}

func putFrameBuffer(f *pooledFrame) {
	f.buf.Lines = f.lines
	framePool.Put(f)
}
