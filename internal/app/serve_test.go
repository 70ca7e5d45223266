package app

import (
	"context"
	"io"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"charm.land/log/v2"

	"tradedeck/config"
	"tradedeck/serve/servetest"
)

// startServe runs `tradedeck serve` on the embedded simulated venue, on
// 127.0.0.1:0, and returns its address and the user key allowed in: a
// trader's key with --trade, else a viewer's.
func startServe(t *testing.T, trade bool) (string, servetest.Key, *Venue) {
	t.Helper()
	user := servetest.NewKey(t)
	role := ""
	if trade {
		role = "tradedeck-role=trader"
	}
	fl := ServerOptions{
		Listen: "127.0.0.1:0", HostKey: filepath.Join(t.TempDir(), "host_key"),
		AuthorizedKeys: servetest.AuthorizedKeysFile(t, servetest.Line(user, role)), Trade: trade, VenueChoice: VenueChoice{Seed: 3},
	}
	addr, v := serveForTest(t, fl, log.New(io.Discard))
	return addr, user, v
}

// serveForTest starts the server of fl, stopped at the test's end.
func serveForTest(t *testing.T, fl ServerOptions, logger *log.Logger) (string, *Venue) {
	t.Helper()
	cfg, _, err := config.LoadFlag(fl.Config)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	srv, v, err := StartServer(ctx, fl, cfg, logger)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- srv.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Error(err)
			}
		case <-time.After(20 * time.Second):
			t.Error("server did not stop")
		}
		v.Close()
	})
	return srv.Addr().String(), v
}

func openDashboard(t *testing.T, addr string, user servetest.Key, env ...string) *servetest.Term {
	t.Helper()
	return openDashboardSized(t, addr, user, 120, 40, env...)
}

// openDashboardSized is openDashboard on a terminal of w x h.
func openDashboardSized(t *testing.T, addr string, user servetest.Key, w, h int, env ...string) *servetest.Term {
	t.Helper()
	vars := map[string]string{}
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		vars[k] = v
	}
	c, err := servetest.Dial(addr, user)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	tm := servetest.Open(t, c, "xterm-256color", w, h, vars)
	tm.WaitFor(t, 20*time.Second, " SIM ", "Book ")
	return tm
}

func TestServeSessionIsAReadOnlyDashboard(t *testing.T) {
	addr, user, _ := startServe(t, false)
	tm := openDashboardSized(t, addr, user, 200, 40) // room for the refusal's notice (TestServeRolesAndTradeAudit)
	tm.WaitFor(t, 20*time.Second, "READ-ONLY", "Trades ", "? help", "q quit")
	tm.Type(t, "b")
	tm.WaitFor(t, 10*time.Second, "disabled: SSH viewer")
	if s := tm.Text(); strings.Contains(s, "b buy") || strings.Contains(s, "s sell") {
		t.Fatal("an SSH viewer's footer offers trading keys")
	}
	tm.Type(t, "q")
	if err := tm.WaitEnd(t, 10*time.Second); err != nil {
		t.Fatalf("q: %v", err)
	}
	// The server keeps running for the next viewer.
	openDashboard(t, addr, user)
}

// The colours follow the client's terminal: 256 colours for an
// xterm-256color, none at all when the client sends NO_COLOR.
func TestServeUsesTheClientsColours(t *testing.T) {
	addr, user, _ := startServe(t, false)
	colour := openDashboard(t, addr, user)
	colour.WaitFor(t, 20*time.Second, "Trades ")
	if !strings.Contains(colour.Raw(), "\x1b[38;5;") && !strings.Contains(colour.Raw(), ";38;5;") {
		t.Fatal("xterm-256color session drawn without 256-colour sequences")
	}
	mono := openDashboard(t, addr, user, "NO_COLOR=1")
	mono.WaitFor(t, 20*time.Second, "Trades ")
	if raw := mono.Raw(); strings.Contains(raw, "38;5;") || strings.Contains(raw, "38;2;") || strings.Contains(raw, "48;5;") {
		t.Fatal("NO_COLOR session drawn in colour")
	}
}

func TestServeTradeOptIn(t *testing.T) {
	addr, user, v := startServe(t, true)
	if v.readOnly {
		t.Fatal("--trade on the simulator must allow trading")
	}
	tm := openDashboard(t, addr, user)
	tm.WaitFor(t, 20*time.Second, "b buy")
	if strings.Contains(tm.Text(), "READ-ONLY") {
		t.Fatal("--trade session drawn read-only")
	}
}

// Viewers that vanish without q stop their feeds and programs: the
// goroutine count returns to what it was (tolerance for pooled HTTP
// connections of the shared client). Timers of tea.Tick commands pending
// when a program ended are not counted: bubbletea does not cancel them,
// they end when they fire (the statistics refresh: within 5 minutes), and
// serve lets go of the session meanwhile. Everything else of a session (feed, Websockets, program, window
// watcher) must be gone.
func TestServeDroppedSessionsFreeTheirFeeds(t *testing.T) {
	addr, user, _ := startServe(t, false)
	warm := openDashboard(t, addr, user)
	warm.Type(t, "q")
	warm.WaitEnd(t, 10*time.Second)
	time.Sleep(300 * time.Millisecond)
	base := sessionGoroutines()

	for range 3 {
		c, err := servetest.Dial(addr, user)
		if err != nil {
			t.Fatal(err)
		}
		servetest.Open(t, c, "xterm-256color", 100, 30, nil).WaitFor(t, 20*time.Second, "Book ", "live")
		c.Close()
	}
	const tolerance = 8
	deadline := time.Now().Add(20 * time.Second)
	now := sessionGoroutines()
	for now > base+tolerance && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
		now = sessionGoroutines()
	}
	if now > base+tolerance {
		buf := make([]byte, 1<<20)
		t.Fatalf("goroutines: %d before, %d after 3 dropped sessions\n%s", base, now, buf[:runtime.Stack(buf, true)])
	}
	t.Logf("goroutines: %d before, %d after", base, now)
}

// sessionGoroutines counts goroutines except those parked on a tea.Tick
// timer (a bare timer and closure, holding no session: see
// serve.releaseOnEnd).
func sessionGoroutines() int {
	buf := make([]byte, 4<<20)
	n := 0
	for _, g := range strings.Split(string(buf[:runtime.Stack(buf, true)]), "\n\n") {
		if strings.Contains(g, "bubbletea/v2.Tick.func1") {
			continue
		}
		n++
	}
	return n
}

// Off loopback, a server without an authorized keys file does not start.
func TestServeRefusesAnyKeyOffLoopback(t *testing.T) {
	t.Setenv("HOME", t.TempDir()) // no ~/.ssh/authorized_keys
	fl := ServerOptions{Listen: "0.0.0.0:0", HostKey: filepath.Join(t.TempDir(), "k"), VenueChoice: VenueChoice{Seed: 1}}
	srv, v, err := StartServer(context.Background(), fl, config.Defaults(), log.New(io.Discard))
	if err == nil {
		v.Close()
		_ = srv.Close()
		t.Fatal("started on all interfaces accepting any key")
	}
	if !strings.Contains(err.Error(), "--authorized-keys") {
		t.Fatalf("refusal does not say what to do: %v", err)
	}
}
