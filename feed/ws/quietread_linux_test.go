//go:build linux

package ws

import (
	"errors"
	"io"
	"net"
	"testing"
	"time"
)

// loopbackPair is a connected TCP pair: the client side wrapped by quiet.
func loopbackPair(t *testing.T) (client net.Conn, server net.Conn) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	accepted := make(chan net.Conn, 1)
	go func() {
		c, err := ln.Accept()
		if err != nil {
			close(accepted)
			return
		}
		accepted <- c
	}()
	c, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	s, ok := <-accepted
	if !ok {
		t.Fatal("accept failed")
	}
	t.Cleanup(func() { c.Close(); s.Close() })
	q := quiet(c)
	if _, ok := q.(*quietConn); !ok {
		t.Fatalf("quiet(%T) did not wrap a TCP connection", c)
	}
	return q, s
}

func TestQuietConnReadsWhatArrivesAndWaitsWhenEmpty(t *testing.T) {
	c, s := loopbackPair(t)
	got := make(chan string)
	go func() {
		buf := make([]byte, 64)
		n, err := c.Read(buf) // empty socket: parks until the write below
		if err != nil {
			got <- "error: " + err.Error()
			return
		}
		got <- string(buf[:n])
	}()
	time.Sleep(20 * time.Millisecond)
	if _, err := s.Write([]byte("hello")); err != nil {
		t.Fatal(err)
	}
	if g := <-got; g != "hello" {
		t.Fatalf("read %q, want hello", g)
	}
	// Two writes before the read: one read takes both.
	if _, err := s.Write([]byte("ab")); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Write([]byte("cd")); err != nil {
		t.Fatal(err)
	}
	time.Sleep(20 * time.Millisecond)
	buf := make([]byte, 64)
	n, err := c.Read(buf)
	if err != nil || string(buf[:n]) != "abcd" {
		t.Fatalf("read %q, %v; want abcd", buf[:n], err)
	}
	// A short buffer takes what fits; the rest is there for the next read.
	if _, err := s.Write([]byte("xyz")); err != nil {
		t.Fatal(err)
	}
	time.Sleep(20 * time.Millisecond)
	if n, err := c.Read(buf[:2]); err != nil || string(buf[:n]) != "xy" {
		t.Fatalf("read %q, %v; want xy", buf[:n], err)
	}
	if n, err := c.Read(buf); err != nil || string(buf[:n]) != "z" {
		t.Fatalf("read %q, %v; want z", buf[:n], err)
	}
}

func TestQuietConnEndsAsTheOrdinaryReadDoes(t *testing.T) {
	t.Run("peer closed: EOF", func(t *testing.T) {
		c, s := loopbackPair(t)
		s.Close()
		if _, err := c.Read(make([]byte, 8)); err != io.EOF {
			t.Fatalf("read after the peer closed: %v, want io.EOF", err)
		}
	})
	t.Run("deadline: a timeout", func(t *testing.T) {
		c, _ := loopbackPair(t)
		if err := c.SetReadDeadline(time.Now().Add(30 * time.Millisecond)); err != nil {
			t.Fatal(err)
		}
		_, err := c.Read(make([]byte, 8))
		var ne net.Error
		if !errors.As(err, &ne) || !ne.Timeout() {
			t.Fatalf("read past the deadline: %v, want a timeout", err)
		}
	})
	t.Run("closed while reading: net.ErrClosed", func(t *testing.T) {
		c, _ := loopbackPair(t)
		errc := make(chan error, 1)
		go func() { _, err := c.Read(make([]byte, 8)); errc <- err }()
		time.Sleep(20 * time.Millisecond)
		c.Close()
		select {
		case err := <-errc:
			var op *net.OpError
			if !errors.Is(err, net.ErrClosed) || !errors.As(err, &op) || op.Op != "read" {
				t.Fatalf("read on a closed connection: %v, want net.ErrClosed from a read", err)
			}
		case <-time.After(5 * time.Second):
			t.Fatal("a read on a closed connection did not return")
		}
	})
}

func TestQuietLeavesOtherConnectionsAlone(t *testing.T) {
	a, b := net.Pipe()
	defer a.Close()
	defer b.Close()
	if q := quiet(a); q != a {
		t.Fatalf("quiet wrapped a pipe: %T", q)
	}
}

// A read of a socket that holds data allocates nothing (it runs per
// market message).
func TestQuietConnReadAllocatesNothing(t *testing.T) {
	c, s := loopbackPair(t)
	buf := make([]byte, 64)
	msg := []byte("x")
	allocs := testing.AllocsPerRun(100, func() {
		if _, err := s.Write(msg); err != nil {
			t.Fatal(err)
		}
		if _, err := c.Read(buf); err != nil {
			t.Fatal(err)
		}
	})
	if allocs != 0 {
		t.Fatalf("%.1f allocations per read, want 0", allocs)
	}
}
