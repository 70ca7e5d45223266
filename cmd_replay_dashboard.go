package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	tea "charm.land/bubbletea/v2"

	"tradedeck/config"
	"tradedeck/panes/common"
	"tradedeck/replay"
	"tradedeck/stats"
	"tradedeck/venue"
)

// replayCredentials stand in for the recorded account's keys, so the feed
// opens the private stream of a recording that has one. The replay server
// accepts them; nothing is ever signed for a real venue.
var replayCredentials = venue.Credentials{APIKey: "replay", APISecret: "replay", ApplicationID: "replay"}

// openReplayVenue serves the recording on loopback and describes it as
// the venue of a read-only dashboard whose feed runs on the replay clock.
func openReplayVenue(ctx context.Context, rf replayFlags, df dashboardFlags, cfg config.Config) (*deskVenue, *replay.Server, error) {
	srv, err := replay.Open(replay.Options{Path: rf.path, Speed: rf.speed, From: rf.from})
	if err != nil {
		return nil, nil, err
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
	go func() { defer close(done); srv.Run(ctx) }()
	v := &deskVenue{cfg: cfg, endpoints: srv.Endpoints, label: "REPLAY", readOnly: true,
		why: "a replay cannot trade", clock: srv.Now, scratchAlerts: true,
		replay: srv, exportDir: "."}
	if sum.Header.Private {
		v.creds = replayCredentials
	}
	v.close = func() { cancel(); <-done }
	v.client = venue.NewClient(v.endpoints, v.creds)
	v.cache = stats.NewCache(stats.NewClient(v.endpoints.StatsURL), 5*time.Minute)
	v.startHub(ctx, frameRate(df, cfg))
	return v, srv, nil
}

func runReplayDashboard(ctx context.Context, rf replayFlags, df dashboardFlags) error {
	cfg, warnings, err := config.LoadFlag(df.config)
	if err != nil {
		return err
	}
	v, srv, err := openReplayVenue(ctx, rf, df, cfg)
	if err != nil {
		return err
	}
	defer v.close()
	d, err := v.newDashboard(df, os.Getenv)
	if err != nil {
		return err
	}
	defer d.close()
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
	_, err = p.Run()
	if errors.Is(err, tea.ErrProgramKilled) && ctx.Err() != nil {
		return nil
	}
	return err
}

// startWatchReplay serves a recording for `tradedeck watch --replay`.
func startWatchReplay(ctx context.Context, path, speed string) (*replay.Server, error) {
	s, err := parseSpeed(speed)
	if err != nil {
		return nil, err
	}
	srv, err := replay.Open(replay.Options{Path: path, Speed: s})
	if err != nil {
		return nil, err
	}
	go srv.Run(ctx)
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
