package serve

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"

	tea "charm.land/bubbletea/v2"
	"charm.land/ssh"
	"charm.land/wish/v2"
	bm "charm.land/wish/v2/bubbletea"
)

// Terminal describes the client's terminal and who is on it.
type Terminal struct {
	User, Remote, Key string // key: SHA256 fingerprint
	Role              Role   // of the key, from the authorized keys file
	Term              string
	Width, Height     int
	Env               []string // what the client sent (ssh SendEnv/SetEnv), TERM added
}

// Getenv looks a variable up in the client's environment (not the
// server's): NO_COLOR, LANG, TERM, ...
func (t Terminal) Getenv(key string) string {
	for i := len(t.Env) - 1; i >= 0; i-- {
		if k, v, ok := strings.Cut(t.Env[i], "="); ok && k == key {
			return v
		}
	}
	return ""
}

// Session is what an App gives one SSH session.
type Session struct {
	Model   tea.Model
	Options []tea.ProgramOption // the SSH input/output/size/colour options are added
	// Run does the session's background work (e.g. its data feed) and
	// returns when ctx ends; p sends it messages. nil: none.
	Run func(ctx context.Context, p *tea.Program)
	// Close frees what the session owns after its program and Run ended.
	Close func()
}

// App builds the program of one session. ctx ends with the session.
type App func(ctx context.Context, t Terminal) (*Session, error)

// teaMiddleware runs the App's program on the session's terminal through
// wish's Bubble Tea middleware (input, output, window size and resize,
// TERM and colour profile of the client). The session's background work
// is cancelled and waited for before the handler returns, so a client
// that vanishes leaves nothing running.
func (s *Server) teaMiddleware() wish.Middleware {
	return func(next ssh.Handler) ssh.Handler {
		return func(sess ssh.Session) {
			if why := s.admit(); why != "" {
				s.log.Warn("session refused: "+why, "remote", sess.RemoteAddr().String(), "key", fingerprint(sess.PublicKey()))
				wish.Fatalln(sess, "tradedeck: "+why)
				return
			}
			defer s.leave()
			ctx, cancel := context.WithCancel(sess.Context())
			stop := context.AfterFunc(s.quit, cancel) // server shutdown ends the session
			defer stop()
			var (
				wg      sync.WaitGroup
				closeFn func()
			)
			defer func() {
				cancel()
				wg.Wait()
				if closeFn != nil {
					closeFn()
				}
			}()
			handler := func(sess ssh.Session) *tea.Program {
				term := s.terminalOf(sess)
				app, err := s.cfg.App(ctx, term)
				if err != nil {
					s.log.Error("session not started", "remote", sess.RemoteAddr().String(), "err", err)
					wish.Fatalln(sess, "tradedeck: "+err.Error())
					return nil
				}
				closeFn = app.Close
				// The process's signals belong to the server (Run shuts
				// sessions down gracefully), not to each program.
				// sizeOptions last: they override MakeOptions' size and filter.
				opts := append(append(slices.Clip(app.Options), tea.WithoutSignalHandler()), bm.MakeOptions(sess)...)
				opts = append(opts, s.sizeOptions(term.Width, term.Height)...)
				if sess.EmulatedPty() {
					// The connection's context outlives a closed channel:
					// end the session when its input does.
					opts = append(opts, tea.WithInput(endOnEOF{&boundedPaste{r: sess}, cancel}))
				}
				p := tea.NewProgram(releaseOnEnd{app.Model, ctx}, opts...)
				// Shutdown quits the program the normal way, so the
				// client's terminal is restored before the channel closes.
				context.AfterFunc(ctx, p.Quit)
				if app.Run != nil {
					wg.Add(1)
					go func() { defer wg.Done(); app.Run(ctx, p) }()
				}
				return p
			}
			bm.MiddlewareWithProgramHandler(handler)(next)(sess)
			if s.quit.Err() != nil {
				wish.Println(sess, "tradedeck serve is shutting down: session closed.")
			}
		}
	}
}

// admit counts a session in, or says why not: the server is shutting
// down or MaxSessions are running. Run waits for admitted sessions.
func (s *Server) admit() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case s.quit.Err() != nil:
		return "the server is shutting down"
	case s.cfg.MaxSessions > 0 && s.sessions >= s.cfg.MaxSessions:
		return fmt.Sprintf("the server is full (%d sessions); try again later", s.cfg.MaxSessions)
	}
	s.sessions++
	s.wg.Add(1)
	return ""
}

func (s *Server) leave() {
	s.mu.Lock()
	s.sessions--
	s.mu.Unlock()
	s.wg.Done()
}

// Sessions is the number of sessions running now.
func (s *Server) Sessions() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.sessions
}

// terminalOf describes the session's terminal, its size capped.
func (s *Server) terminalOf(sess ssh.Session) Terminal {
	pty, _, _ := sess.Pty()
	env := append(sess.Environ(), "TERM="+pty.Term)
	w, h := s.clampSize(pty.Window.Width, pty.Window.Height)
	role, _ := sess.Context().Value(roleKey{}).(Role) // set by logMiddleware; Viewer if not
	return Terminal{
		User: sess.User(), Remote: sess.RemoteAddr().String(), Key: fingerprint(sess.PublicKey()), Role: role,
		Term: pty.Term, Width: w, Height: h, Env: env,
	}
}

// endOnEOF is the session's input; when it ends (the client closed the
// channel, or the connection broke) the session's context is cancelled.
type endOnEOF struct {
	r      io.Reader
	cancel context.CancelFunc
}

func (e endOnEOF) Read(p []byte) (int, error) {
	n, err := e.r.Read(p)
	if err != nil {
		e.cancel()
	}
	return n, err
}

// releaseOnEnd wraps a session's model so that commands still pending
// when the session ends stop holding it. Bubble Tea does not cancel
// running commands when a program ends: a tea.Tick of minutes would keep
// the program, and through it the whole dashboard, alive that long. Each
// command runs on its own goroutine and its result is dropped once ctx
// ends, so the program's goroutines return at once; only the bare
// command (a timer and a small closure) lingers until it fires.
type releaseOnEnd struct {
	inner tea.Model
	ctx   context.Context
}

func (m releaseOnEnd) Init() tea.Cmd { return m.wrap(m.inner.Init()) }

func (m releaseOnEnd) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	inner, cmd := m.inner.Update(msg)
	m.inner = inner
	return m, m.wrap(cmd)
}

func (m releaseOnEnd) View() tea.View { return m.inner.View() }

func (m releaseOnEnd) wrap(cmd tea.Cmd) tea.Cmd {
	if cmd == nil {
		return nil
	}
	ctx := m.ctx
	return func() tea.Msg {
		res := make(chan tea.Msg, 1)
		go func() {
			// A panic is handed back to the program's goroutine, whose
			// recovery ends this session only.
			defer func() {
				if r := recover(); r != nil {
					res <- cmdPanic{r}
				}
			}()
			res <- cmd()
		}()
		select {
		case msg := <-res:
			if p, ok := msg.(cmdPanic); ok {
				panic(p.value)
			}
			if batch, ok := msg.(tea.BatchMsg); ok {
				for i, c := range batch {
					batch[i] = m.wrap(c)
				}
			}
			return msg
		case <-ctx.Done():
			return nil
		}
	}
}

type cmdPanic struct{ value any }
