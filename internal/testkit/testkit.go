// Package testkit holds what the tests of many packages need alike: a
// clock the test moves by hand, a buffer written and read concurrently, a
// bounded wait for a condition, a file's permissions.
package testkit

import (
	"bytes"
	"io/fs"
	"os"
	"sync"
	"testing"
	"time"
)

// Clock is a clock the test sets: its Now goes where a component takes a
// func() time.Time. Safe for concurrent use.
type Clock struct {
	mu sync.Mutex
	t  time.Time
}

// Buffer is a bytes.Buffer one goroutine may read while others write: a
// log or a screen under test.
type Buffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *Buffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

// String is what was written so far.
func (b *Buffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// NewClock returns a clock standing at t.
func NewClock(t time.Time) *Clock { return &Clock{t: t} }

// Now is the clock's time.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

// Advance moves the clock forward by d.
func (c *Clock) Advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// Perm is the permission bits of the file at path; the test fails when
// it cannot be read.
func Perm(t testing.TB, path string) fs.FileMode {
	t.Helper()
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return st.Mode().Perm()
}

// WaitFor polls cond until it holds and fails the test when it still does
// not after within: a bound on a hang, not a timing the test asserts.
func WaitFor(t testing.TB, what string, within time.Duration, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(within)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}
