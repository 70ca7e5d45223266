package alerts

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"tradedeck/internal/testkit"
)

// Alerts and what fired survive a restart; a fired once alert stays
// fired; an `every` alert that fired waits for its condition to end.
func TestStoreSurvivesRestart(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state", "alerts.json")
	r := newRig(t, NewStore(path))
	once := r.add("SPOT_BTC_USDT above 100")
	every := r.add("SPOT_BTC_USDT above 100 every 1m")
	r.add("stream market down 30s")
	r.trade("SPOT_BTC_USDT", "101")
	r.expect("cross", 2, "crossed above 100")
	if err := r.e.Flush(); err != nil {
		t.Fatal(err)
	}
	if m := testkit.Perm(t, path); m != 0o600 {
		t.Fatalf("alerts file mode %v, want 0600", m)
	}

	r2 := newRig(t, NewStore(path))
	list := r2.e.List()
	if len(list) != 3 || list[0].ID != once.ID || !list[0].Done || list[1].ID != every.ID || list[1].Count != 1 {
		t.Fatalf("after restart: %+v", list)
	}
	if h := r2.e.History(); len(h) != 2 || h[0].Seq != 2 || h[1].Seq != 1 || r2.e.Unread() != 2 {
		t.Fatalf("history after restart: %+v", h)
	}
	r2.play("SPOT_BTC_USDT", []step{
		{what: "still above after the restart", wait: 5 * time.Minute, prices: "101"},
		{what: "a new cross", prices: "99 100", fires: 1, says: "crossed above 100"},
	})
	if err := r2.e.MarkRead(); err != nil {
		t.Fatal(err)
	}
	if r2.e.Unread() != 0 {
		t.Fatalf("unread after MarkRead: %d", r2.e.Unread())
	}
}

// Another process's change to the file (`alerts add`, `alerts rm`) reaches
// a running engine at its next Flush.
func TestStoreSharedBetweenProcesses(t *testing.T) {
	path := filepath.Join(t.TempDir(), "alerts.json")
	r := newRig(t, NewStore(path))
	r.add("SPOT_BTC_USDT above 100")
	other := NewStore(path)
	if _, err := other.Update(func(f *File) error {
		a, err := Parse([]string{"SPOT_ETH_USDT", "below", "10"}, nil)
		AddTo(f, a)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if err := r.e.Flush(); err != nil {
		t.Fatal(err)
	}
	if l := r.e.List(); len(l) != 2 || l[1].Symbol != "SPOT_ETH_USDT" || l[1].ID != 2 {
		t.Fatalf("after another process added one: %+v", l)
	}
	if got := r.e.Symbols(); strings.Join(got, ",") != "SPOT_BTC_USDT,SPOT_ETH_USDT" {
		t.Fatalf("symbols: %v", got)
	}
	r.trade("SPOT_ETH_USDT", "9")
	r.expect("the other process's alert", 1, "crossed below 10")
}

// An unreadable file is reported and left exactly as it was.
func TestStoreCorruptFileUntouched(t *testing.T) {
	path := filepath.Join(t.TempDir(), "alerts.json")
	bad := []byte(`{"alerts": [ {"id": 1, "symbol": `)
	if err := os.WriteFile(path, bad, 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := NewEngine(Options{Store: NewStore(path)})
	var ce *CorruptError
	if !errors.As(err, &ce) || !strings.Contains(err.Error(), path) {
		t.Fatalf("engine on a corrupt file: %v", err)
	}
	_, err = NewStore(path).Update(func(f *File) error { return nil })
	if !errors.As(err, &ce) {
		t.Fatalf("update of a corrupt file: %v", err)
	}
	if got, _ := os.ReadFile(path); string(got) != string(bad) {
		t.Fatalf("corrupt file changed: %q", got)
	}
}

func TestKeyPathIsFileSafe(t *testing.T) {
	env := func(k string) string { return map[string]string{"XDG_STATE_HOME": "/st"}[k] }
	got := KeyPath(env, "SHA256:ab/c+d=")
	if got != "/st/tradedeck/keys/alerts-SHA256_ab_c_d_.json" {
		t.Fatalf("key path %q", got)
	}
	if DefaultPath(env) != "/st/tradedeck/alerts.json" {
		t.Fatalf("default path %q", DefaultPath(env))
	}
}

// The feed's goroutines observe, the engine's loop saves and the screen
// adds and lists, all at once (run with -race).
func TestConcurrentUse(t *testing.T) {
	r := newRig(t, NewStore(filepath.Join(t.TempDir(), "alerts.json")))
	r.add("SPOT_BTC_USDT above 100 every 1s")
	var wg sync.WaitGroup
	wg.Add(3)
	go func() {
		defer wg.Done()
		for i := 0; i < 2000; i++ {
			r.trade("SPOT_BTC_USDT", []string{"99", "101"}[i%2])
			r.clk.Advance(100 * time.Millisecond)
		}
	}()
	go func() {
		defer wg.Done()
		for i := 0; i < 20; i++ {
			if err := r.e.Flush(); err != nil {
				t.Error(err)
			}
			r.e.Tick()
		}
	}()
	go func() {
		defer wg.Done()
		for i := 0; i < 10; i++ {
			a, _ := Parse([]string{"SPOT_ETH_USDT", "below", "1"}, nil)
			if _, err := r.e.Add(a); err != nil {
				t.Error(err)
			}
			_ = r.e.List()
			_ = r.e.History()
		}
	}()
	wg.Wait()
	if err := r.e.Flush(); err != nil {
		t.Fatal(err)
	}
	n := len(r.take())
	if n < 10 || len(r.e.List()) != 11 || r.e.List()[0].Count != n || len(r.e.History()) != n {
		t.Fatalf("%d fired, list %d, count %d, history %d", n, len(r.e.List()), r.e.List()[0].Count, len(r.e.History()))
	}
}
