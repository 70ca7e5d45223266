package app

import (
	"testing"
	"time"

	"tradedeck/serve/loadgen"
	"tradedeck/sim/market"
)

// A short smoke of the load generator (make bench-serve has the real
// runs): three viewers against serve --live on a simulator in this
// process; every figure is measured and plausible.
func TestServeLoadGeneratorSmoke(t *testing.T) {
	if testing.Short() {
		t.Skip("load generator smoke")
	}
	target := serveOnSim(t, market.RateCalm, 0)
	r, err := loadgen.Run(target,
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
