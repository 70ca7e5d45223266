package app

import (
	"context"
	"fmt"
	"os"
	"time"

	tea "charm.land/bubbletea/v2"

	"tradedeck/algo/report"
	"tradedeck/panes/common"
	"tradedeck/replay"
	"tradedeck/replay/rehearse"
	"tradedeck/sim"
	"tradedeck/venue"
)

// The replay dashboard's paper account: the simulator on loopback,
// following the replay's own market (its public REST and market stream)
// as paper trading follows a live one, on the replay's clock. The replay
// server sends the account's requests and private stream there, so the
// order form, the Algos tab and `:stop`/`:bracket`... work as on any
// venue, and the desk's engine runs on recorded data without a real venue
// or the real alert channels anywhere near it.

// startReplayPaper starts the paper venue following srv and attaches it.
func startReplayPaper(ctx context.Context, srv *replay.Server, syms []string) (*sim.Instance, error) {
	inst, err := sim.Start(ctx, sim.Options{Clock: srv.Now, NoRateLimits: true, NoHistory: true,
		Mirror: &sim.MirrorOptions{Upstream: srv.Endpoints, Symbols: syms}})
	if err != nil {
		return nil, fmt.Errorf("replay: paper account: %w", err)
	}
	if err := srv.AttachPaper(inst.Endpoints.BaseURL); err != nil {
		_ = inst.Close() // the error above is the one to tell
		return nil, err
	}
	return inst, nil
}

// startReplayAccount runs the paper account's engine (here: a replay's
// account is this process's alone) and collects its report; stop ends
// both.
func startReplayAccount(ctx context.Context, v *Venue, srv *replay.Server, inst *sim.Instance, path string) (*paperReport, func(), error) {
	a, err := v.StartAlgos(ctx, AlgoOptions{Host: "replay", MayRun: true})
	if err != nil {
		return nil, nil, fmt.Errorf("replay: the paper account's engine: %w", err)
	}
	v.Algos = a
	rctx, stop := context.WithCancel(ctx)
	acct := rehearse.Collect(rctx, inst.Exchange, inst.Credentials.ApplicationID, a, a.clientIDPrefix, path, v.cfg.Watchlist)
	return &paperReport{acct: acct, srv: srv}, func() { stop(); <-acct.Done(); a.Close() }, nil
}

// replayClock is the replay's clock for the REST client: requests are
// signed in recorded time, which the paper venue keeps too (waits are
// the system's).
type replayClock struct {
	venue.SystemClock
	srv *replay.Server
}

func (c replayClock) Now() time.Time { return c.srv.Now() }

// paperReport is the replay's paper account's report collector.
type paperReport struct {
	acct *rehearse.Account
	srv  *replay.Server
}

// build is the report as of the replay's position.
func (p *paperReport) build() (report.Report, error) {
	st := p.srv.Status()
	return p.acct.Report(st.First, st.Now)
}

// clientIDPrefix is the prefix of the engine's child order ids (false:
// the engine does not run in this process).
func (a *Algos) clientIDPrefix() (int64, bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.store == nil {
		return 0, false
	}
	return a.store.ClientIDPrefix(), true
}

// announceReportAtEnd writes the dry-run report when the recording ends
// (next to :export's files) and says so on the screen.
func announceReportAtEnd(ctx context.Context, srv *replay.Server, pr *paperReport, p *tea.Program) {
	select {
	case <-ctx.Done():
		return
	case <-srv.Done():
	}
	rep, err := pr.build()
	if err != nil {
		p.Send(common.NoticeMsg{Level: common.NoticeError, Text: "dry-run report: " + err.Error()})
		return
	}
	if len(rep.Algos) == 0 {
		p.Send(common.NoticeMsg{Level: common.NoticeInfo, Text: "replay ended: no algo ran on the paper account"})
		return
	}
	name := "rehearsal-" + srv.Status().First.UTC().Format("20060102-150405") + ".txt"
	f, err := os.OpenFile(name, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o644)
	if err == nil {
		err = rep.WriteText(f)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		p.Send(common.NoticeMsg{Level: common.NoticeError, Text: "dry-run report not written: " + err.Error()})
		return
	}
	p.Send(common.NoticeMsg{Level: common.NoticeSuccess, Text: fmt.Sprintf("replay ended: dry-run report of %d algos in %s (printed again when you quit)", len(rep.Algos), name)})
}

// printPaperReport prints the report after the screen closed, when an
// algo ran.
func printPaperReport(rf ReplayOptions, pr *paperReport) error {
	rep, err := pr.build()
	if err != nil || len(rep.Algos) == 0 {
		return err
	}
	out := rf.Out
	if out == nil {
		out = os.Stdout
	}
	if rf.JSON {
		return rep.WriteJSON(out)
	}
	return rep.WriteText(out)
}
