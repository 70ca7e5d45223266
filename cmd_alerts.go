package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"tradedeck/alerts"
	"tradedeck/config"
	"tradedeck/feed"
	"tradedeck/venue"
)

func init() {
	register("alerts", "alerts without a screen (add, list, rm; or run them, printing each that fires)", runAlerts)
}

type alertsFlags struct {
	venueFlags
	json bool
	file string
}

func alertsFlagSet(f *alertsFlags) *flag.FlagSet {
	fs := flag.NewFlagSet("alerts", flag.ContinueOnError)
	f.venueFlags.register(fs, "watch")
	fs.BoolVar(&f.json, "json", false, "one JSON object a line")
	fs.StringVar(&f.file, "file", "", "alerts file (default "+alerts.DefaultPath(nil)+")")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), `usage:
  tradedeck alerts [flags]              run the alerts: one line per alert that fires, and the hook
  tradedeck alerts add ALERT...         add an alert, e.g. SPOT_BTC_USDT above 50000
  tradedeck alerts list                 the alerts and the last ones that fired
  tradedeck alerts rm ID                delete an alert

alert syntax:`)
		for _, s := range alerts.Syntax {
			fmt.Fprintln(fs.Output(), "  "+s)
		}
		fmt.Fprintln(fs.Output(), "\nflags:")
		fs.PrintDefaults()
	}
	return fs
}

func runAlerts(args []string) error {
	var fl alertsFlags
	fs := alertsFlagSet(&fl)
	if err := fs.Parse(args); err != nil {
		return err
	}
	rest := fs.Args()
	sub := ""
	if len(rest) > 0 {
		sub, rest = rest[0], rest[1:]
	}
	if sub == "list" || sub == "ls" || sub == "rm" || sub == "remove" || sub == "del" {
		// Flags may also follow these (`alerts list --json`).
		if err := fs.Parse(rest); err != nil {
			return err
		}
		rest = fs.Args()
	}
	cfg, warnings, err := config.LoadFlag(fl.config)
	if err != nil {
		return err
	}
	for _, w := range warnings {
		fmt.Fprintln(os.Stderr, "tradedeck:", w)
	}
	path := fl.file
	if path == "" {
		path = alerts.DefaultPath(nil)
	}
	store := alerts.NewStore(path)
	switch sub {
	case "":
		return runAlertsHeadless(fl, cfg, store)
	case "add":
		return alertsAdd(os.Stdout, store, rest, fl.json)
	case "list", "ls":
		return alertsList(os.Stdout, store, fl.json)
	case "rm", "remove", "del":
		return alertsRemove(os.Stdout, store, rest)
	}
	fs.Usage()
	return fmt.Errorf("alerts: unknown command %q", sub)
}

func alertsAdd(w io.Writer, store *alerts.Store, args []string, asJSON bool) error {
	a, err := alerts.Parse(args, nil)
	if err != nil {
		return fmt.Errorf("alerts add: %w", err)
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
		return errors.New("usage: tradedeck alerts rm ID...")
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
			fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%d\t%s\n", a.ID, a.State(), a.Condition(), a.Mode(), a.Count, last)
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

// alertChannels are the configured channels for a terminal with env
// getenv (the local one, or an SSH client's).
func alertChannels(c config.Alerts, getenv func(string) string) alerts.Channels {
	osc := c.DesktopOSC
	if osc == "" || osc == "auto" {
		osc = alerts.AutoOSC(getenv)
	}
	return alerts.Channels{Notice: c.Notice, Bell: c.Bell, Desktop: c.Desktop, OSC: osc, Tmux: alerts.InTmux(getenv),
		Command: c.Command, Timeout: c.HookTimeout()}
}

// runAlertsHeadless runs the alert engine on the venue the dashboard
// would use, printing each alert that fires and running the hook.
func runAlertsHeadless(fl alertsFlags, cfg config.Config, store *alerts.Store) error {
	ctx, stop := interruptContext()
	defer stop()
	v, err := openVenue(ctx, dashboardFlags{venueFlags: fl.venueFlags, readOnly: true}, cfg)
	if err != nil {
		return err
	}
	defer v.close()
	ch := alertChannels(cfg.Alerts, os.Getenv)
	ch.Notice = true // the line on stdout is the point
	if fl.json || !isTerminal(os.Stdout) {
		ch.Bell, ch.Desktop = false, false // escape sequences would garble a log or a pipe
	}
	d := alerts.NewDeliverer(ch)
	member := v.alerts.Join() // the venue's feed, shown at full rate to the engine
	defer member.Leave()
	e, err := alerts.NewEngine(alerts.Options{Store: store, Cooldown: cfg.Alerts.CooldownDuration(), OnFire: d.Deliver,
		OnSymbols: member.Track, OnError: func(err error) { fmt.Fprintln(os.Stderr, "tradedeck alerts:", err) }})
	if err != nil {
		return err
	}
	member.Attach(e)
	fmt.Fprintf(os.Stderr, "tradedeck alerts: %d alerts from %s on %s\n", len(e.List()), store.Path(), v.label)

	// A session that shows nothing: its Updates carry the feed's errors.
	s := v.hub.Join(ctx, feed.View{})
	defer s.Close()
	ctx, cancel := context.WithCancel(ctx)
	saved := make(chan struct{})
	go d.Run(ctx)
	go func() { e.Run(ctx); close(saved) }()
	checked := false
	checkSymbols := func() {
		if rules := v.hub.Feed().Symbols(); !checked && len(rules) > 0 {
			checked = true
			warnUnknownSymbols(os.Stderr, rules, e.Symbols())
		}
	}
	err = printAlerts(ctx, os.Stdout, s.Updates(), d, fl.json, checkSymbols)
	cancel()
	<-saved // what fired is in the file before we exit
	return err
}

// printAlerts writes each note as a line until the feed stops.
func printAlerts(ctx context.Context, w io.Writer, updates <-chan feed.Update, d *alerts.Deliverer, asJSON bool, onUpdate func()) error {
	enc := json.NewEncoder(w)
	for {
		select {
		case <-ctx.Done():
			return nil
		case u, ok := <-updates:
			if !ok {
				updates = nil
				continue
			}
			onUpdate()
			for _, ev := range u.Events {
				if ev.Kind == feed.EventError {
					fmt.Fprintln(os.Stderr, "tradedeck alerts: feed:", ev.Text)
				}
			}
		case n := <-d.Notes():
			if n.Level == alerts.NoteError {
				fmt.Fprintln(os.Stderr, "tradedeck alerts:", n.Text)
				continue
			}
			if asJSON && n.Fired != nil {
				if err := enc.Encode(n.Fired); err != nil {
					return err
				}
				continue
			}
			x := n.Fired
			fmt.Fprintf(w, "%s%s #%d %s %s %s\n", n.Terminal, x.Time.Local().Format("2006-01-02 15:04:05"), x.Alert, x.Kind, x.Value, x.Message)
		}
	}
}

// warnUnknownSymbols says which alerts watch a symbol the venue does not
// list (`alerts add` cannot check offline): they would never fire.
func warnUnknownSymbols(w io.Writer, rules []venue.SymbolRule, watched []string) {
	known := map[string]bool{}
	for _, r := range rules {
		known[r.Symbol] = true
	}
	for _, s := range watched {
		if !known[s] {
			fmt.Fprintf(w, "tradedeck alerts: the venue has no symbol %s: its alerts will not fire\n", s)
		}
	}
}

func isTerminal(f *os.File) bool {
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}
