package app

import (
	"context"
	"errors"
	"fmt"
	"os"
	"runtime/debug"
	"time"

	tea "charm.land/bubbletea/v2"
	"charm.land/log/v2"
	gossh "golang.org/x/crypto/ssh"

	"tradedeck/alerts"
	"tradedeck/config"
	"tradedeck/internal/app/proc"
	"tradedeck/panes/common"
	"tradedeck/serve"
	"tradedeck/venue"
)

// ServerOptions are `tradedeck serve`'s options.
type ServerOptions struct {
	VenueChoice
	Listen, HostKey, AuthorizedKeys string
	Trade, Paper                    bool
	PaperState                      string
	MaxSessions                     int
	Pace                            time.Duration
	Keys                            func() *common.KeyMap // Options.Keys, for every session
}

// DefaultPace batches the changes of an SSH session's book and trades
// tape (docs/serve.md "Bytes per viewer"); the rest of the screen draws
// every frame.
const DefaultPace = 400 * time.Millisecond

// MaxPace bounds a pace asked for (by the flag or a client's
// TRADEDECK_PACE): a slower book is no longer live.
const MaxPace = 2 * time.Second

// Check refuses options that cannot run, or would open the real account
// or trading to whoever connects.
func (f ServerOptions) Check() error {
	if f.Pace < 0 || f.Pace > MaxPace {
		return fmt.Errorf("serve: --pace %v: want 0 to %v", f.Pace, MaxPace)
	}
	if f.MaxSessions < 0 {
		return fmt.Errorf("serve: --max-sessions %d is negative", f.MaxSessions)
	}
	if (f.Trade || f.Live || f.Staging) && f.AuthorizedKeys == "" {
		// Not ~/.ssh/authorized_keys, and never any key: whoever gets in
		// sees the real account or can trade.
		return errors.New("serve: --trade, --live and --staging need an explicit --authorized-keys file listing who may connect (tradedeck-role=trader before a key lets it trade; see docs/serve.md)")
	}
	return nil
}

// ServeGCPercent is the garbage collector's target of `serve` (GOGC; Go's
// default is 100). Most of a session's heap lives as long as it does (the
// terminal renderer's model of the window, 0.86 MB at 160x48, the panes'
// caches: ~1.6 MB per session, docs/serve.md "Memory per viewer"), and at
// 100 the process holds about as much again in garbage. 25 was chosen
// before the renderer fork, when a session held ~3 MB (50 calm viewers:
// 4.4 MB of RSS per viewer at 100, 4.1 at 50, 3.5 at 25, no CPU
// difference visible above the noise); not measured again since.
const ServeGCPercent = 25

// serveGCPercent is the GC target serve sets: ServeGCPercent, unless GOGC
// is set (the runtime applied it already): then none.
func serveGCPercent(getenv func(string) string) (int, bool) {
	if getenv("GOGC") != "" {
		return 0, false
	}
	return ServeGCPercent, true
}

// RunServer runs the SSH server until ctx ends (ctrl-c and SIGTERM end
// it too), with the process tuned for many screens.
func RunServer(ctx context.Context, fl ServerOptions) error {
	if err := fl.Check(); err != nil {
		return err
	}
	cfg, warnings, err := config.LoadFlag(fl.Config)
	if err != nil {
		return err
	}
	logger := log.NewWithOptions(os.Stderr, log.Options{ReportTimestamp: true, Prefix: "serve"})
	log.SetDefault(logger) // wish's own messages (program errors, panics) in the same log
	for _, w := range warnings {
		logger.Warn("config: " + w)
	}
	if gc, ok := serveGCPercent(os.Getenv); ok {
		debug.SetGCPercent(gc)
	}
	ctx, stop := proc.Interruptible(ctx)
	defer stop()
	go proc.TrimAfterStart(ctx) // proc/mapped_linux.go
	srv, v, err := StartServer(ctx, fl, cfg, logger)
	if err != nil {
		return err
	}
	defer v.Close()
	err = srv.Run(ctx)
	logger.Info("stopped")
	return err
}

// idleTimeout frees a session whose connection went silent: a live
// dashboard writes at least its clock every second and the client
// acknowledges, so only a dead network is quiet this long.
const idleTimeout = 2 * time.Minute

// StartServer opens the shared venue and the SSH server on it. Every
// session builds its own dashboard (its own screen, a session of the
// venue's one feed hub): see docs/serve.md.
func StartServer(ctx context.Context, fl ServerOptions, cfg config.Config, logger *log.Logger) (*serve.Server, *Venue, error) {
	keyPath := fl.HostKey
	if keyPath == "" {
		keyPath = serve.DefaultHostKeyPath(nil)
	}
	pem, signer, err := serve.LoadOrCreateHostKey(keyPath)
	if err != nil {
		return nil, nil, err
	}
	authKeys := fl.AuthorizedKeys
	if authKeys == "" {
		authKeys = serve.DefaultAuthorizedKeys(nil)
	}
	anyKey := authKeys == "" && serve.IsLoopback(fl.Listen)

	// The server first: a bad address or key file fails before the venue
	// is opened. Sessions only start once Run serves, after v is set.
	var v *Venue
	srv, err := serve.New(serve.Config{
		Listen: fl.Listen, HostKeyPEM: pem, AuthorizedKeys: authKeys, AllowAnyKey: anyKey,
		Logger: logger, MaxSessions: fl.MaxSessions, IdleTimeout: idleTimeout,
		App: func(_ context.Context, t serve.Terminal) (*serve.Session, error) {
			return dashboardSession(v, t, fl.Pace, logger)
		},
	})
	if err != nil {
		return nil, nil, err
	}
	v, err = OpenVenue(ctx, Options{VenueChoice: fl.VenueChoice, Paper: fl.Paper, PaperState: fl.PaperState, Keys: fl.Keys}, cfg)
	if err != nil {
		_ = srv.Close()
		return nil, nil, err
	}
	if err := CheckSymbols(ctx, v.Client, "serve", append([]string{cfg.Symbol}, cfg.Watchlist...)...); err != nil {
		v.Close()
		_ = srv.Close()
		return nil, nil, err
	}
	if !fl.Trade {
		v.readOnly, v.why = true, "SSH viewer"
	}
	if err := startServerAlgos(ctx, v, fl.Trade && !v.readOnly, logger); err != nil {
		v.Close()
		_ = srv.Close()
		return nil, nil, err
	}
	logger.Info("listening", "addr", srv.Addr().String(), "venue", v.Label,
		"host-key", gossh.FingerprintSHA256(signer.PublicKey()), "host-key-file", keyPath)
	if anyKey {
		logger.Warn("no authorized keys file: accepting ANY public key, on loopback only (give --authorized-keys to restrict)")
	} else {
		logger.Info("public-key auth", "authorized-keys", authKeys)
	}
	if fl.Trade && !v.readOnly {
		logger.Warn("--trade given: sessions of trader keys can send orders and change the account on " + v.Label + "; each action is logged with the key and user")
	} else {
		logger.Info("sessions are read-only", "why", v.why)
	}
	return srv, v, nil
}

// sessionVenue is the venue as one session sees it: read-only for a
// viewer's key, and for a trader's a client that logs every order,
// cancel and account change with the key's fingerprint and the user.
func sessionVenue(v *Venue, t serve.Terminal, logger *log.Logger) *Venue {
	sv := *v
	if v.readOnly {
		return &sv
	}
	if t.Role != serve.Trader {
		sv.readOnly, sv.why = true, "SSH viewer"
		if v.Algos != nil {
			sv.session = sessionAlgos{src: v.Algos, key: t.Key, audit: v.audit}
		}
		return &sv
	}
	sv.Client = v.Client.With(venue.WithAudit(func(e venue.AuditEntry) func(error) {
		who := []any{"user", t.User, "key", t.Key, "remote", t.Remote, "action", e.Action}
		logger.Info("trade: sending", append(who, "request", e.Method+" "+e.Path, "params", e.Params)...)
		return func(err error) {
			v.audit.Write(t.Key, string(e.Action), e.Method+" "+e.Path+" "+e.Params, err) // logged below
			if err != nil {
				logger.Warn("trade: refused", append(who, "err", err)...)
				return
			}
			logger.Info("trade: accepted", who...)
		}
	}))
	if v.Algos != nil {
		sv.session = sessionAlgos{src: v.Algos, trader: true, key: t.Key, audit: v.audit}
	}
	return &sv
}

// SessionPace is a session's pace: the server's, or what the client
// asked for in TRADEDECK_PACE (a duration from 0 to MaxPace; anything
// else is ignored).
func SessionPace(server time.Duration, asked string) time.Duration {
	if d, err := time.ParseDuration(asked); err == nil && d >= 0 && d <= MaxPace {
		return d
	}
	return server
}

// dashboardSession gives an SSH session its own dashboard on the shared
// venue, themed for the client's terminal (TERM, NO_COLOR, locale sent by
// the client).
func dashboardSession(v *Venue, t serve.Terminal, pace time.Duration, logger *log.Logger) (*serve.Session, error) {
	// A session's alerts belong to its SSH key.
	fl := Options{AlertsFile: alerts.KeyPath(nil, t.Key), AlertsBy: t.Key, Pace: SessionPace(pace, t.Getenv("TRADEDECK_PACE"))}
	d, err := sessionVenue(v, t, logger).newDashboard(fl, t.Getenv)
	if err != nil {
		return nil, err
	}
	return &serve.Session{
		Model:   d.model,
		Options: []tea.ProgramOption{tea.WithFPS(d.fps)},
		Run: func(ctx context.Context, p *tea.Program) {
			for _, w := range d.warnings {
				p.Send(common.NoticeMsg{Level: common.NoticeWarn, Text: w})
			}
			d.runAlerts(ctx)
		},
		Close: d.Close,
	}, nil
}

// startServerAlgos runs the engine of the server's account when the
// server trades (or is a view of the process that runs it), and opens the
// trade audit in the desk's database: trader sessions create and cancel
// algos, viewers see them, and every action is logged with its key.
func startServerAlgos(ctx context.Context, v *Venue, trades bool, logger *log.Logger) error {
	if !v.Credentials.HasKeys() {
		return nil
	}
	a, err := v.StartAlgos(ctx, AlgoOptions{Host: "serve", MayRun: trades,
		Log: func(s string) { logger.Info(s) },
		Audit: func(by, op, detail string, err error) {
			v.audit.Record("local "+by, "algo "+op, detail, err) // a view over the socket
		}})
	if err != nil {
		return err
	}
	au, err := a.OpenAudit(func(key, action, detail string, err error) {
		if err != nil {
			logger.Warn("audit", "key", key, "action", action, "detail", detail, "err", err)
			return
		}
		logger.Info("audit", "key", key, "action", action, "detail", detail)
	})
	if err != nil {
		a.Close()
		return err
	}
	v.Algos, v.audit = a, au
	if c := v.cfg.Alerts; len(c.Command) > 0 {
		// The hook runs once per engine event here; the sessions' screens
		// show it (notice, bell, desktop) each.
		hook := alerts.NewDeliverer(alerts.Channels{Command: c.Command, Timeout: c.HookTimeout()})
		go hook.Run(ctx)
		go deliverAlgoEvents(ctx, a, hook.Deliver)
	}
	place, where := a.Place()
	logger.Info("protective-orders engine", "place", placeText(place), "where", where)
	closeVenue := v.Close
	v.Close = func() { a.Close(); au.Close(); closeVenue() }
	return nil
}

// placeText is where the engine runs, for a log.
func placeText(p Place) string {
	switch p {
	case PlaceHere, PlaceStarting:
		return "here"
	case PlaceView:
		return "another process (this one is a view)"
	}
	return "none"
}
