package cli

import (
	"errors"
	"fmt"
	"strings"

	"context"

	"github.com/spf13/cobra"

	"tradedeck/internal/app"
)

// Dashboard is the root command: the dashboard, run when no other
// command is named (`tradedeck --live --symbol SPOT_ETH_USDT`).
func Dashboard(env Env) *cobra.Command { return dashboardCommand(env, app.RunDashboard) }

// dashboardCommand is Dashboard running run (tests read the options).
func dashboardCommand(env Env, run func(context.Context, app.Options) error) *cobra.Command {
	o := app.Options{Keys: env.Keys}
	cmd := &cobra.Command{
		Use:   "tradedeck",
		Short: "A terminal trading desk: the dashboard (default; --live for the real venue)",
		Long: `A terminal trading desk: a live dashboard of a crypto venue with order entry.

With no command, the dashboard opens on the embedded simulated venue (banner SIM);
--live trades on the real venue (LIVE, red), --staging on its staging, --paper on
paper against the live market. Keys come from the environment or the config file.`,
		Example: `  tradedeck
  tradedeck --live --symbol SPOT_ETH_USDT
  tradedeck --paper --paper-state paper.json`,
		Args:                       unknownCommand,
		SuggestionsMinimumDistance: 2,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return run(cmd.Context(), o)
		},
	}
	dashboardFlags(cmd, &o)
	return cmd
}

func dashboardFlags(cmd *cobra.Command, o *app.Options) {
	fs := cmd.Flags()
	venueFlags(fs, &o.VenueChoice, "trade on")
	paperFlags(fs, &o.Paper, &o.PaperState)
	fs.BoolVar(&o.ReadOnly, "read-only", false, "never send orders: every trading action is hidden")
	fs.StringVar(&o.Symbol, "symbol", "", "symbol focused at start")
	fs.StringVar(&o.Theme, "theme", "", "colour theme: dark, light, contrast, mono (NO_COLOR selects mono)")
	fs.IntVar(&o.FPS, "fps", 0, "frames per second cap of the screen and the feed (default from config, 60)")
	fs.BoolVar(&o.ASCII, "ascii", false, "draw with ASCII only (auto when the locale is not UTF-8)")
}

// unknownCommand refuses an argument of the dashboard: it names no command.
func unknownCommand(cmd *cobra.Command, args []string) error {
	if len(args) == 0 {
		return nil
	}
	msg := fmt.Sprintf("unknown command %q for %q", args[0], cmd.CommandPath())
	if s := cmd.SuggestionsFor(args[0]); len(s) > 0 {
		msg += "; did you mean " + strings.Join(s, ", ") + "?"
	}
	return errors.New(msg)
}
