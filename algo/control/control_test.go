package control

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"tradedeck/algo"
	"tradedeck/algo/store"
	"tradedeck/feed"
	"tradedeck/sim"
	"tradedeck/sim/simtest"
	"tradedeck/venue"
)

// realEngine is an engine on the simulated venue on loopback, with its
// feed on real sockets, reconciled and ready.
func realEngine(t *testing.T) (*algo.Engine, *sim.Instance) {
	t.Helper()
	inst := simtest.Start(t, sim.Options{Seed: 7, NoRateLimits: true})
	client := venue.NewClient(inst.Endpoints, inst.Credentials, venue.WithLimiter(nil))
	st, err := store.Open(filepath.Join(t.TempDir(), "desk.db"))
	if err != nil {
		t.Fatal(err)
	}
	e, err := algo.New(algo.Config{Account: algo.AccountKey(inst.Endpoints, inst.Credentials), Venue: client, Store: st})
	if err != nil {
		t.Fatal(err)
	}
	f := feed.New(feed.Config{Endpoints: inst.Endpoints, Credentials: inst.Credentials, REST: client, Symbol: "SPOT_BTC_USDT", Observer: e})
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Add(3)
	go func() { defer wg.Done(); _ = f.Run(ctx) }()
	go func() {
		defer wg.Done()
		for {
			select {
			case <-f.Updates():
			case <-ctx.Done():
				return
			}
		}
	}()
	go func() { defer wg.Done(); _ = e.Run(ctx) }()
	t.Cleanup(func() { cancel(); wg.Wait(); st.Close() })
	select {
	case <-e.Ready():
	case <-time.After(15 * time.Second):
		t.Fatal("engine not ready")
	}
	return e, inst
}

// serveOn runs a server for e on a socket in a fresh 0700 directory.
func serveOn(t *testing.T, e Engine, cfg ServerConfig) Paths {
	t.Helper()
	dir, err := os.MkdirTemp("", "ctl")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	p, err := PathsOf(Dir(dir), "http://127.0.0.1:1 KEY")
	if err != nil {
		t.Fatal(err)
	}
	lock, err := Acquire(p, Holder{PID: os.Getpid(), Host: "test"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(lock.Release)
	l, err := Listen(p.Socket)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Engine = e
	s := NewServer(cfg)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { _ = s.Serve(ctx, l); close(done) }()
	t.Cleanup(func() { cancel(); <-done })
	return p
}

func TestViewAddsListsAndCancelsOnTheRealEngine(t *testing.T) {
	e, _ := realEngine(t)
	var mu sync.Mutex
	var audit []string
	p := serveOn(t, e, ServerConfig{Info: Info{Holder: Holder{PID: os.Getpid(), Host: "desk", Venue: "SIM"}},
		Action: func(by, op, detail string, err error) {
			mu.Lock()
			defer mu.Unlock()
			audit = append(audit, op+" "+detail+" by "+by)
		}})
	st, err := os.Stat(p.Socket)
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("socket mode %v, %v; want 0600", st.Mode(), err)
	}
	if st, _ := os.Stat(filepath.Dir(p.Socket)); st.Mode().Perm() != 0o700 {
		t.Fatalf("engines directory mode %v; want 0700", st.Mode())
	}
	c := findView(t, p)
	if c.Info().PID != os.Getpid() || !c.Info().Ready || c.Info().Host != "desk" {
		t.Fatalf("hello: %+v", c.Info())
	}
	events, stop := c.Subscribe(16)
	defer stop()

	spec, err := algo.Parse("stop SPOT_BTC_USDT 1000")
	if err != nil {
		t.Fatal(err)
	}
	pv, err := c.Preview(spec)
	if err != nil {
		t.Fatal(err)
	}
	if pv.Side != "SELL" || !pv.Size.IsPositive() || pv.Spec.Source != algo.SourceBid {
		t.Fatalf("preview: %+v", pv)
	}
	a, err := c.AddLine("stop SPOT_BTC_USDT 1000", algo.Confirm{})
	if err != nil {
		t.Fatal(err)
	}
	if a.ID == 0 || a.State != algo.StateArmed || !strings.Contains(a.By, "tradedeck algo") {
		t.Fatalf("added %+v", a)
	}
	if got, ok := e.Get(a.ID); !ok || got.State != algo.StateArmed {
		t.Fatalf("the engine does not hold #%d armed: %+v", a.ID, got)
	}
	waitEvent(t, events, algo.EventArmed, a.ID)
	if list := c.Snapshot(); len(list) != 1 || list[0].ID != a.ID {
		t.Fatalf("snapshot %+v", list)
	}
	if pr := c.Protection(); len(pr) == 0 || pr[0].Stop.IsZero() {
		t.Fatalf("protection %+v", pr)
	}

	// The engine's refusals keep their kind across the socket.
	_, err = c.AddLine("stop SPOT_BTC_USDT 10000000", algo.Confirm{})
	if !errors.Is(err, algo.ErrThrough) {
		t.Fatalf("a stop through the market: %v, want algo.ErrThrough", err)
	}
	if err := c.Cancel(999, ""); !errors.Is(err, algo.ErrNotFound) {
		t.Fatalf("cancel of no algo: %v", err)
	}
	if _, err := c.AddLine("stop nonsense", algo.Confirm{}); !errors.Is(err, ErrBadRequest) {
		t.Fatalf("a bad line: %v", err)
	}

	if err := c.Cancel(a.ID, ""); err != nil {
		t.Fatal(err)
	}
	waitEvent(t, events, algo.EventCancelled, a.ID)
	if got, _ := e.Get(a.ID); got.State != algo.StateCancelled {
		t.Fatalf("after cancel: %v", got.State)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(audit) < 2 || !strings.HasPrefix(audit[0], "add #") || !strings.Contains(audit[0], "tradedeck algo (process ") {
		t.Fatalf("audit %q", audit)
	}
}

// findView finds the engine's server at p as the view "tradedeck algo"
// (closed when the test ends).
func findView(t *testing.T, p Paths) *Client {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := Find(ctx, p, "tradedeck algo")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func waitEvent(t *testing.T, events <-chan algo.Event, kind algo.EventKind, id algo.ID) {
	t.Helper()
	deadline := time.After(10 * time.Second)
	for {
		select {
		case ev, ok := <-events:
			if !ok {
				t.Fatal("events closed")
			}
			if ev.Kind == kind && ev.Algo == id {
				return
			}
		case <-deadline:
			t.Fatalf("no %s event for #%d", kind, id)
		}
	}
}
