// Package control makes one protective-orders engine per account: a lock
// next to the state says which process runs the engine of an account, and
// a local Unix socket beside it lets other processes of the same user be
// views of it (list its algos, follow its events, and send it their
// commands). The protocol is JSON lines; docs/algos.md describes it.
//
// The engine's process holds Lock and runs a Server on its listener; any
// other process finds it with Find and talks to it through a Client,
// which has the method set of *algo.Engine that the screens use.
package control

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// DirName is the directory of the locks and sockets in the state
// directory (mode 0700: only the user reaches the sockets in it).
const DirName = "engines"

// Dir is the engines' directory in state directory state (xdg.State).
func Dir(state string) string { return filepath.Join(state, DirName) }

// Paths are the files of one account's engine: its lock (which also says
// who holds it) and its socket.
type Paths struct {
	Lock, Socket string
}

// maxSocketPath is the longest Unix socket path the kernel takes
// (sun_path is 108 bytes with its terminating NUL).
const maxSocketPath = 107

// PathsOf names the files of account (algo.AccountKey) in dir. The name
// is a hash of the account key: the API key is not written in a file
// name, and the socket path stays short.
func PathsOf(dir, account string) (Paths, error) {
	sum := sha256.Sum256([]byte(account))
	base := filepath.Join(dir, hex.EncodeToString(sum[:8]))
	p := Paths{Lock: base + ".lock", Socket: base + ".sock"}
	if len(p.Socket) > maxSocketPath {
		return p, fmt.Errorf("the engine's socket path %s is longer than the %d bytes a Unix socket allows: set XDG_STATE_HOME to a shorter directory", p.Socket, maxSocketPath)
	}
	return p, nil
}

// Holder is what the lock file says about the process holding it.
type Holder struct {
	PID     int       `json:"pid"`
	Venue   string    `json:"venue"`   // SIM, LIVE, STAGING, PAPER
	Host    string    `json:"host"`    // what runs it: dashboard, desk, serve
	Started time.Time `json:"started"` // when it took the lock
}

func (h Holder) String() string {
	s := fmt.Sprintf("process %d", h.PID)
	if h.Host != "" {
		s = fmt.Sprintf("%s (tradedeck %s)", s, h.Host)
	}
	return s
}

// Lock is the held lock of one account's engine: while it is held (until
// Release, or the process ends however it ends, kill -9 included: the
// kernel drops an flock with its last descriptor), no other process runs
// that engine.
type Lock struct {
	Paths Paths
	f     *os.File
}

// ErrHeld: another process holds the engine's lock; the error is a
// *HeldError saying which.
var ErrHeld = errors.New("another process runs the engine of this account")

// HeldError names the process that holds the lock.
type HeldError struct{ Holder Holder }

func (e *HeldError) Error() string {
	return fmt.Sprintf("the engine of this account runs in %s", e.Holder)
}

func (e *HeldError) Unwrap() error { return ErrHeld }

// EnsureDir makes dir (mode 0700) and refuses one that others can enter:
// the socket in it must be reachable by the user only.
func EnsureDir(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("engine directory: %w", err)
	}
	st, err := os.Stat(dir)
	if err != nil {
		return fmt.Errorf("engine directory: %w", err)
	}
	if st.Mode().Perm()&0o077 != 0 {
		if err := os.Chmod(dir, 0o700); err != nil {
			return fmt.Errorf("engine directory %s is open to other users and cannot be closed: %w", dir, err)
		}
	}
	return nil
}

// Acquire takes the lock of the account's engine without waiting, and
// writes h into it. A lock another process holds gives a *HeldError.
func Acquire(p Paths, h Holder) (*Lock, error) {
	if err := EnsureDir(filepath.Dir(p.Lock)); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(p.Lock, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("engine lock: %w", err)
	}
	if err := flockRetrying(f, p); err != nil {
		f.Close()
		return nil, err
	}
	b, _ := json.Marshal(h)
	err = f.Truncate(0)
	if err == nil {
		_, err = f.WriteAt(append(b, '\n'), 0)
	}
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("engine lock %s: %w", p.Lock, err)
	}
	return &Lock{Paths: p, f: f}, nil
}

// flockRetrying takes the lock; a lock held for a moment by a process
// that only looks (Held) or whose holder is no longer alive is tried
// again for a short while before another process is named as the holder.
func flockRetrying(f *os.File, p Paths) error {
	for try := 0; ; try++ {
		err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB)
		if err == nil {
			return nil
		}
		if !errors.Is(err, unix.EWOULDBLOCK) {
			return fmt.Errorf("engine lock %s: %w", p.Lock, err)
		}
		held, _ := ReadHolder(p)
		if try >= 10 || (held.PID > 0 && alive(held.PID)) {
			return &HeldError{Holder: held}
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// alive reports whether process pid exists.
func alive(pid int) bool {
	err := unix.Kill(pid, 0)
	return err == nil || errors.Is(err, unix.EPERM)
}

// Release drops the lock (the process no longer runs the engine).
func (l *Lock) Release() {
	if l == nil || l.f == nil {
		return
	}
	_ = l.f.Truncate(0)
	_ = l.f.Close() // closing the last descriptor drops the flock
	l.f = nil
}

// ReadHolder reads who holds (or last held) the lock.
func ReadHolder(p Paths) (Holder, error) {
	b, err := os.ReadFile(p.Lock)
	if err != nil {
		return Holder{}, err
	}
	var h Holder
	if err := json.Unmarshal([]byte(strings.TrimSpace(string(b))), &h); err != nil {
		return Holder{}, fmt.Errorf("engine lock %s: %w", p.Lock, err)
	}
	return h, nil
}

// Held reports whether a process holds the lock now, and which. It takes
// the lock for a moment to know (and drops it at once).
func Held(p Paths) (Holder, bool, error) {
	f, err := os.OpenFile(p.Lock, os.O_RDWR, 0)
	if errors.Is(err, os.ErrNotExist) {
		return Holder{}, false, nil
	}
	if err != nil {
		return Holder{}, false, fmt.Errorf("engine lock: %w", err)
	}
	defer f.Close()
	if err := unix.Flock(int(f.Fd()), unix.LOCK_SH|unix.LOCK_NB); err != nil {
		if errors.Is(err, unix.EWOULDBLOCK) {
			h, _ := ReadHolder(p)
			return h, true, nil
		}
		return Holder{}, false, fmt.Errorf("engine lock %s: %w", p.Lock, err)
	}
	return Holder{}, false, nil // closing f drops our shared lock
}
