package control

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"sync"
	"time"

	"tradedeck/algo"
)

// Engine is what the server serves: *algo.Engine.
type Engine interface {
	algo.Service
	Ready() <-chan struct{}
}

var _ Engine = (*algo.Engine)(nil)

// ServerConfig builds a Server.
type ServerConfig struct {
	Engine Engine
	Info   Info
	// UID is the only user whose processes may connect (nil: this
	// process's user).
	UID *int
	// Action, when set, is told of every change a view asked for, after
	// the engine answered (serve's audit): who (the peer's process), what
	// and the engine's error.
	Action func(by, op, detail string, err error)
	// Log receives one line per refused or broken connection; nil: none.
	Log func(string)
	// MaxConns bounds the views at once (0: 32).
	MaxConns int
}

// Server answers the views of one engine on a Unix socket.
type Server struct {
	cfg   ServerConfig
	uid   int
	slots chan struct{}
	wg    sync.WaitGroup
}

// NewServer returns a server; Serve runs it.
func NewServer(c ServerConfig) *Server {
	uid := os.Getuid()
	if c.UID != nil {
		uid = *c.UID
	}
	if c.MaxConns <= 0 {
		c.MaxConns = 32
	}
	return &Server{cfg: c, uid: uid, slots: make(chan struct{}, c.MaxConns)}
}

// Listen opens the engine's socket at path, readable and writable by the
// user only (0600, in the 0700 engines directory). The caller holds the
// account's Lock: a socket file left by a process that was killed is
// removed first.
func Listen(path string) (*net.UnixListener, error) {
	if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("engine socket: %w", err)
	}
	l, err := net.ListenUnix("unix", &net.UnixAddr{Name: path, Net: "unix"})
	if err != nil {
		return nil, fmt.Errorf("engine socket: %w", err)
	}
	l.SetUnlinkOnClose(true)
	if err := os.Chmod(path, 0o600); err != nil {
		l.Close()
		return nil, fmt.Errorf("engine socket: %w", err)
	}
	return l, nil
}

// Serve answers connections on l until ctx ends; then it closes l and
// every connection and returns once their goroutines have.
func (s *Server) Serve(ctx context.Context, l *net.UnixListener) error {
	stop := context.AfterFunc(ctx, func() { l.Close() })
	defer stop()
	defer s.wg.Wait()
	for {
		c, err := l.AcceptUnix()
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				continue
			}
			return fmt.Errorf("engine socket: %w", err)
		}
		uid, pid, err := peer(c)
		switch {
		case err != nil:
			s.logf("engine socket: refused a connection: %v", err)
			s.refuse(c, "the peer's user could not be checked: "+err.Error())
			continue
		case uid != s.uid:
			s.logf("engine socket: refused process %d of user %d (only user %d may connect)", pid, uid, s.uid)
			s.refuse(c, "only the engine's own user may connect")
			continue
		}
		select {
		case s.slots <- struct{}{}:
		default:
			s.refuse(c, fmt.Sprintf("too many views (%d)", s.cfg.MaxConns))
			continue
		}
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			defer func() { <-s.slots }()
			s.conn(ctx, c, pid)
		}()
	}
}

func (s *Server) logf(format string, a ...any) {
	if s.cfg.Log != nil {
		s.cfg.Log(fmt.Sprintf(format, a...))
	}
}

// refuse says why in one line and hangs up.
func (s *Server) refuse(c net.Conn, why string) {
	_ = c.SetWriteDeadline(time.Now().Add(time.Second))
	b, _ := json.Marshal(Response{Error: why, Code: "refused"})
	_, _ = c.Write(append(b, '\n'))
	_ = c.Close()
}

// writeTimeout bounds one line written to a view: a view that stops
// reading is cut off, never waited for.
const writeTimeout = 5 * time.Second

// conn serves one view until it hangs up, sends a line that is not this
// protocol's, or ctx ends.
func (s *Server) conn(ctx context.Context, c *net.UnixConn, pid int) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stop := context.AfterFunc(ctx, func() { c.Close() })
	defer stop()
	out := make(chan Response, 64)
	writerDone := make(chan struct{})
	go func() {
		defer close(writerDone)
		defer cancel()
		enc := json.NewEncoder(c)
		for {
			select {
			case <-ctx.Done():
				return
			case r := <-out:
				_ = c.SetWriteDeadline(time.Now().Add(writeTimeout))
				if err := enc.Encode(r); err != nil {
					return
				}
			}
		}
	}()
	by := fmt.Sprintf("process %d", pid)
	send := func(r Response) bool {
		select {
		case out <- r:
			return true
		case <-ctx.Done():
			return false
		}
	}
	subscribed := false
	sc := bufio.NewScanner(c)
	sc.Buffer(make([]byte, 0, 4096), MaxRequest)
	for sc.Scan() {
		var req Request
		if err := json.Unmarshal(sc.Bytes(), &req); err != nil {
			if !send(Response{Error: "not a request of this protocol: " + clean(err.Error()), Code: "bad_request"}) {
				break
			}
			continue
		}
		if req.Op == OpSubscribe {
			if subscribed {
				send(Response{ID: req.ID, Data: json.RawMessage(`true`)})
			} else {
				subscribed = true
				s.subscribe(ctx, req.ID, send)
			}
			continue
		}
		if !send(s.answer(req, by)) {
			break
		}
	}
	if err := sc.Err(); errors.Is(err, bufio.ErrTooLong) {
		send(Response{Error: fmt.Sprintf("a line longer than %d bytes: hanging up", MaxRequest), Code: "bad_request"})
	}
	// Let the writer send what is queued, briefly, then hang up.
	select {
	case <-writerDone:
	case <-time.After(100 * time.Millisecond):
	}
	cancel()
	<-writerDone
}

// subscribe forwards the engine's events to the view until ctx ends.
func (s *Server) subscribe(ctx context.Context, id uint64, send func(Response) bool) {
	events, unsubscribe := s.cfg.Engine.Subscribe(256)
	send(Response{ID: id, Data: json.RawMessage(`true`)})
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		defer unsubscribe()
		for {
			select {
			case <-ctx.Done():
				return
			case ev, ok := <-events:
				if !ok || !send(Response{Event: &ev}) {
					return
				}
			}
		}
	}()
}
