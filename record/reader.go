package record

import (
	"bufio"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"

	"github.com/klauspost/compress/zstd"
)

// Reader reads a recording record by record. Errors are *FormatError
// naming the byte offset where the file stops making sense; a clean end
// is io.EOF.
type Reader struct {
	r      *bufio.Reader
	off    int64 // bytes consumed from r
	hdr    Header
	dec    *zstd.Decoder
	comp   []byte
	block  []byte // decompressed records of the current block
	rest   []byte // not yet returned part of block
	bstart int64  // offset of the current block
	err    error  // sticky
	blocks int
}

// NewReader reads and checks the file header.
func NewReader(r io.Reader) (*Reader, error) {
	dec, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxMemory(MaxBlockRaw))
	if err != nil {
		return nil, err
	}
	rd := &Reader{r: bufio.NewReaderSize(r, 64<<10), dec: dec}
	if err := rd.readHeader(); err != nil {
		dec.Close()
		return nil, err
	}
	return rd, nil
}

// Header is the file's header.
func (r *Reader) Header() Header { return r.hdr }

// Offset is the number of file bytes consumed so far.
func (r *Reader) Offset() int64 { return r.off }

// BlockOffset is the file offset of the block the last record came from.
func (r *Reader) BlockOffset() int64 { return r.bstart }

// Blocks is the number of blocks read so far.
func (r *Reader) Blocks() int { return r.blocks }

// Close releases the decoder (not the underlying reader).
func (r *Reader) Close() { r.dec.Close() }

func (r *Reader) fail(off int64, truncated bool, format string, args ...any) error {
	r.err = &FormatError{Offset: off, Msg: fmt.Sprintf(format, args...), Truncated: truncated}
	return r.err
}

// full reads exactly len(b) bytes; a short read is a truncation at start.
func (r *Reader) full(b []byte, start int64, what string) error {
	n, err := io.ReadFull(r.r, b)
	r.off += int64(n)
	switch {
	case err == nil:
		return nil
	case errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF):
		return r.fail(start, true, "file ends inside the %s (%d of %d bytes)", what, n, len(b))
	default:
		return r.fail(start, false, "reading the %s: %v", what, err)
	}
}

func (r *Reader) readHeader() error {
	var head [fileHeadLen]byte
	if err := r.full(head[:], 0, "file header"); err != nil {
		return err
	}
	if string(head[:len(fileMagic)]) != fileMagic {
		return r.fail(0, false, "not a tradedeck recording (bad magic)")
	}
	ver := binary.LittleEndian.Uint16(head[len(fileMagic):])
	if ver != Version {
		return r.fail(int64(len(fileMagic)), false, "format version %d, this build reads version %d", ver, Version)
	}
	n := binary.LittleEndian.Uint32(head[len(fileMagic)+2:])
	if n > maxHeaderLen {
		return r.fail(int64(len(fileMagic)+2), false, "header length %d is implausible", n)
	}
	js := make([]byte, n)
	if err := r.full(js, int64(fileHeadLen), "header"); err != nil {
		return err
	}
	if err := json.Unmarshal(js, &r.hdr); err != nil {
		return r.fail(int64(fileHeadLen), false, "header is not valid JSON: %v", err)
	}
	return nil
}

// SeekBlock moves the reader to the block starting at file offset off (a
// BlockOffset seen earlier); rs is the file the reader reads.
func (r *Reader) SeekBlock(rs io.ReadSeeker, off int64) error {
	if off < int64(fileHeadLen) {
		return fmt.Errorf("recording: offset %d is inside the header", off)
	}
	if _, err := rs.Seek(off, io.SeekStart); err != nil {
		return err
	}
	r.r.Reset(rs)
	r.off, r.rest, r.err = off, nil, nil
	return nil
}

// Next returns the next record; io.EOF at the clean end of the file.
func (r *Reader) Next() (Record, error) {
	for len(r.rest) == 0 {
		if r.err != nil {
			return Record{}, r.err
		}
		if err := r.readBlock(); err != nil {
			return Record{}, err
		}
	}
	rec, rest, err := parseRecord(r.rest)
	if err != nil {
		return Record{}, r.fail(r.bstart, false, "block %d: %v", r.blocks, err)
	}
	r.rest = rest
	return rec, nil
}

func (r *Reader) readBlock() error {
	start := r.off
	var head [blockHeadLen]byte
	n, err := io.ReadFull(r.r, head[:])
	r.off += int64(n)
	if n == 0 && errors.Is(err, io.EOF) {
		r.err = io.EOF
		return io.EOF
	}
	if err != nil {
		if errors.Is(err, io.ErrUnexpectedEOF) {
			return r.fail(start, true, "file ends inside a block header (%d of %d bytes)", n, blockHeadLen)
		}
		return r.fail(start, false, "reading a block header: %v", err)
	}
	if string(head[:4]) != blockMagic {
		return r.fail(start, false, "no block starts here (bad block magic)")
	}
	rawLen := binary.LittleEndian.Uint32(head[4:])
	compLen := binary.LittleEndian.Uint32(head[8:])
	sum := binary.LittleEndian.Uint32(head[12:])
	if rawLen == 0 || rawLen > MaxBlockRaw || compLen == 0 || compLen > maxBlockComp {
		return r.fail(start, false, "implausible block lengths (raw %d, compressed %d)", rawLen, compLen)
	}
	if cap(r.comp) < int(compLen) {
		r.comp = make([]byte, compLen)
	}
	r.comp = r.comp[:compLen]
	if err := r.full(r.comp, start, "block"); err != nil {
		return err
	}
	if crc32.Checksum(r.comp, castagnoli) != sum {
		return r.fail(start, false, "block checksum mismatch")
	}
	if cap(r.block) < int(rawLen) {
		r.block = make([]byte, 0, rawLen)
	}
	out, err := r.dec.DecodeAll(r.comp, r.block[:0])
	if err != nil {
		return r.fail(start, false, "block does not decompress: %v", err)
	}
	if len(out) != int(rawLen) {
		return r.fail(start, false, "block decompresses to %d bytes, header says %d", len(out), rawLen)
	}
	r.block, r.rest, r.bstart = out, out, start
	r.blocks++
	return nil
}

// Scan calls fn for every record of the file at path. A file cut short by
// a kill (Truncated) ends the scan without error; the caller learns of it
// from the returned *FormatError when it wants to (tail).
func Scan(path string, fn func(Record) error) (hdr Header, tail *FormatError, err error) {
	return ScanBlocks(path, func(r Record, _ int64) error { return fn(r) })
}

// ScanBlocks is Scan telling fn the offset of each record's block too.
func ScanBlocks(path string, fn func(r Record, block int64) error) (hdr Header, tail *FormatError, err error) {
	f, err := os.Open(path)
	if err != nil {
		return hdr, nil, err
	}
	defer f.Close()
	rd, err := NewReader(f)
	if err != nil {
		return hdr, nil, fmt.Errorf("%s: %w", path, err)
	}
	defer rd.Close()
	hdr = rd.Header()
	for {
		rec, err := rd.Next()
		if errors.Is(err, io.EOF) {
			return hdr, nil, nil
		}
		var fe *FormatError
		if errors.As(err, &fe) && fe.Truncated {
			return hdr, fe, nil
		}
		if err != nil {
			return hdr, nil, fmt.Errorf("%s: %w", path, err)
		}
		if err := fn(rec, rd.BlockOffset()); err != nil {
			return hdr, nil, err
		}
	}
}
