package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	tea "charm.land/bubbletea/v2"
	"charm.land/log/v2"
	gossh "golang.org/x/crypto/ssh"

	"tradedeck/config"
	"tradedeck/serve"
)

func init() {
	register("serve", "SSH server: every SSH session gets the dashboard (read-only unless --trade)", runServe)
}

// serveFlags are `tradedeck serve`'s options.
type serveFlags struct {
	listen, hostKey, authorizedKeys, config string
	live, trade                             bool
	seed                                    int64
	maxSessions                             int
}

func parseServeFlags(args []string) (serveFlags, error) {
	var f serveFlags
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.StringVar(&f.listen, "listen", serve.DefaultListen, "address to listen on (loopback by default; another address needs --authorized-keys)")
	fs.StringVar(&f.hostKey, "host-key", "", "host key file, generated on first start (default "+serve.DefaultHostKeyPath(nil)+")")
	fs.StringVar(&f.authorizedKeys, "authorized-keys", "", "public keys allowed in (default ~/.ssh/authorized_keys when it exists; without one, any key on loopback only)")
	fs.BoolVar(&f.live, "live", false, "show the real venue (addresses from the config, keys from "+config.EnvAPIKey+"/"+config.EnvAPISecret+"/"+config.EnvApplicationID+")")
	fs.BoolVar(&f.trade, "trade", false, "let SSH sessions trade (RISK: anyone holding an authorized key can send orders)")
	fs.StringVar(&f.config, "config", "", "config file (default "+config.Path(nil)+")")
	fs.Int64Var(&f.seed, "seed", 1, "seed of the embedded simulated venue")
	fs.IntVar(&f.maxSessions, "max-sessions", 16, "most sessions at once (all share one market and one private venue stream); 0: no cap")
	if err := fs.Parse(args); err != nil {
		return f, err
	}
	if f.maxSessions < 0 {
		return f, fmt.Errorf("serve: --max-sessions %d is negative", f.maxSessions)
	}
	if fs.NArg() > 0 {
		return f, fmt.Errorf("serve: unexpected arguments %v", fs.Args())
	}
	return f, nil
}

func runServe(args []string) error {
	fl, err := parseServeFlags(args)
	if err != nil {
		return err
	}
	cfg, warnings, err := config.LoadFlag(fl.config)
	if err != nil {
		return err
	}
	logger := log.NewWithOptions(os.Stderr, log.Options{ReportTimestamp: true, Prefix: "serve"})
	log.SetDefault(logger) // wish's own messages (program errors, panics) in the same log
	for _, w := range warnings {
		logger.Warn("config: " + w)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	srv, v, err := startServer(ctx, fl, cfg, logger)
	if err != nil {
		return err
	}
	defer v.close()
	err = srv.Run(ctx)
	logger.Info("stopped")
	return err
}

// idleTimeout frees a session whose connection went silent: a live
// dashboard writes at least its clock every second and the client
// acknowledges, so only a dead network is quiet this long.
const idleTimeout = 2 * time.Minute

// startServer opens the shared venue and the SSH server on it. Every
// session builds its own dashboard (its own screen, a session of the
// venue's one feed hub): see docs/serve.md.
func startServer(ctx context.Context, fl serveFlags, cfg config.Config, logger *log.Logger) (*serve.Server, *deskVenue, error) {
	keyPath := fl.hostKey
	if keyPath == "" {
		keyPath = serve.DefaultHostKeyPath(nil)
	}
	pem, signer, err := serve.LoadOrCreateHostKey(keyPath)
	if err != nil {
		return nil, nil, err
	}
	authKeys := fl.authorizedKeys
	if authKeys == "" {
		authKeys = serve.DefaultAuthorizedKeys(nil)
	}
	anyKey := authKeys == "" && serve.IsLoopback(fl.listen)

	// The server first: a bad address or key file fails before the venue
	// is opened. Sessions only start once Run serves, after v is set.
	var v *deskVenue
	srv, err := serve.New(serve.Config{
		Listen: fl.listen, HostKeyPEM: pem, AuthorizedKeys: authKeys, AllowAnyKey: anyKey,
		Logger: logger, MaxSessions: fl.maxSessions, IdleTimeout: idleTimeout,
		App: func(_ context.Context, t serve.Terminal) (*serve.Session, error) { return dashboardSession(v, t) },
	})
	if err != nil {
		return nil, nil, err
	}
	v, err = openVenue(ctx, dashboardFlags{live: fl.live, seed: fl.seed}, cfg)
	if err != nil {
		_ = srv.Close()
		return nil, nil, err
	}
	if !fl.trade {
		v.readOnly, v.why = true, "SSH viewer"
	}
	logger.Info("listening", "addr", srv.Addr().String(), "venue", v.label,
		"host-key", gossh.FingerprintSHA256(signer.PublicKey()), "host-key-file", keyPath)
	if anyKey {
		logger.Warn("no authorized keys file: accepting ANY public key, on loopback only (give --authorized-keys to restrict)")
	} else {
		logger.Info("public-key auth", "authorized-keys", authKeys)
	}
	if fl.trade && !v.readOnly {
		logger.Warn("--trade: SSH sessions can send orders and change the account on " + v.label)
	} else {
		logger.Info("sessions are read-only", "why", v.why)
	}
	return srv, v, nil
}

// dashboardSession gives an SSH session its own dashboard on the shared
// venue, themed for the client's terminal (TERM, NO_COLOR, locale sent by
// the client).
func dashboardSession(v *deskVenue, t serve.Terminal) (*serve.Session, error) {
	d, err := v.newDashboard(dashboardFlags{}, t.Getenv)
	if err != nil {
		return nil, err
	}
	return &serve.Session{
		Model:   d.model,
		Options: []tea.ProgramOption{tea.WithFPS(d.fps)},
		Close:   d.close,
	}, nil
}
