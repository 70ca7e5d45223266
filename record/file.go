package record

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// FileOptions configure a rotating recording file.
type FileOptions struct {
	Path   string
	Header Header
	// MaxBytes starts a new part once a part reaches this size (0: never).
	// Parts are Path, then base.2.ext, base.3.ext, ...
	MaxBytes int64
	// Prelude gives the records every part starts with (the REST
	// snapshots a replay needs), so each part replays on its own.
	Prelude func() []Record
}

// File is a recording written to disk in parts of at most MaxBytes.
type File struct {
	opts  FileOptions
	f     *os.File
	w     *Writer
	part  int
	paths []string
}

// Create opens the first part.
func Create(opts FileOptions) (*File, error) {
	rf := &File{opts: opts}
	if err := rf.open(1); err != nil {
		return nil, err
	}
	return rf, nil
}

// PartPath is the file name of part n (1-based) of a recording at path.
func PartPath(path string, n int) string {
	if n <= 1 {
		return path
	}
	ext := filepath.Ext(path)
	return fmt.Sprintf("%s.%d%s", strings.TrimSuffix(path, ext), n, ext)
}

func (rf *File) open(part int) error {
	path := PartPath(rf.opts.Path, part)
	f, err := os.OpenFile(path, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	h := rf.opts.Header
	h.Part = part
	w, err := NewWriter(f, h)
	if err != nil {
		f.Close()
		return err
	}
	rf.f, rf.w, rf.part = f, w, part
	rf.paths = append(rf.paths, path)
	if rf.opts.Prelude != nil {
		for _, r := range rf.opts.Prelude() {
			w.Append(r)
		}
	}
	return nil
}

// Append adds a record to the current block.
func (rf *File) Append(r Record) { rf.w.Append(r) }

// Buffered is the unflushed size of the current block.
func (rf *File) Buffered() int { return rf.w.Buffered() }

// Size is the bytes on disk over every part.
func (rf *File) Size() int64 {
	var n int64
	for _, p := range rf.paths[:len(rf.paths)-1] {
		if st, err := os.Stat(p); err == nil {
			n += st.Size()
		}
	}
	return n + rf.w.Size()
}

// Paths lists the parts written so far.
func (rf *File) Paths() []string { return append([]string(nil), rf.paths...) }

// Flush writes the current block and starts a new part when the current
// one reached MaxBytes.
func (rf *File) Flush() error {
	if err := rf.w.Flush(); err != nil {
		return err
	}
	if rf.opts.MaxBytes > 0 && rf.w.Size() >= rf.opts.MaxBytes {
		if err := rf.closePart(); err != nil {
			return err
		}
		return rf.open(rf.part + 1)
	}
	return nil
}

func (rf *File) closePart() error {
	err := rf.w.Close()
	if cerr := rf.f.Close(); err == nil {
		err = cerr
	}
	return err
}

// Close flushes and closes the current part.
func (rf *File) Close() error { return rf.closePart() }
