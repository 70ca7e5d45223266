package main

import (
	"context"
	"errors"
	"flag"
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
	"tradedeck/desk"
	"tradedeck/feed"
	"tradedeck/feed/hub"
	"tradedeck/panes/common"
	panestats "tradedeck/panes/stats"
	"tradedeck/sim"
	"tradedeck/stats"
	"tradedeck/theme"
	"tradedeck/ui"
	"tradedeck/venue"
)

func init() {
	register(dashboardName, "the dashboard (default; --live for the real venue)", runDashboard)
}

// dashboardFlags are the dashboard's command-line options.
type dashboardFlags struct {
	venueFlags
	readOnly, ascii bool
	paper           bool   // paper trading on the live market (cmd_dashboard_paper.go)
	paperState      string // the paper account's state file
	symbol, theme   string
	fps             int
	alertsFile      string        // "": the local user's (serve: the SSH key's)
	pace            time.Duration // shortest redraw interval of the book and tape (SSH sessions)
	feedLog         io.Writer     // reconnects, resyncs, REST failures (watch -v); nil: none
}

func parseDashboardFlags(args []string) (dashboardFlags, error) {
	var f dashboardFlags
	fs := flag.NewFlagSet("dashboard", flag.ContinueOnError)
	f.venueFlags.register(fs, "trade on")
	fs.BoolVar(&f.paper, "paper", false, "paper trading: the live venue's market (config [live]) with a simulated account, no keys needed (docs/paper.md)")
	fs.StringVar(&f.paperState, "paper-state", "", "with --paper: keep the paper account in this file across restarts")
	fs.BoolVar(&f.readOnly, "read-only", false, "never send orders: every trading action is hidden")
	fs.StringVar(&f.symbol, "symbol", "", "symbol focused at start")
	fs.StringVar(&f.theme, "theme", "", "colour theme: dark, light, contrast, mono (NO_COLOR selects mono)")
	fs.IntVar(&f.fps, "fps", 0, "frames per second cap of the screen and the feed (default from config, 60)")
	fs.BoolVar(&f.ascii, "ascii", false, "draw with ASCII only (auto when the locale is not UTF-8)")
	if err := fs.Parse(args); err != nil {
		return f, err
	}
	if fs.NArg() > 0 {
		return f, fmt.Errorf("dashboard: unexpected arguments %v", fs.Args())
	}
	return f, nil
}

func runDashboard(args []string) error {
	fl, err := parseDashboardFlags(args)
	if err != nil {
		return err
	}
	cfg, warnings, err := config.LoadFlag(fl.config)
	if err != nil {
		return err
	}
	ctx, stop := interruptContext()
	defer stop()

	limitMemory(ctx)       // memlimit.go
	go trimAfterStart(ctx) // mapped_linux.go
	d, err := startDashboard(ctx, fl, cfg)
	if err != nil {
		return err
	}
	defer d.close()
	// Profiles for diagnostics (diag_profile.go): only in a binary built
	// with -tags profile.
	stopProfiles, err := startProfiles()
	if err != nil {
		return err
	}
	defer stopProfiles()
	p := tea.NewProgram(d.model, tea.WithFPS(d.fps), tea.WithContext(ctx))
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

// dashboard is everything one running dashboard owns: its screen and its
// session of the venue's hub.
type dashboard struct {
	model    *ui.Model
	session  *hub.Session
	alerts   *dashAlerts // nil when the alerts file could not be read
	fps      int
	close    func()
	warnings []string // shown as notices once the screen is up
}

// runAlerts runs the dashboard's alert engine until ctx ends.
func (d *dashboard) runAlerts(ctx context.Context) {
	if d.alerts != nil {
		d.alerts.run(ctx)
	}
}

// startDashboard wires config -> venue client -> feed -> ui: the embedded
// simulated venue on loopback by default, the real venue with --live.
// Closing the dashboard closes the venue it opened.
func startDashboard(ctx context.Context, fl dashboardFlags, cfg config.Config) (*dashboard, error) {
	v, err := openVenue(ctx, fl, cfg)
	if err != nil {
		return nil, err
	}
	fl.symbol = strings.ToUpper(fl.symbol) // as watch and :symbol accept it
	if err := checkSymbols(ctx, v.client, "dashboard", append([]string{fl.symbol, cfg.Symbol}, cfg.Watchlist...)...); err != nil {
		v.close()
		return nil, err
	}
	v.exportDir = "." // :export writes here (never in serve)
	d, err := v.newDashboard(fl, os.Getenv)
	if err != nil {
		v.close()
		return nil, err
	}
	close := d.close
	d.close = func() { close(); v.close() }
	return d, nil
}

// deskVenue is what any number of dashboards share: the venue (embedded
// simulator or live addresses and keys), one REST client (so one rate
// limiter), one feed behind a hub (so one market and one private
// connection, whatever the number of screens), the statistics cache, and
// whether trading is allowed.
type deskVenue struct {
	cfg       config.Config
	endpoints venue.Endpoints
	creds     venue.Credentials
	client    *venue.Client
	hub       *hub.Hub
	alerts    *alerts.Fanout // the feed's observer: every dashboard's alert engine
	algos     *dashAlgos     // the protective-orders engine; nil: none in this process
	cache     *stats.Cache
	label     string // SIM, LIVE or STAGING
	readOnly  bool
	why       string           // why read-only, shown in every refusal
	clock     func() time.Time // the feed's clock: nil for the system's, a replay's own
	// scratchAlerts keeps a dashboard's alerts in memory, as notices only
	// (a replay: recorded data must not fire real alerts or the hook).
	scratchAlerts bool
	exportDir     string           // where :export writes ("": no :export, as in serve)
	replay        ui.ReplayControl // a replay's playback controls; nil: live
	paper         ui.PaperControl  // a paper venue's reset; nil: not paper
	feedLog       io.Writer        // the feed's log (watch -v)
	close         func()
}

// openVenue starts the embedded simulated venue (or takes the live
// addresses and keys with --live, the staging ones with --staging: the
// one place the three venues are told apart), the REST client and the feed hub
// shared by the dashboards built on it; the hub runs until ctx ends.
func openVenue(ctx context.Context, fl dashboardFlags, cfg config.Config) (*deskVenue, error) {
	target, err := config.TargetOf(fl.live, fl.staging)
	if err != nil {
		return nil, err
	}
	if fl.paper && target != config.TargetSim {
		return nil, errors.New("--paper excludes --live and --staging: --paper trades on paper against the live market")
	}
	v := &deskVenue{cfg: cfg, label: target.Label(), feedLog: fl.feedLog, close: func() {}}
	v.readOnly = fl.readOnly || cfg.ReadOnly
	if v.readOnly {
		v.why = "read-only mode"
	}
	if target != config.TargetSim {
		v.endpoints, v.creds = cfg.EndpointsOf(target), cfg.CredentialsOf(target, os.Getenv)
		if v.creds.ApplicationID == "" {
			// Every stream address ends with it: without one the venue
			// answers 404 and the feed would reconnect forever.
			return nil, fmt.Errorf("%s needs an application id (%s or application_id in the config): the venue's stream addresses contain it",
				target.Label(), config.EnvApplicationID)
		}
		if !v.creds.HasKeys() {
			v.readOnly, v.why = true, "no API keys ("+config.EnvAPIKey+", "+config.EnvAPISecret+")"
		}
	} else if fl.paper {
		inst, err := startPaperVenue(ctx, fl, cfg)
		if err != nil {
			return nil, err
		}
		v.label, v.endpoints, v.creds = "PAPER", inst.Endpoints, inst.Credentials
		v.paper = paperControl{inst}
		v.close = func() { _ = inst.Close() }
	} else {
		inst, err := sim.Start(ctx, sim.Options{Seed: fl.seed})
		if err != nil {
			return nil, fmt.Errorf("embedded simulated venue: %w", err)
		}
		v.endpoints, v.creds = inst.Endpoints, inst.Credentials
		v.close = func() { _ = inst.Close() }
	}
	v.client = venue.NewClient(v.endpoints, v.creds)
	v.cache = stats.NewCache(stats.NewClient(v.endpoints.StatsURL), 5*time.Minute)
	v.startHub(ctx, frameRate(fl, cfg))
	return v, nil
}

// startHub starts the feed hub the venue's dashboards join, on the
// venue's clock (a replay's own, or the system's). The hub hands its
// sessions updates at twice the frame rate (at most 240/s): its
// coalescing tick and the renderer's tick are not in phase, so this
// halves the worst wait between them; an Update+View costs the UI
// ~60 µs, so the extra messages are cheap.
func (v *deskVenue) startHub(ctx context.Context, fps int) {
	v.alerts = alerts.NewFanout()
	eng := v.startAlgos(ctx) // cmd_dashboard_algos.go
	v.hub = hub.New(feed.New(feed.Config{
		Endpoints: v.endpoints, Credentials: v.creds, REST: v.client,
		FrameInterval: time.Second / time.Duration(min(2*fps, 240)),
		Interval:      v.cfg.Interval, Observer: feed.Tee(v.alerts, eng.Observer()), Clock: v.clock, Log: v.feedLog,
	}))
	v.alerts.SetTrack(v.hub.Feed().Track)
	if eng != nil {
		eng.SetTrack(v.hub.Feed().Track)
		v.alerts.SetTrack(eng.alertTrack)
		go func() { _ = eng.engine.Run(ctx) }()
	}
	go func() { _ = v.hub.Run(ctx) }() // ends with ctx; failures show on the health line
}

// newDesk is a dashboard's trading desk on the venue's client (a served
// session's client logs who trades), nil without API keys. Read-only
// dashboards keep theirs: the account screen reads through it, and the ui
// refuses every change with readOnlyWhy.
func (v *deskVenue) newDesk() *desk.Desk {
	if !v.creds.HasKeys() {
		return nil
	}
	d, err := desk.New(desk.Config{Client: v.client, Tracker: v.hub.Feed(), Rules: v.hub.Feed().Symbols})
	if err != nil {
		return nil
	}
	return d
}

// readOnlyWhy is why the dashboards on this venue do not trade ("": they
// do), decided once here and shown in every refusal.
func (v *deskVenue) readOnlyWhy() string {
	if !v.readOnly {
		return ""
	}
	return v.why
}

// sessionFeed is what a dashboard reads of the feed: its hub session's
// updates and view, and the feed's symbol rules.
type sessionFeed struct {
	*hub.Session
	f *feed.Feed
}

func (s sessionFeed) Symbols() []venue.SymbolRule { return s.f.Symbols() }

// frameRate is the screen's frames per second: --fps, else the config's,
// within 1..240.
func frameRate(fl dashboardFlags, cfg config.Config) int {
	fps := cfg.FPS
	if fl.fps > 0 {
		fps = fl.fps
	}
	return max(1, min(fps, 240))
}

// newDashboard builds one dashboard (its own screen and hub session) on
// the shared venue. getenv is the environment of the terminal it draws on
// (theme, NO_COLOR, locale): the process's locally, the SSH client's
// for a served session. d.close ends the session.
func (v *deskVenue) newDashboard(fl dashboardFlags, getenv func(string) string) (*dashboard, error) {
	cfg := v.cfg
	keys := defaultKeyMap()
	if err := keys.Rebind(cfg.Keys); err != nil {
		return nil, fmt.Errorf("config: %w", err)
	}
	themeName := cfg.Theme
	if fl.theme != "" {
		themeName = fl.theme
	}
	th, err := theme.Detect(themeName, fl.ascii || cfg.ASCII, getenv)
	if err != nil {
		return nil, err
	}
	fps := frameRate(fl, cfg)

	symbol := cfg.Symbol
	if fl.symbol != "" {
		symbol = fl.symbol
	}
	watch := cfg.Watchlist
	if symbol == "" && len(watch) > 0 {
		symbol = watch[0]
	}
	alertsFile := fl.alertsFile
	if alertsFile == "" {
		alertsFile = alerts.DefaultPath(nil)
	}
	var warnings []string
	var alertDesk *ui.AlertDesk
	da, err := newDashAlerts(v, alertsFile, getenv)
	if err != nil {
		warnings = append(warnings, "alerts off: "+err.Error())
	} else {
		alertDesk = da.desk()
	}
	s := v.hub.Join(context.Background(), feed.View{Symbol: symbol, Interval: cfg.Interval, Watchlist: watch})
	var threshold decimal.Decimal
	if cfg.ConfirmNotional != "" {
		threshold, _ = decimal.NewFromString(cfg.ConfirmNotional) // checked when the config loaded
	}
	m := ui.New(ui.Options{
		Feed: sessionFeed{s, v.hub.Feed()}, Desk: v.newDesk(), ReadOnly: v.readOnlyWhy(), ConfirmNotional: threshold,
		Alerts: alertDesk, ExportDir: v.exportDir, Replay: v.replay, Paper: v.paper, Algos: v.algosUI(),
		Venue: v.label, Account: accountLabel(v.creds), Symbol: symbol, Interval: cfg.Interval,
		Watchlist: watch, Budget: budget(v.client),
		Theme: th, Keys: keys, ASCII: th.Glyphs.ASCII,
		Focus: cfg.Layout.Focus, Zoom: cfg.Layout.Zoom, Pace: fl.pace,
	})
	// The same statistics twice, sharing the cache: full screen (:stats,
	// S) and as a tab of the account pane, in the dashboard's theme and keys.
	statsOpts := panestats.Options{Keys: keys, Theme: th}
	m.AddPage("stats", ui.NewStatsPage(panestats.New(v.cache, statsOpts)))
	tabOpts := statsOpts
	tabOpts.Page = "stats" // enter on the tab opens the page
	m.AddTab("Swap stats", ui.NewStatsPage(panestats.New(v.cache, tabOpts)))
	d := &dashboard{model: m, session: s, alerts: da, fps: fps, close: func() { m.Close(); s.Close() }, warnings: warnings}
	if da != nil {
		d.close = func() { m.Close(); da.leave(); s.Close() }
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

// stagingFlag registers --staging next to --live (every command that has
// --live has both).
func stagingFlag(fs *flag.FlagSet, staging *bool) {
	fs.BoolVar(staging, "staging", false, "use the real venue's staging (test money; [staging] addresses from the config, else the venue's; keys from "+
		config.EnvAPIKey+"/"+config.EnvAPISecret+"/"+config.EnvApplicationID+")")
}
