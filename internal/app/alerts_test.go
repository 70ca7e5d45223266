package app

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"charm.land/log/v2"
	gossh "golang.org/x/crypto/ssh"

	"tradedeck/alerts"
	"tradedeck/algo"
	"tradedeck/config"
	"tradedeck/feed"
	"tradedeck/serve"
	"tradedeck/serve/servetest"
)

// In serve, a session's alerts belong to its SSH key: what one key sets is
// in that key's file, fires in its session (notice, bell and the desktop
// sequence over SSH), is there when the key comes back, and another key
// does not see it.
func TestServeAlertsBelongToTheKey(t *testing.T) {
	state := t.TempDir()
	t.Setenv("XDG_STATE_HOME", state)
	alice, bob := servetest.NewKey(t), servetest.NewKey(t)
	fl := ServerOptions{Listen: "127.0.0.1:0", HostKey: filepath.Join(t.TempDir(), "host_key"),
		AuthorizedKeys: servetest.AuthorizedKeys(t, alice, bob), VenueChoice: VenueChoice{Seed: 3}}
	ctx, cancel := context.WithCancel(context.Background())
	srv, v, err := StartServer(ctx, fl, config.Defaults(), log.New(io.Discard))
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- srv.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("server: %v", err)
		}
		v.Close()
	})
	addr := srv.Addr().String()

	a := openDashboard(t, addr, alice)
	a.Type(t, ":alert SPOT_BTC_USDT above 1\r")
	// The notice is cut at the status bar's width (which depends on the
	// health figures beside it): the desktop sequence carries the whole
	// message, and the file says what was set.
	a.WaitFor(t, 30*time.Second, "ALERT SPOT_BTC_USDT")
	waitRaw(t, a, "\x1b]777;notify;tradedeck alert;SPOT_BTC_USDT last ")
	if !strings.Contains(a.Raw(), "\a") {
		t.Fatal("the bell did not reach the SSH client")
	}
	a.Type(t, "q")
	if err := a.WaitEnd(t, 10*time.Second); err != nil {
		t.Fatal(err)
	}
	path := alerts.KeyPath(nil, gossh.FingerprintSHA256(alice.Signer.PublicKey()))
	f, err := alerts.NewStore(path).Load()
	if err != nil || len(f.Alerts) != 1 || f.Alerts[0].Condition() != "SPOT_BTC_USDT last above 1" || !f.Alerts[0].Done {
		t.Fatalf("alice's file %s: %+v %v", path, f.Alerts, err)
	}
	if _, err := os.Stat(alerts.DefaultPath(nil)); err == nil {
		t.Fatal("a served session wrote the server user's own alerts file")
	}

	b := openDashboard(t, addr, bob)
	b.Type(t, ":alerts\r")
	b.WaitFor(t, 20*time.Second, "Alerts (0)", "no alerts")

	a = openDashboard(t, addr, alice)
	a.Type(t, ":alerts\r")
	a.WaitFor(t, 20*time.Second, "Alerts (1)", "Fired (1", "crossed above 1")
}

// waitRaw waits for want in the session's output, escape sequences included.
func waitRaw(t *testing.T, tm *servetest.Term, want string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !strings.Contains(tm.Raw(), want) {
		if time.Now().After(deadline) {
			t.Fatalf("%q never reached the client", want)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestDashboardFlagsAlertsFileForServe(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", "/state")
	got := alerts.KeyPath(nil, serve.Terminal{Key: "SHA256:abc/def"}.Key)
	if got != "/state/tradedeck/keys/alerts-SHA256_abc_def.json" {
		t.Fatalf("per-key file %q", got)
	}
}

// A replay's alerts are a scratch list: recorded data never fires (or
// writes) the user's alerts, never rings, notifies or runs the hook.
func TestReplayAlertsAreScratch(t *testing.T) {
	state := t.TempDir()
	t.Setenv("XDG_STATE_HOME", state)
	cfg := config.Defaults()
	cfg.Alerts.Command = []string{"/bin/false"}
	eng := &countingAlgos{list: []algo.Algo{{ID: 1, Spec: algo.Spec{Kind: algo.KindChase, Symbol: "SPOT_BTC_USDT"}, State: algo.StateWorking}}}
	v := &Venue{cfg: cfg, alerts: alerts.NewFanout(), scratchAlerts: true, session: eng}
	da, err := newDashAlerts(v, alerts.DefaultPath(nil), "", os.Getenv)
	if err != nil {
		t.Fatal(err)
	}
	// Recorded data never acts on an engine, even one at hand.
	a, _ := alerts.Parse(strings.Fields("SPOT_BTC_USDT above 1 then cancel 1"), nil)
	if _, err := da.engine.Add(a); err == nil || !strings.Contains(err.Error(), "never from a replay") {
		t.Fatalf("an acting alert in a replay: %v", err)
	}
	a, _ = alerts.Parse([]string{"SPOT_BTC_USDT", "above", "1"}, nil)
	if _, err := da.engine.Add(a); err != nil {
		t.Fatal(err)
	}
	v.alerts.ObserveTrade("SPOT_BTC_USDT", feed.Scale{PriceDec: 2}, feed.Trade{Price: 500})
	select {
	case n := <-da.deliver.Notes():
		if !n.Show || n.Terminal != "" || !strings.Contains(n.Text, "crossed above 1") {
			t.Fatalf("replay note: %+v", n)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the scratch alert did not fire")
	}
	if err := da.engine.Flush(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(alerts.DefaultPath(nil)); err == nil {
		t.Fatal("a replay wrote the alerts file")
	}
	if eng.calls.Load() != 0 {
		t.Fatalf("a replay's alert changed the engine %d times", eng.calls.Load())
	}
}

// countingAlgos is an engine with a fixed list that counts the changes
// asked of it (the embedded interface: any other call is a test bug).
type countingAlgos struct {
	AlgoSource
	list  []algo.Algo
	calls atomic.Int32
}

func (c *countingAlgos) Snapshot() []algo.Algo        { return c.list }
func (c *countingAlgos) Cancel(algo.ID, string) error { c.calls.Add(1); return nil }
func (c *countingAlgos) Pause(algo.ID, string) error {
	c.calls.Add(1)
	return nil
}
