package app

import (
	"context"

	"tradedeck/config"
	"tradedeck/internal/app/proc"
)

// VenueChoice chooses the venue, the same for the dashboard and every
// command (the dashboard's, serve's and the headless host's options
// embed it): the embedded simulator by default, or Live / Staging with
// the addresses of the Config file and keys from the environment.
type VenueChoice struct {
	Live, Staging bool // the real venue, or its staging (OpenVenue)
	Config        string
	Seed          int64
}

// Open chooses the venue exactly as the dashboard does (OpenVenue).
func (v VenueChoice) Open(ctx context.Context) (*Venue, error) {
	cfg, _, err := config.LoadFlag(v.Config)
	if err != nil {
		return nil, err
	}
	return OpenVenue(ctx, v.Dashboard(), cfg)
}

// OpenInterruptible opens the venue in a context that ctrl-c or SIGTERM
// ends, for a command that runs until done or interrupted. closeVenue
// closes the venue, then stops listening for the signals.
func (v VenueChoice) OpenInterruptible() (ctx context.Context, dv *Venue, closeVenue func(), err error) {
	ctx, stop := proc.Interruptible(context.Background())
	if dv, err = v.Open(ctx); err != nil {
		stop()
		return nil, nil, nil, err
	}
	return ctx, dv, func() { dv.Close(); stop() }, nil
}

// Dashboard is the venue choice as the dashboard's options, for a command
// that sets more of them before OpenVenue. Such a command has no screen:
// its hub hands out Updates at most 20 times a second (HeadlessFPS), not
// at a screen's rate, so a busy market wakes its consumer a third as
// often; alerts still see every trade and bbo (a feed observer).
func (v VenueChoice) Dashboard() Options {
	return Options{VenueChoice: v, FPS: HeadlessFPS}
}

// HeadlessFPS is the frame rate of commands without a screen (watch,
// alerts, stats): the hub coalesces at twice it.
const HeadlessFPS = 10

// Target is the venue the choice names.
func (v VenueChoice) Target() (config.Target, error) { return config.TargetOf(v.Live, v.Staging) }
