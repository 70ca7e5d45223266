package rehearse_test

import (
	"context"
	"os"
	"testing"
	"time"

	"tradedeck/record/capture"
	"tradedeck/sim"
	"tradedeck/sim/market"
	"tradedeck/sim/simtest"
)

func TestZZRecordBusy(t *testing.T) {
	if os.Getenv("ZZREC") == "" {
		t.Skip()
	}
	inst := simtest.Start(t, sim.Options{Seed: 7, NoRateLimits: true, Living: sim.LivingOptions{Rate: market.RateBusy}})
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	if _, err := capture.Run(ctx, capture.Options{Endpoints: inst.Endpoints, Credentials: inst.Credentials, Venue: "SIM", Symbols: []string{"PERP_BTC_USDT"}, Out: "/tmp/rh/busy.tdrec"}); err != nil {
		t.Fatal(err)
	}
}
