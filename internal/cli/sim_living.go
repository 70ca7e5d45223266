package cli

import (
	"fmt"
	"github.com/spf13/pflag"

	"tradedeck/sim"
	"tradedeck/sim/faults"
	"tradedeck/sim/market"
)

// livingFlags adds the living market's and the fault injector's flags to fs (used by
// `tradedeck sim`); the returned func reads them after fs.Parse.
func livingFlags(fs *pflag.FlagSet) func() (sim.LivingOptions, error) {
	rate := fs.String("rate", "calm", "synthetic market activity: calm, busy, stress, off, or participant actions per second per symbol")
	var fc faults.Config
	fs.DurationVar(&fc.DropEvery, "drop-every", 0, "fault: close every Websocket connection this often (0: never)")
	fs.IntVar(&fc.SkipUpdateEvery, "skip-update-every", 0, "fault: withhold every N-th orderbookupdate push of each symbol (0: never)")
	fs.DurationVar(&fc.Delay, "delay", 0, "fault: hold every pushed Websocket frame back this long")
	fs.IntVar(&fc.ReorderEvery, "reorder-every", 0, "fault: swap every N-th pushed frame of a connection with the next (0: never)")
	fs.Float64Var(&fc.REST429, "rest-429", 0, "fault: fraction (0..1) of REST calls answered 429")
	fs.Float64Var(&fc.REST5xx, "rest-5xx", 0, "fault: fraction (0..1) of REST calls answered 500")
	fs.BoolVar(&fc.Stall, "stall", false, "fault: streams accept connections and subscriptions but send nothing")
	return func() (sim.LivingOptions, error) {
		r, err := market.ParseRate(*rate)
		if err != nil {
			return sim.LivingOptions{}, err
		}
		if fc.REST429 < 0 || fc.REST5xx < 0 || fc.REST429+fc.REST5xx > 1 {
			return sim.LivingOptions{}, fmt.Errorf("--rest-429 and --rest-5xx are fractions adding up to at most 1")
		}
		if fc.DropEvery < 0 || fc.Delay < 0 || fc.SkipUpdateEvery < 0 || fc.ReorderEvery < 0 {
			return sim.LivingOptions{}, fmt.Errorf("fault flags must not be negative")
		}
		return sim.LivingOptions{Rate: r, NoMarket: r == 0, Faults: fc}, nil
	}
}
