package feed_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"tradedeck/feed"
	"tradedeck/feed/ws"
	"tradedeck/sim"
	"tradedeck/sim/exchange"
	"tradedeck/sim/faults"
	"tradedeck/sim/market"
	"tradedeck/sim/simtest"
	simws "tradedeck/sim/ws"
	"tradedeck/venue"
)

// harness runs a feed against the simulated venue and keeps what the UI
// would: the latest snapshot of everything, and every Event.
type harness struct {
	t    *testing.T
	inst *sim.Instance
	f    *feed.Feed
	rest *venue.Client // the trader's own REST client (the "trading" side)

	mu       sync.Mutex
	st       feed.State // every Update folded in
	events   []feed.Event
	updates  int
	record   bool          // keep every Update in got (take hands them out)
	got      []feed.Update // since the last take, while record
	captures map[string]map[int64]exchange.BookCapture
	capOrder map[string][]int64
	compared map[string]int // live books found equal to the venue's at the same ts
	started  time.Time
}

func soak() bool { return os.Getenv("TRADEDECK_SOAK") == "1" }

func startHarness(t *testing.T, ctx context.Context, symbol string, streams simws.Options) *harness {
	return startHarnessWith(t, ctx, symbol, streams, nil)
}

func startHarnessWith(t *testing.T, ctx context.Context, symbol string, streams simws.Options, tweak func(*feed.Config)) *harness {
	return startHarnessSim(t, ctx, symbol, sim.Options{Seed: 11, NoRateLimits: true,
		Living: sim.LivingOptions{Rate: market.RateBusy, Streams: streams}}, tweak)
}

func startHarnessSim(t *testing.T, ctx context.Context, symbol string, opts sim.Options, tweak func(*feed.Config)) *harness {
	t.Helper()
	inst := simtest.Start(t, opts)
	h := &harness{t: t, inst: inst, st: feed.NewState(), started: time.Now(),
		captures: map[string]map[int64]exchange.BookCapture{}, capOrder: map[string][]int64{}, compared: map[string]int{}}
	h.rest = venue.NewClient(inst.Endpoints, inst.Credentials, venue.WithLimiter(nil))
	go h.recordCaptures(ctx)
	cfg := feed.Config{
		Endpoints: inst.Endpoints, Credentials: inst.Credentials,
		Symbol: symbol, Watchlist: []string{"SPOT_ETH_USDT", "PERP_BTC_USDT"},
		Backoff:        ws.Backoff{Min: 5 * time.Millisecond, Max: 100 * time.Millisecond},
		PendingTimeout: 2 * time.Second,
	}
	if tweak != nil {
		tweak(&cfg)
	}
	if cfg.REST == nil {
		cfg.REST = venue.NewClient(inst.Endpoints, cfg.Credentials, venue.WithLimiter(nil))
	}
	h.f = feed.New(cfg)
	go func() { _ = h.f.Run(ctx) }() // ends with ctx's error when the test ends
	go h.consume(ctx)
	return h
}

// recordCaptures keeps the venue's recent books, by push ts.
func (h *harness) recordCaptures(ctx context.Context) {
	for ctx.Err() == nil {
		ch, cancel := h.inst.Exchange.Subscribe()
		for ev := range ch {
			bc, ok := ev.(exchange.BooksCaptured)
			if !ok {
				continue
			}
			h.mu.Lock()
			for _, b := range bc.Books {
				m := h.captures[b.Symbol]
				if m == nil {
					m = map[int64]exchange.BookCapture{}
					h.captures[b.Symbol] = m
				}
				m[b.Ts] = b
				q := append(h.capOrder[b.Symbol], b.Ts)
				if len(q) > 400 {
					delete(m, q[0])
					q = q[1:]
				}
				h.capOrder[b.Symbol] = q
			}
			h.mu.Unlock()
			if ctx.Err() != nil {
				break
			}
		}
		cancel()
	}
}

func (h *harness) consume(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case u, ok := <-h.f.Updates():
			if !ok {
				return
			}
			h.mu.Lock()
			h.updates++
			if h.record {
				h.got = append(h.got, u)
			}
			for _, b := range u.Books {
				h.checkBookLocked(b)
			}
			h.st.Apply(&u)
			h.events = append(h.events, u.Events...)
			h.mu.Unlock()
		}
	}
}

// checkBookLocked compares a live book with the venue's book at the same
// ts. A live book that differs is the failure this whole package exists
// to prevent.
func (h *harness) checkBookLocked(b *feed.Book) {
	if b.State != feed.Live {
		return
	}
	c, ok := h.captures[b.Symbol][b.TS]
	if !ok {
		return // a snapshot's ts, or a capture not recorded yet
	}
	depth := 100
	if err := sameSide("asks", b.Asks, c.Asks, depth); err != nil {
		h.t.Errorf("%s live book at ts %d differs from the venue: %v", b.Symbol, b.TS, err)
		return
	}
	if err := sameSide("bids", b.Bids, c.Bids, depth); err != nil {
		h.t.Errorf("%s live book at ts %d differs from the venue: %v", b.Symbol, b.TS, err)
		return
	}
	h.compared[b.Symbol]++
}

func sameSide(name string, got []feed.Level, want []exchange.LevelPrint, depth int) error {
	if len(want) > depth {
		want = want[:depth]
	}
	if len(got) != len(want) {
		gs := map[int64]int64{}
		for _, l := range got {
			gs[l.Price] = l.Qty
		}
		var extra []string
		for _, l := range want {
			if q, ok := gs[l.Price]; !ok || q != l.Qty {
				extra = append(extra, fmt.Sprintf("venue %d x %d feed %d", l.Price, l.Qty, q))
			}
			delete(gs, l.Price)
		}
		for p, q := range gs {
			extra = append(extra, fmt.Sprintf("feed only %d x %d", p, q))
		}
		return fmt.Errorf("%s: %d levels, venue %d: %v", name, len(got), len(want), extra)
	}
	for i := range got {
		if got[i].Price != want[i].Price || got[i].Qty != want[i].Qty {
			return fmt.Errorf("%s[%d]: %d x %d, venue %d x %d", name, i, got[i].Price, got[i].Qty, want[i].Price, want[i].Qty)
		}
	}
	return nil
}

func (h *harness) waitFor(what string, timeout time.Duration, cond func() bool) {
	h.t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		h.mu.Lock()
		ok := cond()
		h.mu.Unlock()
		if ok {
			return
		}
		if time.Now().After(deadline) {
			h.t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func (h *harness) marketHealth() feed.Health {
	for _, x := range h.st.Health {
		if x.Stream == feed.StreamMarket {
			return x
		}
	}
	return feed.Health{}
}

// trader places and cancels orders through REST, like the trading UI.
type trader struct {
	rest *venue.Client
	rng  *rand.Rand
	cid  int64
	f    *feed.Feed
}

func (tr *trader) step(ctx context.Context, symbol string, ref decimal.Decimal, tick, lot decimal.Decimal) {
	tr.cid++
	side := venue.Side("BUY")
	if tr.rng.IntN(2) == 0 {
		side = "SELL"
	}
	// Mostly resting orders some ticks away, some crossing (fills).
	off := decimal.NewFromInt(int64(tr.rng.IntN(30))).Mul(tick).Mul(decimal.NewFromInt(10))
	if tr.rng.IntN(3) == 0 { // a third cross the spread: fills
		off = ref.Mul(decimal.RequireFromString("-0.003")).Div(tick).Floor().Mul(tick)
	}
	price := ref.Sub(off)
	if side == "SELL" {
		price = ref.Add(off)
	}
	qty := lot.Mul(decimal.NewFromInt(int64(1 + tr.rng.IntN(20))))
	req := venue.OrderRequest{Symbol: symbol, ClientOrderID: tr.cid, Type: "LIMIT", Side: side, Price: price, Quantity: qty}
	tr.f.TrackPending(feed.Order{ClientOrderID: tr.cid, Symbol: symbol, Side: string(side), Type: "LIMIT", Price: price, Quantity: qty})
	if _, err := tr.rest.SendOrder(ctx, req); err != nil {
		return
	}
	if tr.rng.IntN(3) == 0 {
		orders, _, err := tr.rest.ListOrders(ctx, venue.OrderFilter{Symbol: symbol, Status: venue.StatusIncomplete})
		if err == nil && len(orders) > 0 {
			o := orders[tr.rng.IntN(len(orders))]
			_ = tr.rest.CancelOrder(ctx, symbol, int64(o.OrderID)) // may race its fill: a refusal is the venue's to give
		}
	}
}

func mid(b *feed.Book) decimal.Decimal {
	if b == nil || len(b.Asks) == 0 || len(b.Bids) == 0 {
		return decimal.Zero
	}
	return decimal.New(b.Asks[0].Price+b.Bids[0].Price, int32(-b.Scale.PriceDec)).Div(decimal.NewFromInt(2)).Round(int32(b.Scale.PriceDec))
}

// TestFeedAgainstSimWithFaults is the acceptance test of the feed: with
// hundreds of injected faults the live book always equals the venue's at
// the same ts, every skipped delta is detected, and afterwards the account
// (open orders, balances, positions, fills) equals the venue's.
func TestFeedAgainstSimWithFaults(t *testing.T) { runFaults(t, 3*time.Second, 8*time.Second) }

func runFaults(t *testing.T, skipPhase, faultPhase time.Duration) {
	ctx := t.Context()
	const symbol = "PERP_BTC_USDT"
	h := startFaultHarness(t, ctx, symbol)
	h.skipPhase(symbol, skipPhase)
	tr := h.newTrader()
	h.faultPhase(ctx, tr, symbol, faultPhase)
	h.settle(ctx, symbol)
	h.checkEventsOnce()
	h.checkEveryFillAnnounced(ctx)
	h.mu.Lock()
	defer h.mu.Unlock()
	mh := h.marketHealth()
	t.Logf("book checks %d, updates %d, market health %+v", h.compared[symbol], h.updates, mh)
	if mh.Reconnects == 0 || mh.Gaps == 0 || mh.Resyncs == 0 {
		t.Fatalf("faults not seen in health: %+v", mh)
	}
	if h.compared[symbol] < 50 {
		t.Fatalf("only %d live books compared", h.compared[symbol])
	}
}

// startFaultHarness runs the feed against a busy sim whose update stream
// comes every 20 ms with a full snapshot every 5th push, and waits until
// the book is live and the account reconciled.
func startFaultHarness(t *testing.T, ctx context.Context, symbol string) *harness {
	h := startHarness(t, ctx, symbol, simws.Options{UpdateInterval: 20 * time.Millisecond, SnapshotEvery: 5})
	h.waitFor("a live book", 10*time.Second, func() bool { return h.st.Books[symbol] != nil && h.st.Books[symbol].State == feed.Live })
	h.waitFor("a reconciled account", 10*time.Second, func() bool { return h.st.Account != nil && !h.st.Account.Reconciled.IsZero() })
	return h
}

func (h *harness) newTrader() *trader {
	return &trader{rest: h.rest, rng: rand.New(rand.NewPCG(1, 2)), cid: 1000, f: h.f}
}

// skipPhase injects only skipped deltas; each one must be counted as a gap.
func (h *harness) skipPhase(symbol string, skipPhase time.Duration) {
	t := h.t
	inj := h.inst.Faults
	// (Every 7th push, while full snapshots come every 5th: a delta skipped
	// at the very ts of a snapshot that resyncs the book is harmless and
	// undetectable, and with these cadences never happens.)
	skipped0 := inj.SkippedBySymbol(symbol)
	inj.Set(faults.Config{SkipUpdateEvery: 7})
	// At least skipPhase and 20 skips (a loaded machine pushes less often).
	for end := time.Now().Add(skipPhase); time.Now().Before(end) || inj.SkippedBySymbol(symbol)-skipped0 < 20; {
		if time.Since(end) > 20*time.Second {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	inj.Set(faults.Config{})
	skipped := inj.SkippedBySymbol(symbol) - skipped0
	h.waitFor(fmt.Sprintf("the %d skipped deltas to be counted as gaps", skipped), 10*time.Second, func() bool {
		return h.st.Books[symbol] != nil && h.st.Books[symbol].Gaps >= uint64(skipped)-1 && h.st.Books[symbol].State == feed.Live
	})
	h.mu.Lock()
	gaps := h.st.Books[symbol].Gaps
	h.mu.Unlock()
	if skipped < 15 || gaps > uint64(skipped)+1 || gaps+1 < uint64(skipped) {
		t.Fatalf("skipped %d deltas, detected %d gaps", skipped, gaps)
	}
}

// faultPhase injects every fault at once while trading, for at least d
// and 250 faults.
func (h *harness) faultPhase(ctx context.Context, tr *trader, symbol string, faultPhase time.Duration) {
	t := h.t
	inj := h.inst.Faults
	inj.Set(faults.Config{SkipUpdateEvery: 4, DropEvery: 250 * time.Millisecond, ReorderEvery: 17,
		Delay: 2 * time.Millisecond, REST429: 0.25, REST5xx: 0.2})
	rules := map[string]venue.SymbolRule{}
	for _, r := range h.f.Symbols() {
		rules[r.Symbol] = r
	}
	c0 := inj.Counts()
	// At least faultPhase and 250 faults, whichever takes longer.
	injected := func() int64 {
		c := inj.Counts()
		return c.Drops + c.SkippedUpdates + c.Reordered + c.REST429 + c.REST5xx -
			(c0.Drops + c0.SkippedUpdates + c0.Reordered + c0.REST429 + c0.REST5xx)
	}
	end := time.Now().Add(faultPhase)
	for time.Now().Before(end) || (injected() < 250 && time.Since(end) < 30*time.Second) {
		h.mu.Lock()
		ref := mid(h.st.Books[symbol])
		h.mu.Unlock()
		if !ref.IsZero() {
			r := rules[symbol]
			tr.step(ctx, symbol, ref, r.QuoteTick, r.BaseMin)
		}
		time.Sleep(40 * time.Millisecond)
	}
	inj.Set(faults.Config{})
	c := inj.Counts()
	total := injected()
	t.Logf("faults: %+v (total %d)", c, total)
	if total < 200 {
		t.Fatalf("only %d faults injected", total)
	}

}

// settle: calm again. The book is live and equal again; the account
// converges to the venue's.
func (h *harness) settle(ctx context.Context, symbol string) {
	t := h.t
	h.mu.Lock()
	before := h.compared[symbol]
	h.mu.Unlock()
	h.waitFor("the book to be live and checked again", 20*time.Second, func() bool { return h.compared[symbol] > before+5 })
	h.f.Reconcile()
	deadline := time.Now().Add(30 * time.Second)
	var diff string
	for time.Now().Before(deadline) {
		diff = h.accountDiff(ctx)
		if diff == "" {
			break
		}
		time.Sleep(200 * time.Millisecond)
	}
	if diff != "" {
		t.Fatalf("account differs from the venue: %s", diff)
	}
}

// accountDiff compares the feed's account with the venue's, "" if equal.
func (h *harness) accountDiff(ctx context.Context) string {
	open, _, err := h.rest.ListOrders(ctx, venue.OrderFilter{Status: venue.StatusIncomplete})
	if err != nil {
		return err.Error()
	}
	hold, err := h.rest.HoldingV2(ctx, false)
	if err != nil {
		return err.Error()
	}
	pos, err := h.rest.Positions(ctx)
	if err != nil {
		return err.Error()
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	a := h.st.Account
	if a == nil {
		return "no account"
	}
	var want, got []string
	for _, o := range open {
		want = append(want, fmt.Sprintf("%d %s %s", o.OrderID, o.Status, o.Executed))
	}
	for _, o := range a.Open {
		got = append(got, fmt.Sprintf("%d %s %s", o.OrderID, o.Status, o.Executed))
	}
	if d := diffLists("open orders", want, got); d != "" {
		return d
	}
	want, got = nil, nil
	for _, b := range hold {
		if !b.Holding.IsZero() || !b.Frozen.IsZero() {
			want = append(want, b.Token+" "+b.Holding.String()+" "+b.Frozen.String())
		}
	}
	for _, b := range a.Balances {
		if !b.Holding.IsZero() || !b.Frozen.IsZero() {
			got = append(got, b.Token+" "+b.Holding.String()+" "+b.Frozen.String())
		}
	}
	if d := diffLists("balances", want, got); d != "" {
		return d
	}
	want, got = nil, nil
	for _, p := range pos.Positions {
		if !p.Holding.IsZero() {
			want = append(want, p.Symbol+" "+p.Holding.String()+" "+p.AverageOpenPrice.String())
		}
	}
	for _, p := range a.Positions {
		if !p.Holding.IsZero() {
			got = append(got, p.Symbol+" "+p.Holding.String()+" "+p.AvgOpenPrice.String())
		}
	}
	return diffLists("positions", want, got)
}

func diffLists(what string, want, got []string) string {
	sort.Strings(want)
	sort.Strings(got)
	if fmt.Sprint(want) != fmt.Sprint(got) {
		return fmt.Sprintf("%s: venue %v, feed %v", what, want, got)
	}
	return ""
}

// checkEventsOnce: no fill, ack, cancel or reject announced twice.
func (h *harness) checkEventsOnce() {
	h.mu.Lock()
	defer h.mu.Unlock()
	seen := map[string]bool{}
	fills := 0
	for _, e := range h.events {
		var k string
		switch {
		case e.Kind == feed.EventFill && e.Fill != nil:
			k = fmt.Sprint("fill ", e.Fill.TradeID)
			fills++
		case e.Order != nil && e.Kind != feed.EventError:
			k = fmt.Sprint(e.Kind, " ", e.Order.OrderID, " ", e.Order.ClientOrderID)
		default:
			continue
		}
		if seen[k] {
			h.t.Errorf("event announced twice: %s", k)
		}
		seen[k] = true
	}
	if fills == 0 {
		h.t.Errorf("no fill events in %d events", len(h.events))
	}
	for i, f := range h.st.Account.Fills {
		for _, g := range h.st.Account.Fills[i+1:] {
			if f.TradeID == g.TradeID {
				h.t.Errorf("fill %d counted twice", f.TradeID)
			}
		}
	}
}

// checkEveryFillAnnounced: every trade of the account (all made after the
// feed started) reached the UI as exactly one fill Event, whether the
// stream carried it or a reconciliation found it.
func (h *harness) checkEveryFillAnnounced(ctx context.Context) {
	venueIDs := map[int64]bool{}
	for page := 1; ; page++ {
		rows, meta, err := h.rest.ListTrades(ctx, venue.TradeFilter{Start: h.started.Add(-time.Minute), Page: page})
		if err != nil {
			h.t.Fatal(err)
		}
		for _, r := range rows {
			venueIDs[int64(r.ID)] = true
		}
		if len(rows) == 0 || len(rows) < int(meta.RecordsPerPage) {
			break
		}
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	announced := map[int64]bool{}
	for _, e := range h.events {
		if e.Kind == feed.EventFill && e.Fill != nil {
			announced[e.Fill.TradeID] = true
		}
	}
	for id := range venueIDs {
		if !announced[id] {
			h.t.Errorf("venue trade %d never announced", id)
		}
	}
	for id := range announced {
		if !venueIDs[id] {
			h.t.Errorf("fill %d announced but unknown to the venue", id)
		}
	}
	h.t.Logf("%d fills, each announced once", len(venueIDs))
}
