package app

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"tradedeck/alerts"
	"tradedeck/algo"
	"tradedeck/config"
	"tradedeck/desk"
	"tradedeck/feed"
	"tradedeck/feed/hub"
	"tradedeck/panes/common"
	"tradedeck/sim"
	"tradedeck/stats"
	"tradedeck/ui"
	"tradedeck/venue"
)

// Venue is what any number of dashboards share: the venue (embedded
// simulator or live addresses and keys), one REST client (so one rate
// limiter), one feed behind a hub (so one market and one private
// connection, whatever the number of screens), the statistics cache, and
// whether trading is allowed.
type Venue struct {
	cfg         config.Config
	Endpoints   venue.Endpoints
	Credentials venue.Credentials
	Client      *venue.Client
	Hub         *hub.Hub
	alerts      *alerts.Fanout // the feed's observer: every dashboard's alert engine
	cache       *stats.Cache
	Label       string // SIM, LIVE, STAGING, PAPER or REPLAY
	readOnly    bool
	why         string           // why read-only, shown in every refusal
	clock       func() time.Time // the feed's clock: nil for the system's, a replay's own
	// scratchAlerts keeps a dashboard's alerts in memory, as notices only
	// (a replay: recorded data must not fire real alerts or the hook).
	scratchAlerts bool
	exportDir     string                // where :export writes ("": no :export, as in serve)
	replay        ui.ReplayControl      // a replay's playback controls; nil: live
	paper         ui.PaperControl       // a paper venue's reset; nil: not paper
	feedLog       io.Writer             // the feed's log (watch -v)
	defaultKeys   func() *common.KeyMap // Options.Keys
	paperState    string                // the paper account's file ("": in memory)
	// algoObs hands the feed to the protective-orders engine once this
	// process runs it; algos is the engine (or the view of another
	// process's) when the host started it (StartAlgos).
	algoObs *engineObserver
	Algos   *Algos
	// session is what one dashboard uses of the engine (a served
	// session's: audited, a viewer's refused); nil: Algos as is.
	session AlgoSource
	audit   *Audit // serve's trade audit in the desk's database
	// actBoard shows what an alert did to an algo on every screen of
	// the process (serve: each session), not only the alert's own.
	actBoard *actBoard
	Close    func()
}

// keys are a new dashboard's default key bindings.
func (v *Venue) keys() *common.KeyMap {
	if v.defaultKeys == nil {
		return common.DefaultKeyMap()
	}
	return v.defaultKeys()
}

// OpenVenue starts the embedded simulated venue (or takes the live
// addresses and keys with --live, the staging ones with --staging: the
// one place the three venues are told apart), the REST client and the feed hub
// shared by the dashboards built on it; the hub runs until ctx ends.
func OpenVenue(ctx context.Context, fl Options, cfg config.Config) (*Venue, error) {
	target, err := config.TargetOf(fl.Live, fl.Staging)
	if err != nil {
		return nil, err
	}
	if fl.Paper && target != config.TargetSim {
		return nil, errors.New("--paper excludes --live and --staging: --paper trades on paper against the live market")
	}
	v := &Venue{cfg: cfg, Label: target.Label(), feedLog: fl.FeedLog, defaultKeys: fl.Keys, Close: func() {}, algoObs: &engineObserver{},
		actBoard: &actBoard{}}
	v.readOnly = fl.ReadOnly || cfg.ReadOnly
	if v.readOnly {
		v.why = "read-only mode"
	}
	if target != config.TargetSim {
		v.Endpoints, v.Credentials = cfg.EndpointsOf(target), cfg.CredentialsOf(target, os.Getenv)
		if v.Credentials.ApplicationID == "" {
			// Every stream address ends with it: without one the venue
			// answers 404 and the feed would reconnect forever.
			return nil, fmt.Errorf("%s needs an application id (%s or application_id in the config): the venue's stream addresses contain it",
				target.Label(), config.EnvApplicationID)
		}
		if !v.Credentials.HasKeys() {
			v.readOnly, v.why = true, "no API keys ("+config.EnvAPIKey+", "+config.EnvAPISecret+")"
		}
	} else if fl.Paper {
		inst, err := startPaperVenue(ctx, fl, cfg)
		if err != nil {
			return nil, err
		}
		v.Label, v.Endpoints, v.Credentials = "PAPER", inst.Endpoints, inst.Credentials
		v.paperState = fl.PaperState
		v.paper = paperControl{inst}
		v.Close = func() { _ = inst.Close() }
	} else {
		inst, err := sim.Start(ctx, sim.Options{Seed: fl.Seed})
		if err != nil {
			return nil, fmt.Errorf("embedded simulated venue: %w", err)
		}
		v.Endpoints, v.Credentials = inst.Endpoints, inst.Credentials
		v.Close = func() { _ = inst.Close() }
	}
	v.Client = venue.NewClient(v.Endpoints, v.Credentials)
	v.cache = stats.NewCache(stats.NewClient(v.Endpoints.StatsURL), 5*time.Minute)
	v.startHub(ctx, frameRate(fl, cfg))
	return v, nil
}

// startHub starts the feed hub the venue's dashboards join, on the
// venue's clock (a replay's own, or the system's). The hub hands its
// sessions updates at twice the frame rate (at most 240/s): its
// coalescing tick and the renderer's tick are not in phase, so this
// halves the worst wait between them; an Update+View costs the UI
// ~60 µs, so the extra messages are cheap.
func (v *Venue) startHub(ctx context.Context, fps int) {
	v.alerts = alerts.NewFanout()
	var obs feed.Observer = v.alerts
	if v.algoObs != nil { // not in a replay: recorded data never trades
		obs = feed.Tee(v.alerts, v.algoObs)
	}
	v.Hub = hub.New(feed.New(feed.Config{
		Endpoints: v.Endpoints, Credentials: v.Credentials, REST: v.Client,
		FrameInterval: time.Second / time.Duration(min(2*fps, 240)),
		Interval:      v.cfg.Interval, Observer: obs, Clock: v.clock, Log: v.feedLog,
	}))
	v.alerts.SetTrack(v.Hub.Feed().Track)
	go func() { _ = v.Hub.Run(ctx) }() // ends with ctx; failures show on the health line
}

// newDesk is a dashboard's trading desk on the venue's client (a served
// session's client logs who trades), nil without API keys. Read-only
// dashboards keep theirs: the account screen reads through it, and the ui
// refuses every change with readOnlyWhy.
func (v *Venue) newDesk() *desk.Desk {
	if !v.Credentials.HasKeys() {
		return nil
	}
	dc := desk.Config{Client: v.Client, Tracker: v.Hub.Feed(), Rules: v.Hub.Feed().Symbols}
	if src := v.algoSource(); src != nil {
		dc.Algos = algoStopper{src} // panic cancel and cancel-all stop the algos first
	}
	d, err := desk.New(dc)
	if err != nil {
		return nil
	}
	return d
}

// readOnlyWhy is why the dashboards on this venue do not trade ("": they
// do), decided once here and shown in every refusal.
func (v *Venue) readOnlyWhy() string {
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
func frameRate(fl Options, cfg config.Config) int {
	fps := cfg.FPS
	if fl.FPS > 0 {
		fps = fl.FPS
	}
	return max(1, min(fps, 240))
}

// algoSource is the engine as this venue's dashboards use it (nil: none).
func (v *Venue) algoSource() AlgoSource {
	if v.session != nil {
		return v.session
	}
	if v.Algos != nil {
		return v.Algos
	}
	return nil
}

// algoStopper is desk.Config.Algos on any AlgoSource.
type algoStopper struct{ src AlgoSource }

func (s algoStopper) StopAlgos(symbol, why string) error {
	return s.src.CancelAll(algo.Scope{Symbol: symbol, Why: why})
}
