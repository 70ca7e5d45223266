//go:build linux

package ws

import (
	"errors"
	"io"
	"net"
	"os"
	"sync"
	"syscall"
	"unsafe"
)

// quietConn is a stream's TCP connection whose reads do not tell the Go
// scheduler they enter a system call. The socket is non-blocking (the
// net package makes it so, and parks the reader on the netpoller when
// it is empty), so a read never blocks and the scheduler has nothing to
// hand over while it runs; but the ordinary read path announces it all
// the same, and that announcement wakes the runtime's monitor thread
// (sysmon) whenever it sleeps: with the process idle between market
// messages it always sleeps, so every message cost a futex wake-up, a
// thread switch and the monitor's polling until it slept again (~15 %
// of `tradedeck watch`'s CPU on a busy market; docs/performance.md).
// Writes keep the ordinary path: they are rare (subscriptions, pings).
type quietConn struct {
	net.Conn
	raw syscall.RawConn

	// One read at a time (coder/websocket reads from one goroutine; the
	// lock keeps a second caller correct): the read function is bound
	// once, its buffer and results are fields, so a read allocates
	// nothing (a closure per read did).
	mu     sync.Mutex
	readFn func(fd uintptr) bool
	p      []byte
	n      int
	errno  syscall.Errno
}

// quiet wraps c when it is a socket the runtime polls; anything else
// (a test's pipe) is returned as it is.
func quiet(c net.Conn) net.Conn {
	sc, ok := c.(syscall.Conn)
	if !ok {
		return c
	}
	raw, err := sc.SyscallConn()
	if err != nil {
		return c
	}
	q := &quietConn{Conn: c, raw: raw}
	q.readFn = q.readFd
	return q
}

// Read reads what the socket holds, waiting on the netpoller (and so the
// connection's read deadline) while it holds nothing.
func (c *quietConn) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	c.mu.Lock()
	c.p, c.n, c.errno = p, 0, 0
	err := c.raw.Read(c.readFn)
	n, errno := c.n, c.errno
	c.p = nil // the caller's buffer is not ours to keep
	c.mu.Unlock()
	switch {
	case err != nil:
		var op *net.OpError
		if errors.As(err, &op) {
			op.Op = "read" // as the ordinary path says it; Err is the same (net.ErrClosed, os.ErrDeadlineExceeded)
			return 0, op
		}
		return 0, c.opError(err)
	case errno != 0:
		return 0, c.opError(os.NewSyscallError("read", errno))
	case n == 0:
		return 0, io.EOF
	}
	return n, nil
}

// readFd is one read(2) of the non-blocking socket into c.p; false: it
// is empty, park until the netpoller says readable.
func (c *quietConn) readFd(fd uintptr) bool {
	for {
		r, _, e := syscall.RawSyscall(syscall.SYS_READ, fd, uintptr(unsafe.Pointer(&c.p[0])), uintptr(len(c.p)))
		switch e {
		case syscall.EINTR:
			continue
		case syscall.EAGAIN:
			return false
		}
		c.n, c.errno = int(r), e
		return true
	}
}

func (c *quietConn) opError(err error) error {
	return &net.OpError{Op: "read", Net: c.LocalAddr().Network(), Source: c.LocalAddr(), Addr: c.RemoteAddr(), Err: err}
}
