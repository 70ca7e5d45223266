package serve

import (
	"net"
	"sync/atomic"
	"time"
)

// idleConn closes a connection on which nothing was read or written for
// idle: every Read and Write pushes the deadline of both directions out,
// so a session whose dashboard keeps drawing stays up while a dead network
// (nothing goes through either way) is cut. A deadline the SSH server sets
// (its handshake timeout) still applies when it comes first.
type idleConn struct {
	net.Conn
	idle  time.Duration
	fixed atomic.Int64 // the server's deadline in unix ns; 0 when none
}

func newIdleConn(c net.Conn, idle time.Duration) *idleConn {
	ic := &idleConn{Conn: c, idle: idle}
	ic.touch()
	return ic
}

// touch sets the deadline: idle from now, or the server's if earlier.
func (c *idleConn) touch() {
	d := time.Now().Add(c.idle)
	if f := c.fixed.Load(); f != 0 && f < d.UnixNano() {
		d = time.Unix(0, f)
	}
	_ = c.Conn.SetDeadline(d)
}

func (c *idleConn) Read(b []byte) (int, error) {
	c.touch()
	return c.Conn.Read(b)
}

func (c *idleConn) Write(b []byte) (int, error) {
	c.touch()
	return c.Conn.Write(b)
}

// SetDeadline records the server's deadline (a zero time clears it) and
// applies whichever of it and the idle deadline comes first.
func (c *idleConn) SetDeadline(t time.Time) error {
	var ns int64
	if !t.IsZero() {
		ns = t.UnixNano()
	}
	c.fixed.Store(ns)
	c.touch()
	return nil
}
