// Package serve runs a Bubble Tea application for every SSH session: the
// SSH server of `tradedeck serve`. It owns the transport (host key,
// public-key access control, PTY checks, logging, shutdown); what is shown
// comes from an App the caller supplies, so this package knows nothing of
// the dashboard.
package serve

import (
	"context"
	"errors"
	"fmt"
	"net"
	"sync"
	"time"

	"charm.land/log/v2"
	"charm.land/ssh"
	"charm.land/wish/v2"
	"charm.land/wish/v2/activeterm"
	"charm.land/wish/v2/recover"
	gossh "golang.org/x/crypto/ssh"
)

// Config configures a Server.
type Config struct {
	Listen     string // host:port; default 127.0.0.1:2222
	HostKeyPEM []byte // OpenSSH private key (LoadOrCreateHostKey)
	// AuthorizedKeys is the authorized_keys file holding the public keys
	// allowed in. Empty means any key is accepted, which New only allows
	// with AllowAnyKey on a loopback address.
	AuthorizedKeys string
	AllowAnyKey    bool
	App            App
	Logger         *log.Logger   // nil: log.Default()
	ShutdownGrace  time.Duration // how long Run waits for sessions to end; default 5 s
	// MaxSessions caps concurrent sessions (each costs the venue its own
	// streams); 0: no cap. A session over the cap is told and closed.
	MaxSessions int
	// IdleTimeout closes a connection on which nothing was read or
	// written for this long: a client whose network died is freed even
	// though no FIN ever arrives. 0: never. Pick it above the App's
	// slowest redraw (the dashboard redraws its clock every second).
	IdleTimeout time.Duration
	// MaxWidth and MaxHeight cap the window a session is drawn in (its
	// memory grows with the size); 0: DefaultMaxWidth, DefaultMaxHeight.
	MaxWidth, MaxHeight int
}

// DefaultListen is the default address: loopback only.
const DefaultListen = "127.0.0.1:2222"

// Server is a listening SSH server.
type Server struct {
	cfg    Config
	log    *log.Logger
	srv    *ssh.Server
	ln     net.Listener
	quit   context.Context // ends every session on shutdown
	cancel context.CancelFunc

	mu       sync.Mutex
	sessions int            // running now
	wg       sync.WaitGroup // admitted sessions, so Run returns after them
}

// New checks the configuration, builds the server and binds the listen
// address (so Addr is known before Run).
func New(cfg Config) (*Server, error) {
	if cfg.Listen == "" {
		cfg.Listen = DefaultListen
	}
	if cfg.App == nil {
		return nil, errors.New("serve: no App")
	}
	if cfg.MaxWidth <= 0 {
		cfg.MaxWidth = DefaultMaxWidth
	}
	if cfg.MaxHeight <= 0 {
		cfg.MaxHeight = DefaultMaxHeight
	}
	if cfg.ShutdownGrace <= 0 {
		cfg.ShutdownGrace = 5 * time.Second
	}
	logger := cfg.Logger
	if logger == nil {
		logger = log.Default()
	}
	if err := checkAccess(cfg, logger); err != nil {
		return nil, err
	}
	s := &Server{cfg: cfg, log: logger}
	s.quit, s.cancel = context.WithCancel(context.Background())
	srv, err := wish.NewServer(
		wish.WithHostKeyPEM(cfg.HostKeyPEM),
		// Public keys only: with no password or keyboard-interactive
		// handler set, the server never offers those methods.
		wish.WithPublicKeyAuth(keyAuth(cfg.AuthorizedKeys, logger)),
		wish.WithMiddleware(
			// Innermost first: the app, then the PTY check, with panics
			// of either confined to their session, and logging outermost
			// so refused sessions are logged too.
			recover.MiddlewareWithLogger(logger, s.teaMiddleware(), activeterm.Middleware()),
			s.logMiddleware(),
		),
	)
	if err != nil {
		s.cancel()
		return nil, fmt.Errorf("serve: %w", err)
	}
	// The idle timeout is ours (idleConn), not charm.land/ssh's: v0.4.2
	// clears its handshake deadline after the handshake while the
	// connection's reader goroutine reads it on every Read whenever its own
	// IdleTimeout is set (a data race the race detector reports).
	srv.HandshakeTimeout = 30 * time.Second
	srv.ConnCallback = func(ctx ssh.Context, c net.Conn) net.Conn {
		countChannels(ctx)
		if cfg.IdleTimeout > 0 {
			return newIdleConn(c, cfg.IdleTimeout)
		}
		return c
	}
	srv.ChannelHandlers = map[string]ssh.ChannelHandler{"session": limitedSession}
	srv.ConnectionFailedCallback = func(c net.Conn, err error) {
		logger.Warn("connection refused", "remote", c.RemoteAddr().String(), "err", err)
	}
	s.srv = srv
	ln, err := net.Listen("tcp", cfg.Listen)
	if err != nil {
		s.cancel()
		return nil, fmt.Errorf("serve: %w", err)
	}
	s.ln = ln
	return s, nil
}

// checkAccess refuses a server without authorized keys off loopback (or
// when any key is not allowed), and logs the keys per role.
func checkAccess(cfg Config, logger *log.Logger) error {
	if cfg.AuthorizedKeys == "" {
		if !IsLoopback(cfg.Listen) {
			return fmt.Errorf("serve: refusing to listen on %s, reachable from other machines, without an authorized keys file: give --authorized-keys", cfg.Listen)
		}
		if !cfg.AllowAnyKey {
			return errors.New("serve: no authorized keys file (--authorized-keys)")
		}
	} else {
		keys, err := readAuthorizedKeys(cfg.AuthorizedKeys)
		if err != nil {
			return fmt.Errorf("serve: authorized keys: %w", err)
		}
		if len(keys) == 0 {
			logger.Warn("authorized keys file holds no key: every login will be refused", "path", cfg.AuthorizedKeys)
		}
		traders := 0
		for _, k := range keys {
			if k.Role == Trader {
				traders++
			}
		}
		logger.Info("authorized keys", "path", cfg.AuthorizedKeys, "viewers", len(keys)-traders, "traders", traders)
	}
	return nil
}

// Close releases a server that will not Run.
func (s *Server) Close() error {
	s.cancel()
	return s.ln.Close()
}

// Addr is the address listened on.
func (s *Server) Addr() net.Addr { return s.ln.Addr() }

// Run serves until ctx ends, then shuts down: no new connections, every
// session's program is told to quit (its client sees the terminal
// restored), and after ShutdownGrace the remaining connections are cut.
// It returns after every session handler has returned.
func (s *Server) Run(ctx context.Context) error {
	errc := make(chan error, 1)
	go func() { errc <- s.srv.Serve(s.ln) }()
	var err error
	select {
	case <-ctx.Done():
	case err = <-errc:
		if errors.Is(err, ssh.ErrServerClosed) {
			err = nil
		}
	}
	s.mu.Lock() // no session is admitted after this (admit)
	s.cancel()
	s.mu.Unlock()
	sctx, cancel := context.WithTimeout(context.Background(), s.cfg.ShutdownGrace)
	defer cancel()
	if serr := s.srv.Shutdown(sctx); serr != nil && !errors.Is(serr, ssh.ErrServerClosed) {
		_ = s.srv.Close()
	}
	s.wg.Wait()
	return err
}

// logMiddleware logs every session's start and end with the remote
// address, user and key fingerprint (never anything secret).
func (s *Server) logMiddleware() wish.Middleware {
	return func(next ssh.Handler) ssh.Handler {
		return func(sess ssh.Session) {
			start := time.Now()
			pty, _, hasPty := sess.Pty()
			remote, fp := sess.RemoteAddr().String(), fingerprint(sess.PublicKey())
			if !hasPty {
				s.log.Warn("session refused: no terminal (ssh -t)", "remote", remote, "user", sess.User(), "key", fp)
				// activeterm then says "Requires an active PTY" and exits 1.
				wish.Errorln(sess, "tradedeck serve draws the dashboard on a terminal: connect with `ssh -t` (commands and pipes are not supported).")
			} else {
				role, err := s.roleOf(sess)
				if err != nil {
					s.log.Warn("session refused: "+err.Error(), "remote", remote, "user", sess.User(), "key", fp)
					wish.Fatalln(sess, "tradedeck: "+err.Error())
					return
				}
				sess.Context().SetValue(roleKey{}, role)
				s.log.Info("connect", "remote", remote, "user", sess.User(), "key", fp, "role", role,
					"term", pty.Term, "size", fmt.Sprintf("%dx%d", pty.Window.Width, pty.Window.Height),
					"client", sess.Context().ClientVersion())
			}
			next(sess)
			if hasPty {
				s.log.Info("disconnect", "remote", remote, "user", sess.User(), "key", fp,
					"duration", time.Since(start).Round(time.Second))
			}
		}
	}
}

type roleKey struct{}

// roleOf is the role of the key the session authenticated with, read
// from the authorized keys file now: a key removed since the login gets
// no session, and the role is that of the key actually used, whatever
// other keys the client offered first. Any key (no file): Viewer.
func (s *Server) roleOf(sess ssh.Session) (Role, error) {
	if s.cfg.AuthorizedKeys == "" {
		return Viewer, nil
	}
	k := sess.PublicKey()
	if k == nil {
		return Viewer, errors.New("no public key")
	}
	role, ok, err := authorized(s.cfg.AuthorizedKeys, k)
	if err != nil {
		return Viewer, err
	}
	if !ok {
		return Viewer, errors.New("key no longer authorized")
	}
	return role, nil
}

func fingerprint(k ssh.PublicKey) string {
	if k == nil {
		return ""
	}
	return gossh.FingerprintSHA256(k)
}
