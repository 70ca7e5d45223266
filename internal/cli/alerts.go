package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"tradedeck/alerts"
	"tradedeck/config"
	"tradedeck/internal/app"
)

// alertsOptions are the flags of `tradedeck alerts` and its subcommands.
type alertsOptions struct {
	venue app.VenueChoice
	json  bool
	file  string
}

// Alerts is `tradedeck alerts`: without a subcommand the headless host
// (alerts evaluated on the venue's feed, one line per alert that fires,
// and the hook); add, list and rm edit the alerts file.
func Alerts(env Env) *cobra.Command {
	var o alertsOptions
	cmd := &cobra.Command{
		Use:   "alerts",
		Short: "alerts without a screen (add, list, rm; or run them, printing each that fires)",
		Long: "Run the alerts without a screen: one line (or --json object) per alert that fires, and the hook.\n\nalert syntax:\n  " +
			strings.Join(alerts.Syntax, "\n  "),
		Example: `  tradedeck alerts add SPOT_BTC_USDT above 50000
  tradedeck alerts add PERP_ETH_USDT pnl below -100
  tradedeck alerts add PERP_BTC_USDT below 90000 then pause 12 --live
  tradedeck alerts add PERP_BTC_USDT above 110000 then tighten 7 0.5% --live
  tradedeck alerts list --json
  tradedeck alerts rm 3
  tradedeck alerts --live`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, store, err := o.load(env)
			if err != nil {
				return err
			}
			return app.RunHeadless(cmd.Context(), app.HeadlessOptions{VenueChoice: o.venue, Config: cfg, Alerts: store,
				JSON: o.json, Out: env.Stdout, Log: env.Stderr})
		},
	}
	fs := cmd.PersistentFlags()
	venueFlags(fs, &o.venue, "watch")
	fs.BoolVar(&o.json, "json", false, "one JSON object a line")
	fs.StringVar(&o.file, "file", "", "alerts file (default "+alerts.DefaultPath(nil)+")")
	cmd.AddCommand(&cobra.Command{
		Use:   "add ALERT...",
		Short: "add an alert, e.g. SPOT_BTC_USDT above 50000",
		Args:  cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			_, store, err := o.load(env)
			if err != nil {
				return err
			}
			return alertsAdd(cmd.Context(), env.Stdout, store, o.venue, args, o.json)
		},
	}, &cobra.Command{
		Use:     "list",
		Aliases: []string{"ls"},
		Short:   "the alerts and the last ones that fired",
		Args:    noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			_, store, err := o.load(env)
			if err != nil {
				return err
			}
			return alertsList(env.Stdout, store, o.json)
		},
	}, &cobra.Command{
		Use:     "rm ID...",
		Aliases: []string{"remove", "del"},
		Short:   "delete alerts by ID (see alerts list)",
		RunE: func(cmd *cobra.Command, args []string) error {
			_, store, err := o.load(env)
			if err != nil {
				return err
			}
			return alertsRemove(env.Stdout, store, args)
		},
	})
	return cmd
}

// load reads the config (its warnings on stderr) and opens the alerts file.
func (o alertsOptions) load(env Env) (config.Config, *alerts.Store, error) {
	cfg, warnings, err := config.LoadFlag(o.venue.Config)
	if err != nil {
		return cfg, nil, err
	}
	for _, w := range warnings {
		fmt.Fprintln(env.Stderr, "tradedeck:", w)
	}
	path := o.file
	if path == "" {
		path = alerts.DefaultPath(nil)
	}
	return cfg, alerts.NewStore(path), nil
}

// alertsAdd adds an alert to the file; one that acts on an algo is
// checked first against the account the venue flags name (its running
// engine, else its database): refused, with the reason, when the algo is
// not there or the action cannot be done to it.
func alertsAdd(ctx context.Context, w io.Writer, store *alerts.Store, venue app.VenueChoice, args []string, asJSON bool) error {
	a, err := alerts.Parse(args, nil)
	if err != nil {
		return fmt.Errorf("alerts add: %w", err)
	}
	if a.Then != nil {
		if err := venue.CheckAlertAction(ctx, *a.Then); err != nil {
			return fmt.Errorf("alerts add: then %s: %w", a.Then, err)
		}
	}
	a.Created = time.Now()
	if a.Every && a.Cooldown == 0 && a.Kind != alerts.KindOrder && a.Kind != alerts.KindStream {
		a.Cooldown = alerts.Duration(alerts.DefaultCooldown)
	}
	var added alerts.Alert
	if _, err := store.Update(func(f *alerts.File) error { added = alerts.AddTo(f, a); return nil }); err != nil {
		return err
	}
	if asJSON {
		return json.NewEncoder(w).Encode(added)
	}
	fmt.Fprintf(w, "alert %d: %s\n", added.ID, added.String())
	return nil
}

func alertsRemove(w io.Writer, store *alerts.Store, args []string) error {
	if len(args) == 0 {
		return errors.New("usage: tradedeck alerts rm ID...") //nolint:staticcheck // ST1005: "ID..." is usage syntax (one or more IDs), not punctuation
	}
	ids := make([]int, len(args))
	for i, s := range args {
		id, err := strconv.Atoi(strings.TrimPrefix(s, "#"))
		if err != nil {
			return fmt.Errorf("alerts rm: %q is not an alert ID (see tradedeck alerts list)", s)
		}
		ids[i] = id
	}
	if _, err := store.Update(func(f *alerts.File) error {
		for _, id := range ids {
			if err := alerts.RemoveFrom(f, id); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		return fmt.Errorf("alerts rm: %w", err)
	}
	for _, id := range ids {
		fmt.Fprintf(w, "alert %d removed\n", id)
	}
	return nil
}

func alertsList(w io.Writer, store *alerts.Store, asJSON bool) error {
	f, err := store.Load()
	if err != nil {
		return err
	}
	if asJSON {
		enc := json.NewEncoder(w)
		for _, a := range f.Alerts {
			if err := enc.Encode(a); err != nil {
				return err
			}
		}
		return nil
	}
	if len(f.Alerts) == 0 {
		fmt.Fprintln(w, "no alerts (add one: tradedeck alerts add SPOT_BTC_USDT above 50000)")
	} else {
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "ID\tSTATE\tALERT\tMODE\tFIRED\tLAST")
		for _, a := range f.Alerts {
			last := ""
			if !a.Last.IsZero() {
				last = a.Last.Local().Format("2006-01-02 15:04:05")
			}
			fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%d\t%s\n", a.ID, a.State(), condition(a), a.Mode(), a.Count, last)
		}
		tw.Flush()
	}
	if n := len(f.Fired); n > 0 {
		fmt.Fprintf(w, "\nlast fired (%d unread):\n", f.Unread())
		for i := n - 1; i >= 0 && i >= n-10; i-- {
			x := f.Fired[i]
			fmt.Fprintf(w, "  %s  #%d  %s\n", x.Time.Local().Format("2006-01-02 15:04:05"), x.Alert, x.Message)
		}
	}
	return nil
}

// condition is an alert's condition for the list, with its action when
// it acts (the columns of an alert that only tells are as they were).
func condition(a alerts.Alert) string {
	if a.Then == nil {
		return a.Condition()
	}
	return a.Condition() + " then " + a.Then.String()
}
