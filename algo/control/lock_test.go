package control

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// One holder at a time; the second learns who holds it; Release lets the
// next one take it; Find says "engine not running" when nobody holds it.
func TestLockOneHolder(t *testing.T) {
	p, err := PathsOf(Dir(t.TempDir()), "http://127.0.0.1:9 KEY")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if _, err := Find(ctx, p, "t"); !errors.Is(err, ErrNotRunning) {
		t.Fatalf("find with no lock file: %v", err)
	}
	a, err := Acquire(p, Holder{PID: os.Getpid(), Host: "desk", Venue: "LIVE"})
	if err != nil {
		t.Fatal(err)
	}
	_, err = Acquire(p, Holder{PID: os.Getpid(), Host: "dashboard"})
	var held *HeldError
	if !errors.As(err, &held) || !errors.Is(err, ErrHeld) || held.Holder.Host != "desk" || held.Holder.PID != os.Getpid() {
		t.Fatalf("second acquire: %v", err)
	}
	if h, ok, err := Held(p); err != nil || !ok || h.Host != "desk" {
		t.Fatalf("held: %+v %v %v", h, ok, err)
	}
	a.Release()
	if _, ok, _ := Held(p); ok {
		t.Fatal("held after release")
	}
	if _, err := Find(ctx, p, "t"); !errors.Is(err, ErrNotRunning) {
		t.Fatalf("find after release: %v", err)
	}
	b, err := Acquire(p, Holder{PID: os.Getpid(), Host: "dashboard"})
	if err != nil {
		t.Fatal(err)
	}
	b.Release()
	if st, err := os.Stat(filepath.Dir(p.Lock)); err != nil || st.Mode().Perm() != 0o700 {
		t.Fatalf("engines directory: %v %v, want mode 0700", st, err)
	}
}

func TestSocketPathTooLong(t *testing.T) {
	long := "/tmp/" + string(make([]byte, 0))
	for len(long) < 120 {
		long += "d"
	}
	if _, err := PathsOf(long, "x"); err == nil {
		t.Fatal("a socket path past the kernel's limit was accepted")
	}
}
