package sim

import (
	"context"
	"net/http"

	"tradedeck/sim/faults"
	"tradedeck/sim/market"
	"tradedeck/sim/swapstats"
	"tradedeck/sim/ws"
)

// LivingOptions configure the parts of the sim that move on their own: the Websocket streams,
// the synthetic market and the fault injector. The zero value is the default venue: streams at
// the venue's cadences, a calm market, no faults.
type LivingOptions struct {
	// Rate is the synthetic participants' actions per second per symbol (market.ParseRate reads
	// calm, busy, stress or a number); 0 means market.RateCalm.
	Rate     float64
	NoMarket bool          // no synthetic participants: the books stay as seeded
	Faults   faults.Config // faults active from the start (change them with Instance.Faults.Set)
	Streams  ws.Options    // stream cadences and limits; zero fields take the venue's values
}

// living holds what startLiving built, embedded in Instance.
type living struct {
	Faults  *faults.Injector // fault injection: Set at run time, Counts for assertions
	Streams *ws.Server       // the market and private Websocket streams
	Market  *market.Market   // the synthetic participants; nil with NoMarket
}

// faultsFor creates the injector early, so REST can be wrapped with it before serving.
func faultsFor(opts *Options) *faults.Injector {
	inj := faults.New(uint64(opts.Seed))
	inj.Set(opts.Living.Faults)
	opts.Middleware = append(opts.Middleware, inj.WrapREST)
	return inj
}

// startLiving mounts the streams and the swap statistics on the mux and prepares the market.
func (i *Instance) startLiving(opts Options, inj *faults.Injector) error {
	lo := opts.Living
	lo.Streams.Faults = inj
	i.Faults = inj
	i.Streams = ws.New(i.Exchange, lo.Streams)
	i.Streams.Register(i.Mux)
	stats := swapstats.New(opts.Seed, opts.Clock)
	i.Mux.Handle(StatsPrefix+"/", http.StripPrefix(StatsPrefix, stats.Handler()))
	if lo.NoMarket {
		return nil
	}
	rate := lo.Rate
	if rate <= 0 {
		rate = market.RateCalm
	}
	mk, err := market.New(i.Exchange, market.Options{Seed: uint64(opts.Seed), Rate: rate})
	if err != nil {
		return err
	}
	i.Market = mk
	return nil
}

// runLiving starts the publishers, the market and the drop timer until ctx ends.
func (i *Instance) runLiving(ctx context.Context) {
	runs := []func(context.Context){i.Streams.Run, i.Faults.Run}
	if i.Market != nil {
		runs = append(runs, i.Market.Run)
	}
	i.wg.Add(len(runs))
	for _, run := range runs {
		go func() {
			defer i.wg.Done()
			run(ctx)
		}()
	}
}
