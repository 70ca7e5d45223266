package main

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"charm.land/log/v2"

	"tradedeck/serve/loadgen"
	"tradedeck/serve/servetest"
	"tradedeck/sim"
)

// A short smoke of the load generator (make bench-serve has the real
// runs): three viewers against serve --live on a simulator in this
// process; every figure is measured and plausible.
func TestServeLoadGeneratorSmoke(t *testing.T) {
	if testing.Short() {
		t.Skip("load generator smoke")
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	inst, err := sim.Start(ctx, sim.Options{Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	defer inst.Close()
	cfgPath := filepath.Join(t.TempDir(), "config.toml")
	if err := os.WriteFile(cfgPath, []byte(loadgen.LiveConfig(inst.Endpoints)), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("TRADEDECK_API_KEY", inst.Credentials.APIKey)
	t.Setenv("TRADEDECK_API_SECRET", inst.Credentials.APISecret)
	t.Setenv("TRADEDECK_APPLICATION_ID", inst.Credentials.ApplicationID)
	user := servetest.NewKey(t)
	addr, _ := serveForTest(t, serveFlags{
		listen: "127.0.0.1:0", hostKey: filepath.Join(t.TempDir(), "host_key"), venueFlags: venueFlags{live: true, config: cfgPath},
		authorizedKeys: servetest.AuthorizedKeys(t, user),
	}, log.New(io.Discard))

	r, err := loadgen.Run(loadgen.Target{Addr: addr, Signer: user.Signer, PID: os.Getpid(),
		VenueConns: func() int { return inst.Streams.Stats().Connections }},
		loadgen.Options{Sessions: 3, Warmup: 500 * time.Millisecond, Measure: 2 * time.Second, Probes: 2})
	if err != nil {
		t.Fatal(err)
	}
	r.Market = "calm"
	t.Logf("\n%s", loadgen.Table("smoke (in-process)", []loadgen.Result{r}))
	if r.VenueConns < 1 || r.BytesPerViewer <= 0 || r.RSSMB <= 0 || r.FirstFrame <= 0 || r.DelayHealthy <= 0 || r.DelayWithStall <= 0 {
		t.Fatalf("implausible figures: %+v", r)
	}
}
