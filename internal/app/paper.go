package app

import (
	"context"
	"errors"
	"fmt"
	"os"

	"tradedeck/config"
	"tradedeck/sim"
)

// startPaperVenue runs the paper venue behind `tradedeck --paper` (and
// `serve --paper`): the embedded simulated venue mirroring the market of
// the config's [live] venue (docs/paper.md), with its own demo keys. Only
// the [live] addresses and application id are read, never its keys.
func startPaperVenue(ctx context.Context, fl Options, cfg config.Config) (*sim.Instance, error) {
	if fl.Live {
		return nil, errors.New("--paper and --live exclude each other: --paper trades on paper against the live market")
	}
	inst, err := sim.Start(ctx, sim.Options{Seed: fl.Seed, StatePath: fl.PaperState, Mirror: &sim.MirrorOptions{
		Upstream: cfg.Endpoints(), ApplicationID: cfg.Credentials(os.Getenv).ApplicationID}})
	if err != nil {
		return nil, fmt.Errorf("paper venue on %s: %w", cfg.Endpoints().BaseURL, err)
	}
	return inst, nil
}

// paperControl is `:paper reset` on the embedded paper venue.
type paperControl struct{ inst *sim.Instance }

func (p paperControl) Reset() error {
	p.inst.Exchange.ResetAccounts()
	return p.inst.Exchange.Durable()
}
