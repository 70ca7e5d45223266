package tea

import (
	"bytes"
	"sync"
)

// tradedeck fork: a flush assembles what it writes (mode changes around
// the terminal renderer's updates) in a buffer borrowed from a
// process-wide pool for the length of the flush. Upstream allocated a
// buffer every flush and grew it by doubling to the frame's size (a few
// allocations and ~2x the frame's bytes each frame); a renderer keeping
// its own would hold that memory per SSH session between frames. A
// buffer grown past flushBufferKeep by a whole-screen redraw is dropped,
// not kept.
var flushBuffers = sync.Pool{New: func() any { return new(bytes.Buffer) }}

const flushBufferKeep = 64 << 10

func getFlushBuffer() *bytes.Buffer { return flushBuffers.Get().(*bytes.Buffer) }

func putFlushBuffer(b *bytes.Buffer) {
	if b.Cap() > flushBufferKeep {
		return
	}
	b.Reset()
	flushBuffers.Put(b)
}
