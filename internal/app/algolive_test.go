package app

import (
	"context"
	"sync"
	"testing"
	"time"

	"tradedeck/algo"
	"tradedeck/config"
	"tradedeck/internal/testkit"
)

// A dashboard running the account's engine says whether it has a live
// algo: nothing at start, live from the moment a stop is armed, not live
// once it is cancelled (RunDashboard gives the process all its
// processors while it is: proc/processors.go).
func TestDashboardReportsItsLiveAlgos(t *testing.T) {
	var mu sync.Mutex
	var said []bool
	last := func() (bool, int) {
		mu.Lock()
		defer mu.Unlock()
		if len(said) == 0 {
			return false, 0
		}
		return said[len(said)-1], len(said)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	d, err := StartDashboard(ctx, Options{VenueChoice: VenueChoice{Seed: 1}, OnAlgosLive: func(live bool) {
		mu.Lock()
		said = append(said, live)
		mu.Unlock()
	}}, config.Defaults())
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	a, ok := d.algos.(*Algos)
	if !ok || a.Engine() == nil {
		t.Fatalf("the dashboard does not run the engine: %T", d.algos)
	}
	select {
	case <-a.Ready():
	case <-time.After(30 * time.Second):
		t.Fatal("the engine never got ready")
	}
	testkit.WaitFor(t, "the first report", 10*time.Second, func() bool { _, n := last(); return n > 0 })
	if live, _ := last(); live {
		t.Fatal("no algo, but reported live")
	}
	trail, err := a.Add(mustSpec(t, "trail SPOT_BTC_USDT 10%"), algo.Confirm{})
	if err != nil {
		t.Fatal(err)
	}
	testkit.WaitFor(t, "live once the trail is armed", 10*time.Second, func() bool { live, _ := last(); return live })
	if err := a.Cancel(trail.ID, "test"); err != nil {
		t.Fatal(err)
	}
	testkit.WaitFor(t, "not live once it is cancelled", 10*time.Second, func() bool { live, _ := last(); return !live })
}
