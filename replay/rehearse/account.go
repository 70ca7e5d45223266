package rehearse

import (
	"context"
	"sync"
	"time"

	"github.com/shopspring/decimal"

	"tradedeck/algo"
	"tradedeck/algo/report"
	"tradedeck/sim/exchange"
	"tradedeck/trade"
)

// Account collects the dry-run report of algos run live on a paper
// venue following a recording (the replay dashboard's --paper account):
// when each algo was armed and what it had to close, and every fill the
// paper venue made of the engine's orders. The market (prints, arrival
// prices) is read from the recording when the report is built.
type Account struct {
	ex     *exchange.Exchange
	appID  string
	eng    Engine
	prefix func() (int64, bool)
	path   string
	syms   []string
	done   chan struct{}

	mu     sync.Mutex
	starts []report.Start
	fills  []report.Fill
	other  []report.Fill
}

// Engine is what Account reads of the account's engine (an *algo.Engine,
// or a host's handle on it).
type Engine interface {
	Subscribe(n int) (<-chan algo.Event, func())
	Snapshot() []algo.Algo
}

// Collect starts collecting (subscribed before it returns, so nothing
// armed afterwards is missed) until ctx ends. prefix tells the engine's
// client order id prefix (false: no engine runs here).
func Collect(ctx context.Context, ex *exchange.Exchange, appID string, eng Engine, prefix func() (int64, bool), path string, syms []string) *Account {
	a := &Account{ex: ex, appID: appID, eng: eng, prefix: prefix, path: path, syms: syms, done: make(chan struct{})}
	events, stopEvents := eng.Subscribe(256)
	fills, stopFills := ex.Subscribe()
	go func() {
		defer close(a.done)
		defer stopEvents()
		defer stopFills()
		a.run(ctx, events, fills)
	}()
	return a
}

// Done is closed when collecting ended.
func (a *Account) Done() <-chan struct{} { return a.done }

func (a *Account) run(ctx context.Context, events <-chan algo.Event, fills <-chan exchange.Event) {
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
				a.armed(ev)
			}
		case ev, ok := <-fills:
			if !ok {
				return
			}
			if oe, isOrder := ev.(exchange.OrderEvent); isOrder && oe.TradeID != 0 && oe.ApplicationID == a.appID {
				a.fill(oe)
			}
		}
	}
}

// armed notes an algo's start: the engine's time (the replay's) and the
// size its exits are to close (the position then, or its share of it).
func (a *Account) armed(ev algo.Event) {
	st := report.Start{Algo: ev.Algo, At: ev.Time}
	for _, x := range a.eng.Snapshot() {
		if x.ID == ev.Algo {
			st.Exit = a.exitSize(x)
		}
	}
	a.mu.Lock()
	a.starts = append(a.starts, st)
	a.mu.Unlock()
}

func (a *Account) exitSize(x algo.Algo) decimal.Decimal {
	if x.Spec.Kind == algo.KindBracket {
		return x.Spec.Entry.Quantity
	}
	acc, ok := a.ex.AccountByApplicationID(a.appID)
	if !ok {
		return decimal.Zero
	}
	pos, err := a.ex.Position(acc, x.Spec.Symbol)
	if err != nil {
		return decimal.Zero
	}
	size := pos.Holding.Abs()
	switch {
	case x.Spec.Size.Qty.IsPositive():
		return decimal.Min(size, x.Spec.Size.Qty)
	case x.Spec.Size.Percent.IsPositive():
		return size.Mul(x.Spec.Size.Percent).Div(decimal.NewFromInt(100))
	}
	return size
}

func (a *Account) fill(oe exchange.OrderEvent) {
	f := report.Fill{Time: time.UnixMilli(oe.Timestamp), Symbol: oe.Symbol, Side: trade.Side(oe.Side), Qty: oe.ExecutedQuantity,
		Price: oe.ExecutedPrice, Fee: oe.Fee, FeeAsset: oe.FeeAsset, Maker: oe.Maker}
	prefix, ok := a.prefix()
	a.mu.Lock()
	defer a.mu.Unlock()
	if id, leg, _, isAlgo := algo.ParseClientOrderID(prefix, oe.ClientOrderID); ok && isAlgo {
		f.Algo, f.Leg = id, leg
		a.fills = append(a.fills, f)
		return
	}
	a.other = append(a.other, f)
}

// Report is the dry-run report of the market data from..to (the
// recording read up to the replay's position).
func (a *Account) Report(from, to time.Time) (report.Report, error) {
	mkt, err := ReadRecorded(a.path, a.syms)
	if err != nil {
		return report.Report{}, err
	}
	algos := a.eng.Snapshot()
	a.mu.Lock()
	defer a.mu.Unlock()
	starts := make([]report.Start, len(a.starts))
	for i, s := range a.starts {
		s.Arrival = mkt.Mid(symbolOf(algos, s.Algo), s.At)
		starts[i] = s
	}
	return report.Build(report.Input{Algos: algos, Starts: starts, Fills: append([]report.Fill(nil), a.fills...),
		Opening: append([]report.Fill(nil), a.other...), Tape: mkt.Prints, From: from, To: to}), nil
}

func symbolOf(algos []algo.Algo, id algo.ID) string {
	for _, a := range algos {
		if a.ID == id {
			return a.Spec.Symbol
		}
	}
	return ""
}
