package serve

import (
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"
	"weak"

	tea "charm.land/bubbletea/v2"
	"charm.land/log/v2"
	gossh "golang.org/x/crypto/ssh"

	"tradedeck/internal/testkit"
	"tradedeck/serve/servetest"
)

// echoModel shows what the server learned about the client's terminal
// and quits on q, like the dashboard.
type echoModel struct {
	t    Terminal
	w, h int
}

func (m echoModel) Init() tea.Cmd { return nil }

func (m echoModel) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.w, m.h = msg.Width, msg.Height
	case tea.KeyPressMsg:
		if msg.String() == "q" {
			return m, tea.Quit
		}
	}
	return m, nil
}

func (m echoModel) View() tea.View {
	return tea.NewView(fmt.Sprintf("ready user=%s role=%s term=%s nocolor=%q size=%dx%d.",
		m.t.User, m.t.Role, m.t.Getenv("TERM"), m.t.Getenv("NO_COLOR"), m.w, m.h))
}

// testServer runs a server with echoModel sessions; running counts the
// sessions whose background Run has not returned yet.
type testServer struct {
	*Server
	running, closed atomic.Int64
	stop            context.CancelFunc
	done            chan error
}

func start(t *testing.T, cfg Config) *testServer {
	t.Helper()
	ts := &testServer{done: make(chan error, 1)}
	if cfg.Listen == "" {
		cfg.Listen = "127.0.0.1:0"
	}
	if cfg.HostKeyPEM == nil {
		cfg.HostKeyPEM = servetest.NewKey(t).PEM
	}
	cfg.Logger = log.New(io.Discard)
	if cfg.App == nil {
		cfg.App = func(ctx context.Context, term Terminal) (*Session, error) {
			return &Session{
				Model: echoModel{t: term},
				Run: func(ctx context.Context, p *tea.Program) {
					ts.running.Add(1)
					defer ts.running.Add(-1)
					<-ctx.Done()
				},
				Close: func() { ts.closed.Add(1) },
			}, nil
		}
	}
	srv, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ts.Server = srv
	ctx, cancel := context.WithCancel(context.Background())
	ts.stop = cancel
	go func() { ts.done <- srv.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		select {
		case err := <-ts.done:
			if err != nil {
				t.Errorf("server: %v", err)
			}
		case <-time.After(15 * time.Second):
			t.Error("server did not stop")
		}
	})
	return ts
}

func (ts *testServer) addr() string { return ts.Addr().String() }

func dial(t *testing.T, addr string, k servetest.Key) *gossh.Client {
	t.Helper()
	c, err := servetest.Dial(addr, k)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func waitUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	testkit.WaitFor(t, what, 10*time.Second, cond)
}

func TestSessionGetsTerminalAndQuitEndsOnlyIt(t *testing.T) {
	user := servetest.NewKey(t)
	ts := start(t, Config{AuthorizedKeys: servetest.AuthorizedKeys(t, user)})
	c := dial(t, ts.addr(), user)
	tm := servetest.Open(t, c, "xterm-256color", 120, 40, map[string]string{"NO_COLOR": "1"})
	tm.WaitFor(t, 10*time.Second, "ready user=trader role=viewer term=xterm-256color", `nocolor="1"`, "size=120x40.")

	// Resizing the client's window resizes the program.
	if err := tm.Session.WindowChange(30, 90); err != nil {
		t.Fatal(err)
	}
	tm.WaitFor(t, 10*time.Second, "size=90x30.")

	tm.Type(t, "q")
	if err := tm.WaitEnd(t, 10*time.Second); err != nil {
		t.Fatalf("q: session ended with %v, want exit 0", err)
	}
	waitUntil(t, "session freed", func() bool { return ts.running.Load() == 0 && ts.closed.Load() == 1 })

	// The server keeps serving.
	tm2 := servetest.Open(t, dial(t, ts.addr(), user), "xterm", 80, 24, nil)
	tm2.WaitFor(t, 10*time.Second, "ready user=trader role=viewer term=xterm ", "size=80x24.")
}

func TestUnauthorizedKeyAndPasswordsRefused(t *testing.T) {
	user, stranger := servetest.NewKey(t), servetest.NewKey(t)
	path := servetest.AuthorizedKeys(t, user)
	ts := start(t, Config{AuthorizedKeys: path})
	if c, err := servetest.Dial(ts.addr(), stranger); err == nil {
		c.Close()
		t.Fatal("a key not in authorized_keys got in")
	} else if !strings.Contains(err.Error(), "unable to authenticate") {
		t.Fatalf("refusal: %v", err)
	}
	c, err := gossh.Dial("tcp", ts.addr(), &gossh.ClientConfig{
		User: "trader", HostKeyCallback: gossh.InsecureIgnoreHostKey(), Timeout: 10 * time.Second,
		Auth: []gossh.AuthMethod{gossh.Password(""), gossh.Password("trader"),
			gossh.KeyboardInteractive(func(string, string, []string, []bool) ([]string, error) { return nil, nil })},
	})
	if err == nil {
		c.Close()
		t.Fatal("password / keyboard-interactive login accepted")
	}
	// The file is read at every login: a key added later is accepted
	// without a restart.
	b, _ := os.ReadFile(path)
	b = append(b, gossh.MarshalAuthorizedKey(stranger.Signer.PublicKey())...)
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	dial(t, ts.addr(), stranger)
}

func TestSessionWithoutPTYRefused(t *testing.T) {
	user := servetest.NewKey(t)
	ts := start(t, Config{AuthorizedKeys: servetest.AuthorizedKeys(t, user)})
	s, err := dial(t, ts.addr(), user).NewSession()
	if err != nil {
		t.Fatal(err)
	}
	out, err := s.CombinedOutput("")
	var exit *gossh.ExitError
	if !asExit(err, &exit) || exit.ExitStatus() != 1 {
		t.Fatalf("no-PTY session: err %v, want exit status 1", err)
	}
	for _, want := range []string{"ssh -t", "Requires an active PTY"} {
		if !strings.Contains(string(out), want) {
			t.Fatalf("no-PTY message %q lacks %q", out, want)
		}
	}
	if ts.closed.Load() != 0 {
		t.Fatal("an app was started for a session without a terminal")
	}
}

func asExit(err error, e **gossh.ExitError) bool {
	x, ok := err.(*gossh.ExitError)
	*e = x
	return ok
}

// A client that vanishes (connection dropped, no q) leaves no goroutine
// behind: its program, window watcher and background work all end.
func TestAbruptDisconnectFreesSession(t *testing.T) {
	user := servetest.NewKey(t)
	ts := start(t, Config{AuthorizedKeys: servetest.AuthorizedKeys(t, user)})
	// One session first, so lazily started runtime and package
	// goroutines are in the baseline.
	warm := dial(t, ts.addr(), user)
	servetest.Open(t, warm, "xterm", 80, 24, nil).WaitFor(t, 10*time.Second, "ready")
	warm.Close()
	waitUntil(t, "warm-up session freed", func() bool { return ts.closed.Load() == 1 })
	time.Sleep(100 * time.Millisecond)
	base := runtime.NumGoroutine()

	const n = 5
	var open []*gossh.Client
	for i := range n {
		c, err := servetest.Dial(ts.addr(), user)
		if err != nil {
			t.Fatal(err)
		}
		tm := servetest.Open(t, c, "xterm", 80, 24, nil)
		tm.WaitFor(t, 10*time.Second, "ready")
		if i%2 == 0 {
			c.Close() // the whole connection drops
		} else {
			tm.Session.Close() // the channel closes, the connection stays
			open = append(open, c)
		}
	}
	waitUntil(t, "every session freed", func() bool {
		t.Logf("running %d closed %d", ts.running.Load(), ts.closed.Load())
		return ts.running.Load() == 0 && ts.closed.Load() == n+1
	})
	// Now the connections themselves go; what is left must be what was
	// there before.
	for _, c := range open {
		c.Close()
	}
	const tolerance = 3
	var now int
	deadline := time.Now().Add(10 * time.Second)
	for {
		now = runtime.NumGoroutine()
		if now <= base+tolerance || time.Now().After(deadline) {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if now > base+tolerance {
		buf := make([]byte, 1<<20)
		t.Fatalf("goroutines: %d before, %d after %d dropped sessions\n%s", base, now, n, buf[:runtime.Stack(buf, true)])
	}
}

// Shutdown quits every session's program (the client sees its session
// end) and Run returns after all of them.
func TestShutdownEndsSessions(t *testing.T) {
	user := servetest.NewKey(t)
	ts := start(t, Config{AuthorizedKeys: servetest.AuthorizedKeys(t, user)})
	tm := servetest.Open(t, dial(t, ts.addr(), user), "xterm", 80, 24, nil)
	tm.WaitFor(t, 10*time.Second, "ready")
	ts.stop()
	select {
	case err := <-ts.done:
		ts.done <- err // for the cleanup
		if err != nil {
			t.Fatalf("Run: %v", err)
		}
	case <-time.After(15 * time.Second):
		t.Fatal("Run did not return after shutdown")
	}
	if err := tm.WaitEnd(t, 10*time.Second); err != nil {
		t.Fatalf("shutdown: session ended with %v, want exit 0", err)
	}
	tm.WaitFor(t, time.Second, "shutting down")
	if ts.running.Load() != 0 || ts.closed.Load() != 1 {
		t.Fatalf("running %d closed %d after shutdown", ts.running.Load(), ts.closed.Load())
	}
}

func TestAnyKeyOnlyOnLoopback(t *testing.T) {
	app := func(context.Context, Terminal) (*Session, error) { return nil, nil }
	pem := servetest.NewKey(t).PEM
	for _, anyKey := range []bool{true, false} {
		if _, err := New(Config{Listen: "0.0.0.0:0", HostKeyPEM: pem, AllowAnyKey: anyKey, App: app}); err == nil || !strings.Contains(err.Error(), "reachable from other machines") {
			t.Fatalf("all interfaces without authorized keys: %v", err)
		}
	}
	if _, err := New(Config{Listen: "127.0.0.1:0", HostKeyPEM: pem, App: app}); err == nil {
		t.Fatal("no authorized keys and no AllowAnyKey: must refuse")
	}
	for addr, want := range map[string]bool{
		"127.0.0.1:2222": true, "[::1]:2222": true, "localhost:22": true, "127.1.2.3:1": true,
		":2222": false, "0.0.0.0:2222": false, "[::]:2222": false, "192.168.1.2:22": false, "example.com:22": false, "nonsense": false,
	} {
		if IsLoopback(addr) != want {
			t.Errorf("IsLoopback(%q) = %v", addr, !want)
		}
	}
	// On loopback any key gets in, and says who it was in the log.
	ts := start(t, Config{AllowAnyKey: true})
	dial(t, ts.addr(), servetest.NewKey(t))
}

func TestAuthorizedKeysWithOptionsRefused(t *testing.T) {
	k := servetest.NewKey(t)
	p := filepath.Join(t.TempDir(), "ak")
	line := `from="10.0.0.1" ` + string(gossh.MarshalAuthorizedKey(k.Signer.PublicKey()))
	if err := os.WriteFile(p, []byte(line), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := New(Config{Listen: "127.0.0.1:0", HostKeyPEM: k.PEM, AuthorizedKeys: p,
		App: func(context.Context, Terminal) (*Session, error) { return nil, nil }})
	if err == nil || !strings.Contains(err.Error(), "does not enforce") {
		t.Fatalf("options must be refused, got %v", err)
	}
	if _, err := New(Config{Listen: "127.0.0.1:0", HostKeyPEM: k.PEM, AuthorizedKeys: p + ".missing",
		App: func(context.Context, Terminal) (*Session, error) { return nil, nil }}); err == nil {
		t.Fatal("missing authorized keys file accepted")
	}
}

func TestHostKeyGeneratedOnceAndPrivate(t *testing.T) {
	p := filepath.Join(t.TempDir(), "data", "tradedeck", "ssh_host_ed25519_key")
	pem1, s1, err := LoadOrCreateHostKey(p)
	if err != nil {
		t.Fatal(err)
	}
	if m := testkit.Perm(t, p); m != 0o600 {
		t.Fatalf("host key mode %04o, want 0600", m)
	}
	if m := testkit.Perm(t, filepath.Dir(p)); m != 0o700 {
		t.Fatalf("key directory mode %04o, want 0700", m)
	}
	pem2, s2, err := LoadOrCreateHostKey(p)
	if err != nil {
		t.Fatal(err)
	}
	if string(pem1) != string(pem2) || gossh.FingerprintSHA256(s1.PublicKey()) != gossh.FingerprintSHA256(s2.PublicKey()) {
		t.Fatal("the host key changed between starts")
	}
	if s1.PublicKey().Type() != gossh.KeyAlgoED25519 {
		t.Fatalf("key type %s", s1.PublicKey().Type())
	}
	if err := os.Chmod(p, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := LoadOrCreateHostKey(p); err == nil || !strings.Contains(err.Error(), "chmod 600") {
		t.Fatalf("world-readable host key accepted: %v", err)
	}
	if err := os.WriteFile(p, []byte("not a key"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, _, err := LoadOrCreateHostKey(p); err == nil {
		t.Fatal("garbage host key accepted")
	}
	// The server presents that key.
	user := servetest.NewKey(t)
	ts := start(t, Config{HostKeyPEM: pem1, AuthorizedKeys: servetest.AuthorizedKeys(t, user)})
	var seen gossh.PublicKey
	c, err := gossh.Dial("tcp", ts.addr(), &gossh.ClientConfig{
		User: "trader", Auth: []gossh.AuthMethod{gossh.PublicKeys(user.Signer)}, Timeout: 10 * time.Second,
		HostKeyCallback: func(_ string, _ net.Addr, k gossh.PublicKey) error { seen = k; return nil },
	})
	if err != nil {
		t.Fatal(err)
	}
	c.Close()
	if gossh.FingerprintSHA256(seen) != gossh.FingerprintSHA256(s1.PublicKey()) {
		t.Fatal("server presented another host key")
	}
}

func TestDefaultPaths(t *testing.T) {
	env := map[string]string{"HOME": "/h", "XDG_DATA_HOME": "/x"}
	get := func(k string) string { return env[k] }
	if got := DefaultHostKeyPath(get); got != "/x/tradedeck/ssh_host_ed25519_key" {
		t.Fatal(got)
	}
	delete(env, "XDG_DATA_HOME")
	if got := DefaultHostKeyPath(get); got != "/h/.local/share/tradedeck/ssh_host_ed25519_key" {
		t.Fatal(got)
	}
	home := t.TempDir()
	env["HOME"] = home
	if got := DefaultAuthorizedKeys(get); got != "" {
		t.Fatalf("no ~/.ssh/authorized_keys: got %q", got)
	}
	if err := os.MkdirAll(filepath.Join(home, ".ssh"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(home, ".ssh", "authorized_keys"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if got := DefaultAuthorizedKeys(get); got != filepath.Join(home, ".ssh", "authorized_keys") {
		t.Fatal(got)
	}
}

func TestMaxSessions(t *testing.T) {
	user := servetest.NewKey(t)
	ts := start(t, Config{AuthorizedKeys: servetest.AuthorizedKeys(t, user), MaxSessions: 1})
	first := servetest.Open(t, dial(t, ts.addr(), user), "xterm", 80, 24, nil)
	first.WaitFor(t, 10*time.Second, "ready")
	second := servetest.Open(t, dial(t, ts.addr(), user), "xterm", 80, 24, nil)
	second.WaitFor(t, 10*time.Second, "server is full (1 sessions)")
	var exit *gossh.ExitError
	if err := second.WaitEnd(t, 10*time.Second); !asExit(err, &exit) || exit.ExitStatus() != 1 {
		t.Fatalf("over the cap: %v, want exit 1", err)
	}
	first.Type(t, "q")
	if err := first.WaitEnd(t, 10*time.Second); err != nil {
		t.Fatal(err)
	}
	waitUntil(t, "the slot freed", func() bool { return ts.Sessions() == 0 })
	servetest.Open(t, dial(t, ts.addr(), user), "xterm", 80, 24, nil).WaitFor(t, 10*time.Second, "ready")
}

// slowTickModel starts a one-hour tick (as the statistics panes' refresh)
// and owns a big buffer; it quits on q and panics on p.
type slowTickModel struct {
	echoModel
	big *[1 << 20]byte
}

func (m slowTickModel) Init() tea.Cmd {
	return tea.Batch(tea.Tick(time.Hour, func(time.Time) tea.Msg { return nil }), func() tea.Msg { return nil })
}

func (m slowTickModel) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	if k, ok := msg.(tea.KeyPressMsg); ok && k.String() == "p" {
		return m, func() tea.Msg { panic("boom") }
	}
	inner, cmd := m.echoModel.Update(msg)
	m.echoModel = inner.(echoModel)
	return m, cmd
}

// An ended session's model is garbage even while a command it started
// (a long tea.Tick) is still pending.
func TestEndedSessionReleasesItsModel(t *testing.T) {
	user := servetest.NewKey(t)
	var ref weak.Pointer[[1 << 20]byte]
	ts := start(t, Config{AuthorizedKeys: servetest.AuthorizedKeys(t, user),
		App: func(_ context.Context, term Terminal) (*Session, error) {
			m := slowTickModel{echoModel: echoModel{t: term}, big: new([1 << 20]byte)}
			ref = weak.Make(m.big)
			return &Session{Model: m}, nil
		}})
	tm := servetest.Open(t, dial(t, ts.addr(), user), "xterm", 80, 24, nil)
	tm.WaitFor(t, 10*time.Second, "ready")
	tm.Type(t, "q")
	if err := tm.WaitEnd(t, 10*time.Second); err != nil {
		t.Fatal(err)
	}
	waitUntil(t, "the ended session's model to be collected", func() bool {
		runtime.GC()
		return ref.Value() == nil
	})
}

// A command that panics ends its session, not the server.
func TestPanickingCommandEndsOnlyItsSession(t *testing.T) {
	user := servetest.NewKey(t)
	ts := start(t, Config{AuthorizedKeys: servetest.AuthorizedKeys(t, user),
		App: func(_ context.Context, term Terminal) (*Session, error) {
			return &Session{Model: slowTickModel{echoModel: echoModel{t: term}}}, nil
		}})
	tm := servetest.Open(t, dial(t, ts.addr(), user), "xterm", 80, 24, nil)
	tm.WaitFor(t, 10*time.Second, "ready")
	tm.Type(t, "p")
	_ = tm.WaitEnd(t, 10*time.Second) // that it ended is the point, not how
	servetest.Open(t, dial(t, ts.addr(), user), "xterm", 80, 24, nil).WaitFor(t, 10*time.Second, "ready")
}

// A connection that goes silent (no keystroke, no output: what a dead
// network looks like) is closed after IdleTimeout and its session freed.
func TestIdleConnectionClosed(t *testing.T) {
	user := servetest.NewKey(t)
	ts := start(t, Config{AuthorizedKeys: servetest.AuthorizedKeys(t, user), IdleTimeout: 500 * time.Millisecond})
	tm := servetest.Open(t, dial(t, ts.addr(), user), "xterm", 80, 24, nil)
	tm.WaitFor(t, 10*time.Second, "ready")
	_ = tm.WaitEnd(t, 10*time.Second) // that it ended is the point, not how
	waitUntil(t, "the silent session freed", func() bool { return ts.running.Load() == 0 && ts.closed.Load() == 1 })
}
