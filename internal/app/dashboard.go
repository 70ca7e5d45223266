// Package app is tradedeck's composition root: it wires a venue (the
// embedded simulator, the real venue or its staging, a paper venue, a
// replay), its feed hub, the trading desk, alerts and the screen into one
// process of a kind: a dashboard (RunDashboard), an SSH server
// (RunServer), or a headless host (RunHeadless). The commands of
// internal/cli choose the options; this package decides what runs.
package app

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/shopspring/decimal"

	"tradedeck/alerts"
	"tradedeck/config"
	"tradedeck/feed"
	"tradedeck/feed/hub"
	"tradedeck/internal/app/proc"
	"tradedeck/panes/common"
	panestats "tradedeck/panes/stats"
	"tradedeck/theme"
	"tradedeck/ui"
	"tradedeck/venue"
)

// Options are a dashboard's options (the root command's flags).
type Options struct {
	VenueChoice
	ReadOnly, ASCII bool
	Paper           bool   // paper trading on the live market (paper.go)
	PaperState      string // the paper account's state file
	Symbol, Theme   string
	FPS             int
	AlertsFile      string        // "": the local user's (serve: the SSH key's)
	AlertsBy        string        // who adds alerts here, for the audit of what they do (serve: the SSH key's fingerprint)
	Pace            time.Duration // shortest redraw interval of the book and tape (SSH sessions)
	FeedLog         io.Writer     // reconnects, resyncs, REST failures (watch -v); nil: none
	// OnAlgosLive hears whether the account's engine running in this
	// process has a live algo (RunDashboard holds its processors by it).
	OnAlgosLive func(live bool)
	// Keys are the dashboard's default key bindings (the root package's
	// keymap.go); nil: common.DefaultKeyMap.
	Keys func() *common.KeyMap
}

// RunDashboard runs the dashboard until it quits or ctx ends (ctrl-c and
// SIGTERM end it too), with the process tuned for one screen.
func RunDashboard(ctx context.Context, fl Options) error {
	cfg, warnings, err := config.LoadFlag(fl.Config)
	if err != nil {
		return err
	}
	ctx, stop := proc.Interruptible(ctx)
	defer stop()

	proc.LimitMemory(ctx)       // proc/memlimit.go
	go proc.TrimAfterStart(ctx) // proc/mapped_linux.go
	// One processor until an algo is live here (proc/processors.go).
	procs := proc.OneUntilNeeded()
	defer procs.Restore()
	fl.OnAlgosLive = procs.Need
	d, err := StartDashboard(ctx, fl, cfg)
	if err != nil {
		return err
	}
	defer d.Close()
	// Profiles for diagnostics (proc/diag_profile.go): only in a binary
	// built with -tags profile.
	stopProfiles, err := proc.StartProfiles()
	if err != nil {
		return err
	}
	defer stopProfiles()
	d.model.PushUpdates() // one goroutine forwards the feed, not one per Update
	p := tea.NewProgram(d.model, tea.WithFPS(d.fps), tea.WithContext(ctx))
	go ui.ForwardUpdates(d.session.Updates(), p.Send)
	go func() {
		for _, w := range append(warnings, d.warnings...) {
			p.Send(common.NoticeMsg{Level: common.NoticeWarn, Text: w})
		}
	}()
	alertsCtx, stopAlerts := context.WithCancel(ctx)
	alertsDone := make(chan struct{})
	go func() { d.runAlerts(alertsCtx); close(alertsDone) }()
	defer func() { stopAlerts(); <-alertsDone }() // what fired is saved before we exit
	_, err = p.Run()
	if errors.Is(err, tea.ErrProgramKilled) && ctx.Err() != nil {
		return nil // interrupted: a normal way out
	}
	return err
}

// Dashboard is everything one running dashboard owns: its screen and its
// session of the venue's hub.
type Dashboard struct {
	model    *ui.Model
	session  *hub.Session
	alerts   *dashAlerts // nil when the alerts file could not be read
	fps      int
	Close    func()
	warnings []string // shown as notices once the screen is up
	// algos is the account's engine as this screen uses it (nil: no
	// keys); showAlgo delivers its loud events to the screen's alert
	// channels (every channel locally; a served session's screen only,
	// the server runs the hook once).
	algos    AlgoSource
	showAlgo func(alerts.Fired)
}

// runAlerts runs the dashboard's alert engine, and the delivery of the
// protective-orders engine's events to its channels, until ctx ends.
func (d *Dashboard) runAlerts(ctx context.Context) {
	if d.algos != nil && d.showAlgo != nil {
		go deliverAlgoEvents(ctx, d.algos, d.showAlgo)
	}
	if d.alerts != nil {
		d.alerts.run(ctx)
	}
}

// StartDashboard wires config -> venue client -> feed -> ui: the embedded
// simulated venue on loopback by default, the real venue with --live.
// Closing the dashboard closes the venue it opened.
func StartDashboard(ctx context.Context, fl Options, cfg config.Config) (*Dashboard, error) {
	v, err := OpenVenue(ctx, fl, cfg)
	if err != nil {
		return nil, err
	}
	fl.Symbol = strings.ToUpper(fl.Symbol) // as watch and :symbol accept it
	if err := CheckSymbols(ctx, v.Client, "dashboard", append([]string{fl.Symbol, cfg.Symbol}, cfg.Watchlist...)...); err != nil {
		v.Close()
		return nil, err
	}
	v.exportDir = "." // :export writes here (never in serve)
	var warnings []string
	if v.Credentials.HasKeys() {
		// The account's engine: here when this dashboard trades and takes
		// the account's lock, else a view of the process that holds it.
		a, err := v.StartAlgos(ctx, AlgoOptions{Host: "dashboard", MayRun: !v.readOnly, OnLive: fl.OnAlgosLive})
		if err != nil {
			warnings = append(warnings, "protective orders off: "+err.Error())
		} else {
			v.Algos = a
			closeVenue := v.Close
			v.Close = func() { a.Close(); closeVenue() }
		}
	}
	d, err := v.newDashboard(fl, os.Getenv)
	if err != nil {
		v.Close()
		return nil, err
	}
	close := d.Close
	d.Close = func() { close(); v.Close() }
	d.warnings = append(d.warnings, warnings...)
	d.showAlgo = d.alerts.deliverAll
	return d, nil
}

// newDashboard builds one dashboard (its own screen and hub session) on
// the shared venue. getenv is the environment of the terminal it draws on
// (theme, NO_COLOR, locale): the process's locally, the SSH client's
// for a served session. d.Close ends the session.
func (v *Venue) newDashboard(fl Options, getenv func(string) string) (*Dashboard, error) {
	cfg := v.cfg
	keys := v.keys()
	if err := keys.Rebind(cfg.Keys); err != nil {
		return nil, fmt.Errorf("config: %w", err)
	}
	themeName := cfg.Theme
	if fl.Theme != "" {
		themeName = fl.Theme
	}
	th, err := theme.Detect(themeName, fl.ASCII || cfg.ASCII, getenv)
	if err != nil {
		return nil, err
	}
	fps := frameRate(fl, cfg)

	symbol := cfg.Symbol
	if fl.Symbol != "" {
		symbol = fl.Symbol
	}
	watch := cfg.Watchlist
	if symbol == "" && len(watch) > 0 {
		symbol = watch[0]
	}
	alertsFile := fl.AlertsFile
	if alertsFile == "" {
		alertsFile = alerts.DefaultPath(nil)
	}
	var warnings []string
	var alertDesk *ui.AlertDesk
	da, err := newDashAlerts(v, alertsFile, fl.AlertsBy, getenv)
	if err != nil {
		warnings = append(warnings, "alerts off: "+err.Error())
	} else {
		alertDesk = da.desk()
	}
	s := v.Hub.Join(context.Background(), feed.View{Symbol: symbol, Interval: cfg.Interval, Watchlist: watch})
	var threshold decimal.Decimal
	if cfg.ConfirmNotional != "" {
		threshold, _ = decimal.NewFromString(cfg.ConfirmNotional) // checked when the config loaded
	}
	m := ui.New(ui.Options{
		Feed: sessionFeed{s, v.Hub.Feed()}, Desk: v.newDesk(), ReadOnly: v.readOnlyWhy(), ConfirmNotional: threshold,
		Alerts: alertDesk, ExportDir: v.exportDir, Replay: v.replay, Paper: v.paper, Algos: v.forUI(),
		Venue: v.Label, Account: accountLabel(v.Credentials), Symbol: symbol, Interval: cfg.Interval,
		Watchlist: watch, Budget: budget(v.Client),
		Theme: th, Keys: keys, ASCII: th.Glyphs.ASCII,
		Focus: cfg.Layout.Focus, Zoom: cfg.Layout.Zoom, Pace: fl.Pace,
	})
	// The same statistics twice, sharing the cache: full screen (:stats,
	// S) and as a tab of the account pane, in the dashboard's theme and keys.
	statsOpts := panestats.Options{Keys: keys, Theme: th}
	m.AddPage("stats", ui.NewStatsPage(panestats.New(v.cache, statsOpts)))
	tabOpts := statsOpts
	tabOpts.Page = "stats" // enter on the tab opens the page
	m.AddTab("Swap stats", ui.NewStatsPage(panestats.New(v.cache, tabOpts)))
	d := &Dashboard{model: m, session: s, alerts: da, fps: fps, Close: func() { m.Close(); s.Close() }, warnings: warnings, algos: v.algoSource()}
	if da != nil {
		d.showAlgo = da.deliver.Show
	}
	if da != nil {
		d.Close = func() { m.Close(); da.leave(); s.Close() }
	}
	return d, nil
}

// accountLabel shows which account is on screen without its key or
// secret: the application id, shortened.
func accountLabel(c venue.Credentials) string {
	id := c.ApplicationID
	if len(id) > 8 {
		id = id[:8] + "…"
	}
	return id
}

// budget describes the tightest REST rate-limit budget: requests that may
// go now / the limit, and its group when it is being spent.
func budget(c *venue.Client) func() string {
	return func() string {
		b := c.Budgets()
		if len(b) == 0 {
			return ""
		}
		s := strconv.Itoa(b[0].Remaining) + "/" + strconv.Itoa(b[0].Limit)
		if b[0].Remaining < b[0].Limit && b[0].Group != "" {
			s += " " + string(b[0].Group)
			if b[0].Symbol != "" {
				s += " " + b[0].Symbol
			}
		}
		return s
	}
}
