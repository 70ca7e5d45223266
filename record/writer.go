package record

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"io"

	"github.com/klauspost/compress/zstd"
)

// Writer appends records to a recording. Records collect in memory until
// Flush writes them as one compressed block; the caller flushes on a
// timer and when Buffered grows. Not safe for concurrent use.
type Writer struct {
	w       io.Writer
	enc     *zstd.Encoder
	raw     []byte
	comp    []byte
	records int
	size    int64 // bytes written to w
}

// NewWriter writes the file header to w and returns a Writer.
func NewWriter(w io.Writer, h Header) (*Writer, error) {
	head, err := encodeHeader(h)
	if err != nil {
		return nil, err
	}
	// SpeedDefault is ~3x smaller than SpeedFastest on book frames for a
	// few µs more per flush; blocks are flushed at most a few times a
	// second, so the recorder's cost per frame stays the copy.
	enc, err := zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedDefault), zstd.WithEncoderConcurrency(1))
	if err != nil {
		return nil, err
	}
	if _, err := w.Write(head); err != nil {
		return nil, err
	}
	return &Writer{w: w, enc: enc, size: int64(len(head))}, nil
}

// Append adds r to the current block (copying its bytes).
func (w *Writer) Append(r Record) {
	w.raw = appendRecord(w.raw, r)
	w.records++
}

// Buffered is the uncompressed size of the records not yet flushed.
func (w *Writer) Buffered() int { return len(w.raw) }

// Size is the number of bytes written to the file so far.
func (w *Writer) Size() int64 { return w.size }

// Flush compresses the buffered records into one block and writes it. A
// block is written with a single Write, so a kill leaves either the whole
// block or a truncated tail that readers report and stop at.
func (w *Writer) Flush() error {
	if len(w.raw) == 0 {
		return nil
	}
	if len(w.raw) > MaxBlockRaw {
		return fmt.Errorf("recording: block of %d bytes exceeds the format's %d", len(w.raw), MaxBlockRaw)
	}
	w.comp = w.comp[:0]
	w.comp = append(w.comp, blockMagic...)
	w.comp = binary.LittleEndian.AppendUint32(w.comp, uint32(len(w.raw)))
	w.comp = append(w.comp, 0, 0, 0, 0, 0, 0, 0, 0) // compressed length, checksum
	w.comp = w.enc.EncodeAll(w.raw, w.comp)
	body := w.comp[blockHeadLen:]
	binary.LittleEndian.PutUint32(w.comp[8:], uint32(len(body)))
	binary.LittleEndian.PutUint32(w.comp[12:], crc32.Checksum(body, castagnoli))
	n, err := w.w.Write(w.comp)
	w.size += int64(n)
	if err != nil {
		return err
	}
	w.raw, w.records = w.raw[:0], 0
	return nil
}

// Close flushes what is buffered and releases the encoder; it does not
// close the underlying writer.
func (w *Writer) Close() error {
	err := w.Flush()
	w.enc.Close()
	return err
}
