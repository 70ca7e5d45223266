package cli

import (
	"github.com/spf13/pflag"

	"tradedeck/config"
	"tradedeck/internal/app"
)

// venueFlags puts the flags that choose the venue on fs, the same for the
// dashboard and every command: the embedded simulator by default, or
// --live / --staging with the addresses of --config and keys from the
// environment. action is what the command does with the real venue
// ("trade on", "show"), as --live's help says it.
func venueFlags(fs *pflag.FlagSet, v *app.VenueChoice, action string) {
	fs.BoolVar(&v.Live, "live", false, action+" the real venue (addresses from the config, keys from "+config.EnvAPIKey+"/"+config.EnvAPISecret+"/"+config.EnvApplicationID+")")
	fs.BoolVar(&v.Staging, "staging", false, "use the real venue's staging (test money; [staging] addresses from the config, else the venue's; keys from "+
		config.EnvAPIKey+"/"+config.EnvAPISecret+"/"+config.EnvApplicationID+")")
	fs.StringVar(&v.Config, "config", "", "config file (default "+config.Path(nil)+")")
	fs.Int64Var(&v.Seed, "seed", 1, "seed of the embedded simulated venue")
}

// paperFlags put --paper and --paper-state on fs (the dashboard and
// serve): paper trading on the live market with a simulated account.
func paperFlags(fs *pflag.FlagSet, paper *bool, state *string) {
	fs.BoolVar(paper, "paper", false, "paper trading: the live venue's market (config [live]) with a simulated account, no keys needed (docs/paper.md)")
	fs.StringVar(state, "paper-state", "", "with --paper: keep the paper account in this file across restarts")
}
