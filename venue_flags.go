package main

import (
	"context"
	"flag"

	"tradedeck/config"
)

// venueFlags are the flags that choose the venue, the same for the
// dashboard and every subcommand (the dashboard's, serve's and alerts'
// flags embed them): the embedded simulator by default, or --live /
// --staging with the addresses of --config and keys from the environment.
type venueFlags struct {
	live, staging bool // the real venue, or its staging (openVenue)
	config        string
	seed          int64
}

// venueFlagSet is a subcommand's flag set with the venue flags on it.
func venueFlagSet(name string) (*flag.FlagSet, *venueFlags) {
	v := &venueFlags{}
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	v.register(fs, "use")
	return fs, v
}

// register puts the venue flags on fs; action is what the command does
// with the real venue ("trade on", "show"), as --live's help says it.
func (v *venueFlags) register(fs *flag.FlagSet, action string) {
	fs.BoolVar(&v.live, "live", false, action+" the real venue (addresses from the config, keys from "+config.EnvAPIKey+"/"+config.EnvAPISecret+"/"+config.EnvApplicationID+")")
	stagingFlag(fs, &v.staging)
	fs.StringVar(&v.config, "config", "", "config file (default "+config.Path(nil)+")")
	fs.Int64Var(&v.seed, "seed", 1, "seed of the embedded simulated venue")
}

// open chooses the venue exactly as the dashboard does (openVenue).
func (v venueFlags) open(ctx context.Context) (*deskVenue, error) {
	cfg, _, err := config.LoadFlag(v.config)
	if err != nil {
		return nil, err
	}
	return openVenue(ctx, v.dashboard(), cfg)
}

// openInterruptible opens the venue in a context that ctrl-c or SIGTERM
// ends, for a command that runs until done or interrupted. closeVenue
// closes the venue, then stops listening for the signals.
func (v venueFlags) openInterruptible() (ctx context.Context, dv *deskVenue, closeVenue func(), err error) {
	ctx, stop := interruptContext()
	if dv, err = v.open(ctx); err != nil {
		stop()
		return nil, nil, nil, err
	}
	return ctx, dv, func() { dv.close(); stop() }, nil
}

// dashboard is the venue choice as the dashboard's flags, for a command
// that sets more of them before openVenue.
func (v venueFlags) dashboard() dashboardFlags {
	return dashboardFlags{venueFlags: v}
}

// target is the venue the flags choose.
func (v venueFlags) target() (config.Target, error) { return config.TargetOf(v.live, v.staging) }
