package app

import (
	"context"
	"fmt"
	"os"
	"sync"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/shopspring/decimal"

	"tradedeck/algo"
	"tradedeck/algo/report"
	"tradedeck/panes/common"
	"tradedeck/replay"
	"tradedeck/replay/rehearse"
	"tradedeck/sim"
	"tradedeck/sim/exchange"
	"tradedeck/trade"
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
	pr := &paperReport{path: path, syms: v.cfg.Watchlist, inst: inst, algos: a, srv: srv}
	rctx, stop := context.WithCancel(ctx)
	done := make(chan struct{})
	events, stopEvents := a.Subscribe(256) // before anything can be armed
	fills, stopFills := inst.Exchange.Subscribe()
	go func() {
		defer close(done)
		defer stopEvents()
		defer stopFills()
		pr.run(rctx, events, fills)
	}()
	return pr, func() { stop(); <-done; a.Close() }, nil
}

// replayClock is the replay's clock for the REST client: requests are
// signed in recorded time, which the paper venue keeps too (waits are
// the system's).
type replayClock struct {
	venue.SystemClock
	srv *replay.Server
}

func (c replayClock) Now() time.Time { return c.srv.Now() }

// paperReport collects what the replay's algos did on the paper account:
// when each was armed and what it had to close, and every fill the paper
// venue made of the engine's orders, for the dry-run report.
type paperReport struct {
	path  string
	syms  []string
	inst  *sim.Instance
	algos *Algos
	srv   *replay.Server

	mu     sync.Mutex
	starts []report.Start
	fills  []report.Fill
	other  []report.Fill
}

// run collects the engine's events and the paper venue's until ctx ends.
func (p *paperReport) run(ctx context.Context, events <-chan algo.Event, fills <-chan exchange.Event) {
	seen := map[algo.ID]bool{}
	for {
		select {
		case <-ctx.Done():
			return
		case ev, ok := <-events:
			if !ok {
				return
			}
			if ev.Kind == algo.EventArmed && ev.Algo != 0 && !seen[ev.Algo] {
				seen[ev.Algo] = true
				p.armed(ev)
			}
		case ev, ok := <-fills:
			if !ok {
				return
			}
			if oe, isOrder := ev.(exchange.OrderEvent); isOrder && oe.TradeID != 0 && oe.ApplicationID == p.inst.Credentials.ApplicationID {
				p.fill(oe)
			}
		}
	}
}

// armed notes an algo's start: the replay's time and the size its exits
// are to close (the position then, or its share of it).
func (p *paperReport) armed(ev algo.Event) {
	st := report.Start{Algo: ev.Algo, At: ev.Time}
	for _, a := range p.algos.Snapshot() {
		if a.ID == ev.Algo {
			st.Exit = p.exitSize(a)
		}
	}
	p.mu.Lock()
	p.starts = append(p.starts, st)
	p.mu.Unlock()
}

func (p *paperReport) exitSize(a algo.Algo) decimal.Decimal {
	if a.Spec.Kind == algo.KindBracket {
		return a.Spec.Entry.Quantity
	}
	acc, ok := p.inst.Exchange.AccountByApplicationID(p.inst.Credentials.ApplicationID)
	if !ok {
		return decimal.Zero
	}
	pos, err := p.inst.Exchange.Position(acc, a.Spec.Symbol)
	if err != nil {
		return decimal.Zero
	}
	size := pos.Holding.Abs()
	switch {
	case a.Spec.Size.Qty.IsPositive():
		return decimal.Min(size, a.Spec.Size.Qty)
	case a.Spec.Size.Percent.IsPositive():
		return size.Mul(a.Spec.Size.Percent).Div(decimal.NewFromInt(100))
	}
	return size
}

func (p *paperReport) fill(oe exchange.OrderEvent) {
	f := report.Fill{Time: time.UnixMilli(oe.Timestamp), Symbol: oe.Symbol, Side: trade.Side(oe.Side), Qty: oe.ExecutedQuantity,
		Price: oe.ExecutedPrice, Fee: oe.Fee, FeeAsset: oe.FeeAsset, Maker: oe.Maker}
	prefix, ok := p.algos.clientIDPrefix()
	p.mu.Lock()
	defer p.mu.Unlock()
	if id, leg, _, isAlgo := algo.ParseClientOrderID(prefix, oe.ClientOrderID); ok && isAlgo {
		f.Algo, f.Leg = id, leg
		p.fills = append(p.fills, f)
		return
	}
	p.other = append(p.other, f)
}

// build is the report as of now: the market from the recording up to the
// replay's position.
func (p *paperReport) build() (report.Report, error) {
	mkt, err := rehearse.ReadRecorded(p.path, p.syms)
	if err != nil {
		return report.Report{}, err
	}
	st := p.srv.Status()
	p.mu.Lock()
	defer p.mu.Unlock()
	starts := make([]report.Start, len(p.starts))
	for i, s := range p.starts {
		s.Arrival = mkt.Mid(symbolOf(p.algos.Snapshot(), s.Algo), s.At)
		starts[i] = s
	}
	return report.Build(report.Input{Algos: p.algos.Snapshot(), Starts: starts, Fills: append([]report.Fill(nil), p.fills...),
		Opening: append([]report.Fill(nil), p.other...), Tape: mkt.Prints, From: st.First, To: st.Now}), nil
}

func symbolOf(algos []algo.Algo, id algo.ID) string {
	for _, a := range algos {
		if a.ID == id {
			return a.Spec.Symbol
		}
	}
	return ""
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
