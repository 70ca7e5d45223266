package control

import (
	"errors"
	"os"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"tradedeck/algo"
)

// A view pauses and resumes a working order of the engine over the
// socket; a protective algo refuses to pause with its kind intact, and a
// looser trail is refused.
func TestViewPausesAndResumesAWorkingOrder(t *testing.T) {
	e, _ := realEngine(t)
	p := serveOn(t, e, ServerConfig{Info: Info{Holder: Holder{PID: os.Getpid(), Host: "desk", Venue: "SIM"}}})
	c := findView(t, p)
	a, err := c.AddLine("scale SPOT_BTC_USDT buy 0.003 from 80000 to 79000 count 3", algo.Confirm{})
	if err != nil {
		t.Fatal(err)
	}
	if a.State != algo.StateWorking || a.Work == nil || a.Work.Total.String() != "0.003" {
		t.Fatalf("added %+v", a)
	}
	waitFor(t, "3 rungs open", func() bool { g, _ := e.Get(a.ID); return g.Work.OrdersOpen == 3 })
	if err := c.Pause(a.ID, "from a view"); err != nil {
		t.Fatal(err)
	}
	if g, _ := e.Get(a.ID); g.State != algo.StatePaused || g.Work.OrdersOpen != 0 || g.Reason != "from a view" {
		t.Fatalf("paused: %s %q, %d open", g.State, g.Reason, g.Work.OrdersOpen)
	}
	if err := c.Resume(a.ID); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the rungs back", func() bool { g, _ := e.Get(a.ID); return g.State == algo.StateWorking && g.Work.OrdersOpen == 3 })

	stop, err := c.AddLine("stop SPOT_BTC_USDT 1000", algo.Confirm{})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Pause(stop.ID, ""); !errors.Is(err, algo.ErrNotPausable) {
		t.Fatalf("pause of a stop: %v, want algo.ErrNotPausable", err)
	}
	trail, err := c.AddLine("trail SPOT_BTC_USDT 2%", algo.Confirm{})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Tighten(trail.ID, decimal.NewFromInt(3), decimal.Zero); err == nil {
		t.Fatal("a looser trail was accepted")
	}
	if err := c.Tighten(trail.ID, decimal.NewFromInt(1), decimal.Zero); err != nil {
		t.Fatal(err)
	}
	if g, _ := e.Get(trail.ID); !g.Spec.TrailPercent.Equal(decimal.NewFromInt(1)) {
		t.Fatalf("trail now %s", g.Spec.TrailPercent)
	}
	// A cancel's reason crosses the socket; none is the user's own.
	const why = "cancelled by alert 3 (SPOT_BTC_USDT last 90000 crossed above 89000)"
	if err := c.Cancel(trail.ID, why); err != nil {
		t.Fatal(err)
	}
	if err := c.Cancel(stop.ID, ""); err != nil {
		t.Fatal(err)
	}
	if g, _ := e.Get(trail.ID); g.State != algo.StateCancelled || g.Reason != why {
		t.Fatalf("the trail cancelled for a reason: %s %q", g.State, g.Reason)
	}
	if g, _ := e.Get(stop.ID); g.Reason != algo.CancelledByUser {
		t.Fatalf("the stop cancelled by the user: %s %q", g.State, g.Reason)
	}
	if err := c.CancelAll(algo.Scope{Why: "panic cancel"}); err != nil {
		t.Fatal(err)
	}
	if g, _ := e.Get(a.ID); g.State != algo.StateCancelled || g.Work.OrdersOpen != 0 {
		t.Fatalf("after cancel all: %s, %d open", g.State, g.Work.OrdersOpen)
	}
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	end := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(end) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
