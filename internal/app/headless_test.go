package app

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"tradedeck/alerts"
	"tradedeck/config"
	"tradedeck/internal/testkit"
)

// The headless host runs the alerts on the embedded simulated venue's
// feed: an alert that is true at once fires, is printed as one JSON
// object, and is in the alerts file when Run returns; a read-only host
// has no desk.
func TestHeadlessHostFiresAndSaves(t *testing.T) {
	store := alerts.NewStore(filepath.Join(t.TempDir(), "alerts.json"))
	a, err := alerts.Parse([]string{"SPOT_BTC_USDT", "above", "1"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := store.Update(func(f *alerts.File) error { alerts.AddTo(f, a); return nil }); err != nil {
		t.Fatal(err)
	}
	var out, log testkit.SyncBuffer
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	h, err := StartHeadless(ctx, HeadlessOptions{VenueChoice: VenueChoice{Seed: 1}, Config: config.Defaults(), Alerts: store,
		JSON: true, Out: &out, Log: &log})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	if h.Desk() != nil {
		t.Fatal("a read-only host has a desk")
	}
	runCtx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- h.Run(runCtx) }()
	testkit.WaitFor(t, "the alert fired", 20*time.Second, func() bool { return strings.Contains(out.String(), "SPOT_BTC_USDT") })
	stop()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	var fired alerts.Fired
	line, _, _ := strings.Cut(out.String(), "\n")
	if err := json.Unmarshal([]byte(line), &fired); err != nil || fired.Alert != 1 {
		t.Fatalf("%q: %+v %v", line, fired, err)
	}
	f, err := store.Load()
	if err != nil || len(f.Fired) == 0 || f.Alerts[0].Count == 0 {
		t.Fatalf("not saved: %+v %v", f, err)
	}
	if !strings.Contains(log.String(), "1 alerts from") || !strings.Contains(log.String(), "on SIM") {
		t.Fatalf("start line: %q", log.String())
	}
}
