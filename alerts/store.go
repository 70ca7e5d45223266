package alerts

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"tradedeck/xdg"
)

// HistoryLimit bounds the fired alerts a file keeps (oldest dropped).
const HistoryLimit = 500

// File is the content of an alerts file.
type File struct {
	Version int     `json:"version"`
	NextID  int     `json:"next_id"`
	NextSeq int     `json:"next_seq"`
	Alerts  []Alert `json:"alerts"`
	Fired   []Fired `json:"fired"` // oldest first
}

// Find returns the alert with id, or nil.
func (f *File) Find(id int) *Alert {
	for i := range f.Alerts {
		if f.Alerts[i].ID == id {
			return &f.Alerts[i]
		}
	}
	return nil
}

// Unread counts the fired alerts not yet read.
func (f *File) Unread() int {
	n := 0
	for _, x := range f.Fired {
		if !x.Read {
			n++
		}
	}
	return n
}

// Store is an alerts file: read whole, changed under an advisory lock
// (the dashboard, `tradedeck alerts` and `alerts add` may share it) and
// replaced atomically, so a crash never leaves half a file.
type Store struct {
	path string
}

// NewStore returns the store at path (created on first write).
func NewStore(path string) *Store { return &Store{path: path} }

// Path is the file's path.
func (s *Store) Path() string { return s.path }

// StateDir is $XDG_STATE_HOME/tradedeck, default ~/.local/state/tradedeck.
func StateDir(getenv func(string) string) string { return xdg.State(getenv) }

// DefaultPath is the alerts file of the local user.
func DefaultPath(getenv func(string) string) string {
	return filepath.Join(StateDir(getenv), "alerts.json")
}

// KeyPath is the alerts file of an SSH key in `tradedeck serve`, named by
// its fingerprint ("SHA256:abc/+..." made file-safe).
func KeyPath(getenv func(string) string, fingerprint string) string {
	safe := strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-':
			return r
		}
		return '_'
	}, fingerprint)
	return filepath.Join(StateDir(getenv), "keys", "alerts-"+safe+".json")
}

// CorruptError says the file is not an alerts file; it is left alone.
type CorruptError struct {
	Path string
	Err  error
}

func (e *CorruptError) Error() string {
	return fmt.Sprintf("alerts file %s is unreadable (%v); fix or move it away, it is left untouched", e.Path, e.Err)
}

func (e *CorruptError) Unwrap() error { return e.Err }

// Load reads the file; a missing file is an empty one.
func (s *Store) Load() (File, error) {
	data, err := os.ReadFile(s.path)
	if errors.Is(err, fs.ErrNotExist) {
		return File{Version: 1, NextID: 1, NextSeq: 1}, nil
	}
	if err != nil {
		return File{}, fmt.Errorf("alerts: %w", err)
	}
	return decodeFile(s.path, data)
}

func decodeFile(path string, data []byte) (File, error) {
	var f File
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&f); err != nil {
		return File{}, &CorruptError{Path: path, Err: err}
	}
	if f.NextID < 1 {
		f.NextID = 1
	}
	for _, a := range f.Alerts {
		f.NextID = max(f.NextID, a.ID+1)
	}
	if f.NextSeq < 1 {
		f.NextSeq = 1
	}
	for _, x := range f.Fired {
		f.NextSeq = max(f.NextSeq, x.Seq+1)
	}
	f.Version = 1
	return f, nil
}

// Update changes the file under its lock: read, fn, write atomically. An
// error from fn (or an unreadable file) writes nothing.
func (s *Store) Update(fn func(*File) error) (File, error) {
	if err := os.MkdirAll(filepath.Dir(s.path), 0o700); err != nil {
		return File{}, fmt.Errorf("alerts: %w", err)
	}
	unlock, err := lockFile(s.path + ".lock")
	if err != nil {
		return File{}, err
	}
	defer unlock()
	f, err := s.Load()
	if err != nil {
		return f, err
	}
	if err := fn(&f); err != nil {
		return f, err
	}
	if n := len(f.Fired); n > HistoryLimit {
		f.Fired = append([]Fired(nil), f.Fired[n-HistoryLimit:]...)
	}
	data, err := json.MarshalIndent(&f, "", "  ")
	if err != nil {
		return f, fmt.Errorf("alerts: %w", err)
	}
	return f, writeAtomic(s.path, append(data, '\n'))
}

// Stamp identifies the file's current version (size and modification
// time) to notice another process's change; zero when absent.
func (s *Store) Stamp() Stamp {
	st, err := os.Stat(s.path)
	if err != nil {
		return Stamp{}
	}
	return Stamp{Size: st.Size(), Mod: st.ModTime()}
}

// Stamp is a file version (see Store.Stamp).
type Stamp struct {
	Size int64
	Mod  time.Time
}

// lockFile takes an exclusive advisory lock on path.
func lockFile(path string) (func(), error) {
	lf, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, fmt.Errorf("alerts: lock: %w", err)
	}
	if err := syscall.Flock(int(lf.Fd()), syscall.LOCK_EX); err != nil {
		lf.Close()
		return nil, fmt.Errorf("alerts: lock: %w", err)
	}
	return func() {
		_ = syscall.Flock(int(lf.Fd()), syscall.LOCK_UN)
		lf.Close()
	}, nil
}

// writeAtomic writes a temporary file next to path, syncs it and renames
// it over path: readers see the old file or the new one, never a mix.
func writeAtomic(path string, data []byte) error {
	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, ".alerts-*.tmp")
	if err != nil {
		return fmt.Errorf("alerts: %w", err)
	}
	name := tmp.Name()
	ok := false
	defer func() {
		if !ok {
			tmp.Close()
			os.Remove(name)
		}
	}()
	if err := tmp.Chmod(0o600); err != nil {
		return fmt.Errorf("alerts: %w", err)
	}
	if _, err := tmp.Write(data); err != nil {
		return fmt.Errorf("alerts: %w", err)
	}
	if err := tmp.Sync(); err != nil {
		return fmt.Errorf("alerts: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("alerts: %w", err)
	}
	if err := os.Rename(name, path); err != nil {
		return fmt.Errorf("alerts: %w", err)
	}
	ok = true
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync() // the rename itself survives a crash
		d.Close()
	}
	return nil
}
