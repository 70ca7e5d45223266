package main

import (
	"context"
	"flag"

	"tradedeck/config"
)

// venueFlags are the flags every subcommand shares with the dashboard to
// choose its venue: the embedded simulator by default, or --live /
// --staging with the addresses of --config and keys from the environment.
type venueFlags struct {
	live   bool
	stage  bool // --staging
	config string
	seed   int64
}

func (v *venueFlags) register(fs *flag.FlagSet) {
	fs.BoolVar(&v.live, "live", false, "use the real venue (addresses from the config, keys from "+config.EnvAPIKey+"/"+config.EnvAPISecret+"/"+config.EnvApplicationID+")")
	stagingFlag(fs, &v.stage)
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

// dashboard is the venue choice as the dashboard's flags, for a command
// that sets more of them before openVenue.
func (v venueFlags) dashboard() dashboardFlags {
	return dashboardFlags{live: v.live, staging: v.stage, seed: v.seed, config: v.config}
}

// target is the venue the flags choose.
func (v venueFlags) target() (config.Target, error) { return config.TargetOf(v.live, v.stage) }
