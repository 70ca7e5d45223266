package serve

import (
	"errors"
	"io"
	"net"
	"os"
	"testing"
	"time"
)

func pipeTCP(t *testing.T) (server, client net.Conn) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	client, err = net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	server, err = ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { server.Close(); client.Close() })
	return server, client
}

// deadlineConn records the deadlines an idleConn sets; reads and writes
// succeed at once.
type deadlineConn struct {
	net.Conn
	deadline time.Time
}

func (d *deadlineConn) Read(b []byte) (int, error)         { return len(b), nil }
func (d *deadlineConn) Write(b []byte) (int, error)        { return len(b), nil }
func (d *deadlineConn) SetDeadline(t time.Time) error      { d.deadline = t; return nil }
func (d *deadlineConn) SetReadDeadline(t time.Time) error  { panic("not used") }
func (d *deadlineConn) SetWriteDeadline(t time.Time) error { panic("not used") }

// Every read and write pushes the deadline to idle from now; a cleared
// server deadline leaves the idle one; an earlier server deadline wins
// until cleared, a later one does not. Checked against the clock read
// before and after each call, so no timing can make it pass or fail.
func TestIdleConnEveryIOPushesTheDeadline(t *testing.T) {
	const idle = time.Minute
	fc := &deadlineConn{}
	var c *idleConn
	expectIdle := func(what string, op func()) {
		t.Helper()
		before := time.Now()
		op()
		after := time.Now()
		if fc.deadline.Before(before.Add(idle)) || fc.deadline.After(after.Add(idle)) {
			t.Fatalf("%s: deadline %v, want idle (%v) from the call (%v..%v)", what, fc.deadline, idle, before, after)
		}
	}
	expectIdle("new", func() { c = newIdleConn(fc, idle) })
	fc.deadline = time.Time{}
	expectIdle("read", func() { must(t)(c.Read(make([]byte, 1))) })
	fc.deadline = time.Time{}
	expectIdle("write", func() { must(t)(c.Write([]byte{'x'})) })
	expectIdle("cleared server deadline", func() { must(t)(0, c.SetDeadline(time.Time{})) })
	expectIdle("later server deadline", func() { must(t)(0, c.SetDeadline(time.Now().Add(2*idle))) })
	early := time.Now().Add(idle / 2)
	must(t)(0, c.SetDeadline(early))
	must(t)(c.Read(make([]byte, 1)))
	if !fc.deadline.Equal(early) {
		t.Fatalf("earlier server deadline %v replaced by %v", early, fc.deadline)
	}
	expectIdle("cleared again", func() { must(t)(0, c.SetDeadline(time.Time{})) })
}

// must fails t on an I/O call's error.
func must(t *testing.T) func(int, error) {
	return func(_ int, err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
}

// On a real socket the deadline cuts a silent connection, also after a
// cleared server deadline.
func TestIdleConnCutsSilence(t *testing.T) {
	srv, cli := pipeTCP(t)
	c := newIdleConn(srv, 200*time.Millisecond)
	buf := make([]byte, 1)
	if _, err := cli.Write([]byte{'x'}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Read(buf); err != nil || buf[0] != 'x' {
		t.Fatalf("read during traffic: %v", err)
	}
	if err := c.SetDeadline(time.Time{}); err != nil {
		t.Fatal(err)
	}
	readTimesOut(t, "a silent connection", c)
}

// The server's own (handshake) deadline still applies when it is earlier.
func TestIdleConnKeepsAnEarlierServerDeadline(t *testing.T) {
	srv, _ := pipeTCP(t)
	c := newIdleConn(srv, time.Hour)
	if err := c.SetDeadline(time.Now().Add(100 * time.Millisecond)); err != nil {
		t.Fatal(err)
	}
	readTimesOut(t, "the handshake deadline", c)
}

// readTimesOut fails the test unless a read of r ends at its deadline;
// the 10 s only bound a hang.
func readTimesOut(t *testing.T, what string, r io.Reader) {
	t.Helper()
	done := make(chan error, 1)
	go func() { _, err := r.Read(make([]byte, 1)); done <- err }()
	select {
	case err := <-done:
		if !errors.Is(err, os.ErrDeadlineExceeded) {
			t.Fatalf("%s: the read ended with %v", what, err)
		}
	case <-time.After(10 * time.Second):
		t.Fatalf("%s: the read did not time out", what)
	}
}
