package cli

import (
	"github.com/spf13/cobra"

	"tradedeck/alerts"
	"tradedeck/internal/app"
)

// Desk is `tradedeck desk`: the protective-orders engine of the account
// and the alerts, with no screen, one line (or --json object) per event.
func Desk(env Env) *cobra.Command {
	var o alertsOptions
	cmd := &cobra.Command{
		Use:   "desk",
		Short: "the desk engine (protective and working orders) and the alerts without a screen, one line per event",
		Long: `Run the account's protective-orders engine (stops, take-profits, OCO, brackets, trailing
stops) and the alerts with no screen, for a server or a tmux pane that stays up: one line
(or --json object) per event on stdout, the bell, desktop notification and hook as the alerts
have them. Only one process runs the engine of an account: a second desk is refused and
names the first; tradedeck algo add|list|cancel talk to the one that runs (docs/algos.md).

The embedded simulator lives inside this process (its algos go with it); to run a desk
against a 'tradedeck sim' of its own, give the simulator a fixed --listen address and put
its addresses in a config's [live] section: tradedeck desk --live --config sim.toml.`,
		Example: `  tradedeck desk --live
  tradedeck desk --live --json >> desk.log
  tradedeck desk --live --config sim.toml`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, store, err := o.load(env)
			if err != nil {
				return err
			}
			return app.RunHeadless(cmd.Context(), app.HeadlessOptions{VenueChoice: o.venue, Config: cfg, Alerts: store,
				JSON: o.json, Out: env.Stdout, Log: env.Stderr, Desk: true})
		},
	}
	fs := cmd.Flags()
	venueFlags(fs, &o.venue, "protect positions on")
	fs.BoolVar(&o.json, "json", false, "one JSON object a line")
	fs.StringVar(&o.file, "alerts-file", "", "alerts file (default "+alerts.DefaultPath(nil)+")")
	return cmd
}
