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

	"tradedeck/config"
	"tradedeck/feed"
	"tradedeck/feed/hub"
	"tradedeck/internal/app/proc"
	"tradedeck/panes/common"
	"tradedeck/replay"
	"tradedeck/sim"
	"tradedeck/stats"
	"tradedeck/venue"
)

// replayCredentials stand in for the recorded account's keys, so the feed
// opens the private stream of a recording that has one. The replay server
// accepts them; nothing is ever signed for a real venue.
var replayCredentials = venue.Credentials{APIKey: "replay", APISecret: "replay", ApplicationID: "replay"}

// openReplayVenue serves the recording on loopback and describes it as
// the venue of a dashboard whose feed runs on the replay clock: read-only
// with the recorded account, or (rf.Paper) trading on a paper account
// (startReplayPaper): the market is the recording's, the orders,
// balances and positions the paper venue's.
func openReplayVenue(ctx context.Context, rf ReplayOptions, df Options, cfg config.Config) (*Venue, *replay.Server, *sim.Instance, error) {
	clients := 1
	if rf.Paper {
		clients = 2 // the dashboard's feed and the paper venue's follower start the clock
	}
	srv, err := replay.Open(replay.Options{Path: rf.Path, Speed: rf.Speed, From: rf.From, Clients: clients})
	if err != nil {
		return nil, nil, nil, err
	}
	sum := srv.Summary()
	syms := sum.Header.Symbols
	if len(syms) == 0 {
		syms = sum.Symbols()
	}
	cfg.Watchlist = syms
	if len(syms) > 0 {
		cfg.Symbol = syms[0]
	}
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { defer close(done); _ = srv.Run(ctx) }() // a failed replay drops its streams: the feed shows it
	v := &Venue{cfg: cfg, Endpoints: srv.Endpoints, Label: "REPLAY", readOnly: true, defaultKeys: df.Keys,
		why: "a replay cannot trade (--paper trades on a paper account)", clock: srv.Now, scratchAlerts: true,
		replay: srv, exportDir: "."}
	v.Close = func() { cancel(); <-done }
	var inst *sim.Instance
	opts := []venue.Option{venue.WithClock(replayClock{srv: srv})}
	switch {
	case rf.Paper:
		if inst, err = startReplayPaper(ctx, srv, syms); err != nil {
			v.Close()
			return nil, nil, nil, err
		}
		v.Credentials, v.readOnly, v.why, v.algoObs = inst.Credentials, false, "", &engineObserver{}
		v.Close = func() { cancel(); <-done; _ = inst.Close() }
		// No client-side rate limit: its windows would run on the replay's
		// clock, which stands still while paused.
		opts = append(opts, venue.WithLimiter(nil))
	case sum.Header.Private:
		v.Credentials = replayCredentials
	}
	v.Client = venue.NewClient(v.Endpoints, v.Credentials, opts...)
	v.cache = stats.NewCache(stats.NewClient(v.Endpoints.StatsURL), 5*time.Minute)
	v.startHub(ctx, frameRate(df, cfg))
	return v, srv, inst, nil
}

// ReplayOptions are `tradedeck replay`'s: the recording and its playback.
type ReplayOptions struct {
	Path  string
	Speed float64   // a factor, or replay.Max
	From  time.Time // zero: the recording's start
	Check bool      // read the whole file through the feed and report, no screen
	// Rehearse are algos (the engine's grammar) run on the recording on
	// paper, as fast as the data allows, no screen: the dry-run report is
	// printed (JSON with JSON). Positions (SYMBOL=QTY) are opened first;
	// From is when the algos are added.
	Rehearse  []string
	Positions []string
	JSON      bool
	Out       io.Writer // where reports go (nil: stdout)
	// Paper gives the dashboard a paper account on the recorded market
	// (orders, the engine's algos, the dry-run report at the end) instead
	// of the recorded account's read-only view.
	Paper bool
}

// RunReplay replays a recording in a read-only dashboard whose feed runs
// on the replay's clock (or, with Check, reports on it) until it quits or
// ctx ends (ctrl-c and SIGTERM end it too).
func RunReplay(ctx context.Context, rf ReplayOptions, df Options) error {
	ctx, stop := proc.Interruptible(ctx)
	defer stop()
	if rf.Out == nil {
		rf.Out = os.Stdout
	}
	if rf.Check {
		rep, err := replay.Check(ctx, rf.Path)
		if err != nil {
			return err
		}
		rep.Print(rf.Out)
		return nil
	}
	if len(rf.Rehearse) > 0 {
		return runRehearsal(ctx, rf)
	}
	return runReplayDashboard(ctx, rf, df)
}

func runReplayDashboard(ctx context.Context, rf ReplayOptions, df Options) error {
	cfg, warnings, err := config.LoadFlag(df.Config)
	if err != nil {
		return err
	}
	v, srv, inst, err := openReplayVenue(ctx, rf, df, cfg)
	if err != nil {
		return err
	}
	defer v.Close()
	var pr *paperReport
	if inst != nil {
		var stopAccount func()
		if pr, stopAccount, err = startReplayAccount(ctx, v, srv, inst, rf.Path); err != nil {
			return err
		}
		defer stopAccount()
	}
	d, err := v.newDashboard(df, os.Getenv)
	if err != nil {
		return err
	}
	defer d.Close()
	d.showAlgo = d.alerts.deliverAll // notices only: a replay's alerts are scratch
	m := newReplayModel(d.model, srv)
	p := tea.NewProgram(m, tea.WithFPS(d.fps), tea.WithContext(ctx))
	go func() {
		for _, w := range append(warnings, d.warnings...) {
			p.Send(common.NoticeMsg{Level: common.NoticeWarn, Text: w})
		}
		if tr := srv.Summary().Truncated; tr != nil {
			p.Send(common.NoticeMsg{Level: common.NoticeWarn, Text: fmt.Sprintf("recording cut short at offset %d (a killed recorder?): replaying what came before", tr.Offset)})
		}
	}()
	if pr != nil {
		go announceReportAtEnd(ctx, srv, pr, p)
	}
	_, err = p.Run()
	if errors.Is(err, tea.ErrProgramKilled) && ctx.Err() != nil {
		err = nil
	}
	if err == nil && pr != nil {
		err = printPaperReport(rf, pr)
	}
	return err
}

// ReplayFeed is a recording served on loopback, read by a feed hub of
// its own on the replay's clock: `tradedeck watch --replay`. Updates end
// a moment after the recording's last frame.
type ReplayFeed struct {
	Hub *hub.Hub
	Ctx context.Context // ends a moment after the last frame (or with the caller's)
	Err <-chan error    // the hub's end
}

// OpenReplayFeed serves the recording at path at speed (a factor or max)
// until ctx ends.
func OpenReplayFeed(ctx context.Context, path, speed string, interval string, log io.Writer) (*ReplayFeed, error) {
	srv, err := startWatchReplay(ctx, path, speed)
	if err != nil {
		return nil, err
	}
	var creds venue.Credentials
	if srv.Summary().Header.Private {
		creds = replayCredentials
	}
	ctx = replayEnds(ctx, srv)
	h := hub.New(feed.New(feed.Config{Endpoints: srv.Endpoints, Credentials: creds, Interval: interval, Log: log, Clock: srv.Now}))
	errc := make(chan error, 1)
	go func() { errc <- h.Run(ctx) }()
	return &ReplayFeed{Hub: h, Ctx: ctx, Err: errc}, nil
}

// ParseSpeed reads a playback speed: a factor (0.5, 1, 10, 4x) or max.
func ParseSpeed(s string) (float64, error) {
	if strings.EqualFold(s, "max") {
		return replay.Max, nil
	}
	f, err := strconv.ParseFloat(strings.TrimSuffix(strings.ToLower(s), "x"), 64)
	if err != nil || f <= 0 || f > 10000 {
		return 0, fmt.Errorf("replay: --speed %q: want a factor between 0 and 10000, or max", s)
	}
	return f, nil
}

// startWatchReplay serves a recording for `tradedeck watch --replay`.
func startWatchReplay(ctx context.Context, path, speed string) (*replay.Server, error) {
	s, err := ParseSpeed(speed)
	if err != nil {
		return nil, err
	}
	srv, err := replay.Open(replay.Options{Path: path, Speed: s})
	if err != nil {
		return nil, err
	}
	go func() { _ = srv.Run(ctx) }() // a failed replay drops its streams: the feed shows it
	return srv, nil
}

// replayEnds is ctx, ended a moment after the recording's last frame (so
// the last lines show the final state).
func replayEnds(ctx context.Context, srv *replay.Server) context.Context {
	ctx, cancel := context.WithCancel(ctx)
	go func() {
		select {
		case <-srv.Done():
			time.Sleep(1500 * time.Millisecond) // one more print interval of the final state
		case <-ctx.Done():
		}
		cancel()
	}()
	return ctx
}
