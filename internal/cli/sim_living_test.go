package cli

import (
	"io"
	"testing"
	"time"

	"github.com/spf13/pflag"

	"tradedeck/sim/market"
)

func TestLivingFlags(t *testing.T) {
	lo, err := livingFlags(pflag.NewFlagSet("x", pflag.ContinueOnError))() // no flags given
	if err != nil || lo.Rate != market.RateCalm || lo.NoMarket {
		t.Fatalf("defaults: %+v %v", lo, err)
	}

	fs := pflag.NewFlagSet("sim", pflag.ContinueOnError)
	get := livingFlags(fs)
	if err := fs.Parse([]string{"--rate", "stress", "--drop-every", "30s", "--skip-update-every", "50", "--rest-429", "0.1", "--stall"}); err != nil {
		t.Fatal(err)
	}
	lo, err = get()
	if err != nil || lo.Rate != market.RateStress || lo.Faults.DropEvery != 30*time.Second || lo.Faults.SkipUpdateEvery != 50 || lo.Faults.REST429 != 0.1 || !lo.Faults.Stall {
		t.Fatalf("parsed %+v %v", lo, err)
	}

	for _, bad := range [][]string{{"--rate", "fast"}, {"--rest-429", "0.7", "--rest-5xx", "0.7"}, {"--delay", "-1s"}} {
		fs := pflag.NewFlagSet("sim", pflag.ContinueOnError)
		fs.SetOutput(io.Discard)
		get := livingFlags(fs)
		if err := fs.Parse(bad); err != nil {
			continue
		}
		if _, err := get(); err == nil {
			t.Errorf("%v accepted", bad)
		}
	}
	fs = pflag.NewFlagSet("sim", pflag.ContinueOnError)
	get = livingFlags(fs)
	_ = fs.Parse([]string{"--rate", "off"})
	if lo, _ := get(); !lo.NoMarket {
		t.Fatalf("--rate off: %+v", lo)
	}
}
