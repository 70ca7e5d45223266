package feed_test

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"tradedeck/feed"
	"tradedeck/sim"
	"tradedeck/sim/faults"
	simws "tradedeck/sim/ws"
	"tradedeck/trade"
	"tradedeck/venue"
)

// TestMarketDataAndFocus checks every market data kind against the sim,
// then moves the focus and the candle interval.
func TestMarketDataAndFocus(t *testing.T) {
	ctx := t.Context()
	h := startHarness(t, ctx, "PERP_BTC_USDT", simws.Options{UpdateInterval: 50 * time.Millisecond, StatsInterval: 100 * time.Millisecond})
	h.waitFor("everything", 15*time.Second, func() bool {
		c := h.st.Candles[feed.CandleKey("PERP_BTC_USDT", "1m")]
		fu := h.st.Futures["PERP_BTC_USDT"]
		b := h.st.Books["PERP_BTC_USDT"]
		return b != nil && b.State == feed.Live && len(b.Asks) > 0 && len(b.Bids) > 0 &&
			h.st.Trades["PERP_BTC_USDT"] != nil && len(h.st.Trades["PERP_BTC_USDT"].Rows) > 0 &&
			h.st.BBOs["SPOT_ETH_USDT"].Ask > 0 && h.st.BBOs["PERP_BTC_USDT"].Bid > 0 &&
			!h.st.Tickers["SPOT_ETH_USDT"].Close.IsZero() && !h.st.Tickers["SPOT_XRP_USDT"].Close.IsZero() &&
			c != nil && c.Loaded && len(c.Rows) > 0 &&
			!fu.MarkPrice.IsZero() && !fu.IndexPrice.IsZero() && !fu.NextFunding.IsZero()
	})
	h.mu.Lock()
	b := h.st.Books["PERP_BTC_USDT"]
	bbo := h.st.BBOs["PERP_BTC_USDT"]
	if b.Scale.PriceDec != 1 || b.Scale.QtyDec != 4 || bbo.Scale != b.Scale {
		t.Fatalf("scale %+v bbo %+v", b.Scale, bbo.Scale)
	}
	if b.Bids[0].Price >= b.Asks[0].Price {
		t.Fatalf("crossed book shown: %+v %+v", b.Bids[0], b.Asks[0])
	}
	tr := h.st.Trades["PERP_BTC_USDT"]
	for i := 1; i < len(tr.Rows); i++ {
		if tr.Rows[i].TS > tr.Rows[i-1].TS {
			t.Fatal("trades not newest first")
		}
	}
	c := h.st.Candles[feed.CandleKey("PERP_BTC_USDT", "1m")]
	for i := 1; i < len(c.Rows); i++ {
		if c.Rows[i].Start <= c.Rows[i-1].Start {
			t.Fatal("candles not strictly ascending")
		}
	}
	h.mu.Unlock()

	// Move the focus: the new book syncs, the old one stops.
	h.f.Focus("SPOT_SOL_USDT")
	h.f.SetInterval("5m")
	h.waitFor("the new focus", 15*time.Second, func() bool {
		b := h.st.Books["SPOT_SOL_USDT"]
		c := h.st.Candles[feed.CandleKey("SPOT_SOL_USDT", "5m")]
		return b != nil && b.State == feed.Live && c != nil && c.Loaded
	})
	// Not a pause: wait until the new book has moved on by ten push
	// intervals of venue time, on the same stream the old book would
	// arrive on, then the old book must not have changed meanwhile.
	h.mu.Lock()
	old := h.st.Books["PERP_BTC_USDT"].Version
	solTS := h.st.Books["SPOT_SOL_USDT"].TS
	h.mu.Unlock()
	h.waitFor("ten push intervals on the new focus", 15*time.Second, func() bool {
		return h.st.Books["SPOT_SOL_USDT"].TS >= solTS+10*50
	})
	h.mu.Lock()
	if h.st.Books["PERP_BTC_USDT"].Version != old {
		t.Error("the old focus's book still updates")
	}
	h.mu.Unlock()

	h.f.SetWatchlist([]string{"SPOT_DOGE_USDT"})
	h.waitFor("the new watchlist", 10*time.Second, func() bool { return h.st.BBOs["SPOT_DOGE_USDT"].Ask > 0 })
	h.mu.Lock()
	eth := h.st.BBOs["SPOT_ETH_USDT"]
	dogeTS := h.st.BBOs["SPOT_DOGE_USDT"].TS
	h.mu.Unlock()
	h.waitFor("ten push intervals of the new watchlist", 15*time.Second, func() bool {
		return h.st.BBOs["SPOT_DOGE_USDT"].TS >= dogeTS+10*50
	})
	h.mu.Lock()
	if h.st.BBOs["SPOT_ETH_USDT"] != eth {
		t.Error("a symbol left the watchlist but its bbo still updates")
	}
	h.mu.Unlock()
	if n := len(h.f.Symbols()); n < 10 {
		t.Fatalf("%d symbol rules", n)
	}
}

func TestPublicOnlyWithoutKeys(t *testing.T) {
	ctx := t.Context()
	h := startHarnessWith(t, ctx, "SPOT_BTC_USDT", simws.Options{}, func(c *feed.Config) { c.Credentials = venue.Credentials{ApplicationID: c.Credentials.ApplicationID} })
	h.waitFor("a live book", 10*time.Second, func() bool {
		return h.st.Books["SPOT_BTC_USDT"] != nil && h.st.Books["SPOT_BTC_USDT"].State == feed.Live
	})
	h.waitFor("health", 5*time.Second, func() bool { return len(h.st.Health) > 0 })
	h.mu.Lock()
	defer h.mu.Unlock()
	if len(h.st.Health) != 1 || h.st.Health[0].Stream != feed.StreamMarket {
		t.Fatalf("without keys only the market stream runs: %+v", h.st.Health)
	}
	if h.st.Account != nil {
		t.Fatal("no account without keys")
	}
}

func TestBadSecretIsAuthFailedWithoutRetryStorm(t *testing.T) {
	ctx := t.Context()
	const secret = "WRONGSECRETWRONGSECRET"
	var retry time.Duration
	h := startHarnessWith(t, ctx, "SPOT_BTC_USDT", simws.Options{}, func(c *feed.Config) {
		c.Credentials.APISecret = secret
		c.AuthBackoff = time.Hour
	})
	h.waitFor("auth failed", 10*time.Second, func() bool {
		for _, x := range h.st.Health {
			if x.Stream == feed.StreamPrivate && x.State == feed.AuthFailed {
				retry = x.RetryIn
				return true
			}
		}
		return false
	})
	if retry != time.Hour {
		t.Fatalf("retry in %v", retry)
	}
	// A retry storm would show within the feed's next updates: wait for
	// twenty more of them (the market stream keeps the feed busy).
	h.mu.Lock()
	seen := h.updates
	h.mu.Unlock()
	h.waitFor("twenty more updates", 15*time.Second, func() bool { return h.updates >= seen+20 })
	h.mu.Lock()
	defer h.mu.Unlock()
	n := 0
	for _, e := range h.events {
		if e.Kind == feed.EventError && strings.Contains(e.Text, "authentication") {
			n++
		}
		if strings.Contains(e.Text, secret) {
			t.Fatal("secret in an event")
		}
	}
	for _, x := range h.st.Health {
		if strings.Contains(x.Err, secret) {
			t.Fatal("secret in health")
		}
	}
	if n != 1 {
		t.Fatalf("%d auth failure events", n)
	}
}

func TestPendingOrders(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	h := startHarnessWith(t, ctx, "SPOT_BTC_USDT", simws.Options{}, func(c *feed.Config) { c.PendingTimeout = 300 * time.Millisecond })
	h.waitFor("a reconciled account", 10*time.Second, func() bool { return h.st.Account != nil && !h.st.Account.Reconciled.IsZero() })
	price := decimal.RequireFromString("50000")
	qty := decimal.RequireFromString("0.001")
	// 1: sent and acked.
	h.f.TrackPending(feed.Order{ClientOrderID: 77, Symbol: "SPOT_BTC_USDT", Side: "BUY", Type: "LIMIT", Price: price, Quantity: qty})
	h.waitFor("pending shown", 5*time.Second, func() bool { return hasOrder(h.st.Account, 77, feed.StatusPending) })
	if _, err := h.rest.SendOrder(ctx, venue.OrderRequest{Symbol: "SPOT_BTC_USDT", ClientOrderID: 77, Type: "LIMIT", Side: "BUY", Price: price, Quantity: qty}); err != nil {
		t.Fatal(err)
	}
	h.waitFor("the ack", 5*time.Second, func() bool {
		return hasOrder(h.st.Account, 77, "NEW") && countEvents(h.events, feed.EventOrderAck) == 1
	})
	// 2: refused by REST: the trading UI ends it at once.
	h.f.TrackPending(feed.Order{ClientOrderID: 78, Symbol: "SPOT_BTC_USDT", Side: "BUY"})
	h.f.RejectPending(78, "price filter")
	// 3: never sent: the lookup finds nothing and ends it.
	h.f.TrackPending(feed.Order{ClientOrderID: 79, Symbol: "SPOT_BTC_USDT", Side: "SELL"})
	h.waitFor("both rejected", 10*time.Second, func() bool {
		return countEvents(h.events, feed.EventRejected) == 2 && !hasOrder(h.st.Account, 78, feed.StatusPending) && !hasOrder(h.st.Account, 79, feed.StatusPending)
	})
	// 4: cancel.
	if err := h.rest.CancelOrderByClientID(ctx, "SPOT_BTC_USDT", 77); err != nil {
		t.Fatal(err)
	}
	h.waitFor("the cancel", 5*time.Second, func() bool {
		return countEvents(h.events, feed.EventCancelled) == 1 && !hasOrder(h.st.Account, 77, "NEW")
	})
}

func hasOrder(a *feed.Account, cid int64, status string) bool {
	if a == nil {
		return false
	}
	for _, o := range a.Open {
		if o.ClientOrderID == cid && o.Status == status {
			return true
		}
	}
	return false
}

func countEvents(evs []feed.Event, k feed.EventKind) int {
	n := 0
	for _, e := range evs {
		if e.Kind == k {
			n++
		}
	}
	return n
}

// TestRESTSnapshotsUnderRESTFaults: with snapshots from REST only (no
// waiting for the @orderbook push) and a quarter of REST calls failing,
// every skipped delta still resyncs the book to the venue's. (The market
// is still: the sim stamps a REST snapshot with the last push's ts even
// when its synthetic participants changed the book in that same
// millisecond, so a moving market would fail this for the sim's sake.)
func TestRESTSnapshotsUnderRESTFaults(t *testing.T) {
	ctx := t.Context()
	const symbol = "SPOT_ETH_USDT"
	h := startHarnessSim(t, ctx, symbol, sim.Options{Seed: 3, NoRateLimits: true,
		Living: sim.LivingOptions{NoMarket: true, Streams: simws.Options{UpdateInterval: 20 * time.Millisecond, SnapshotEvery: 1000}}},
		func(c *feed.Config) { c.SnapshotWait = -1 })
	h.waitFor("a live book", 10*time.Second, func() bool { return h.st.Books[symbol] != nil && h.st.Books[symbol].State == feed.Live })
	h.inst.Faults.Set(faults.Config{SkipUpdateEvery: 25, REST429: 0.15, REST5xx: 0.1})
	// Until enough faults happened, however long a loaded machine takes.
	h.waitFor("five skipped deltas and failed REST snapshots", 60*time.Second, func() bool {
		c := h.inst.Faults.Counts()
		return h.inst.Faults.SkippedBySymbol(symbol) >= 5 && c.REST429+c.REST5xx >= 2
	})
	h.inst.Faults.Set(faults.Config{})
	skipped := h.inst.Faults.SkippedBySymbol(symbol)
	h.waitFor("live again", 10*time.Second, func() bool {
		b := h.st.Books[symbol]
		return b != nil && b.State == feed.Live && b.Gaps >= uint64(skipped)
	})
	// The still market's empty deltas send no book: four real changes,
	// one at a time, each a book compared with the venue's at its ts.
	h.mu.Lock()
	best := h.st.Books[symbol].Bids[0]
	scale := h.st.Books[symbol].Scale
	h.mu.Unlock()
	for i := int64(1); i <= 4; i++ {
		h.mu.Lock()
		before := h.compared[symbol]
		h.mu.Unlock()
		price := decimal.New(best.Price-i, -int32(scale.PriceDec))
		if _, err := h.rest.SendOrder(ctx, venue.OrderRequest{Symbol: symbol, Type: venue.Limit, Side: venue.Buy,
			Price: price, Quantity: decimal.RequireFromString("0.01")}); err != nil {
			t.Fatal(err)
		}
		h.waitFor(fmt.Sprintf("equal again after change %d", i), 10*time.Second, func() bool { return h.compared[symbol] > before })
	}
	c := h.inst.Faults.Counts()
	if skipped < 3 || c.REST429+c.REST5xx == 0 {
		t.Fatalf("faults not exercised: skipped %d, %+v", skipped, c)
	}
}

// tickerCounter counts the ticker pushes of one symbol the feed read (an
// Observer sees every one): the clock of a quiet market.
type tickerCounter struct {
	symbol string
	n      atomic.Int64
}

func (o *tickerCounter) ObserveTicker(t feed.Ticker) {
	if t.Symbol == o.symbol {
		o.n.Add(1)
	}
}

func (o *tickerCounter) ObserveTrade(string, feed.Scale, feed.Trade) {}
func (o *tickerCounter) ObserveBBO(feed.BBO)                         {}
func (o *tickerCounter) ObserveMark(string, decimal.Decimal, int64)  {}
func (o *tickerCounter) ObserveOrder(feed.Order)                     {}
func (o *tickerCounter) ObservePosition(feed.Position)               {}
func (o *tickerCounter) ObserveHealth(feed.Health)                   {}

// waitPushes waits until n more ticker pushes were read.
func (o *tickerCounter) waitPushes(t *testing.T, n int64) {
	t.Helper()
	want := o.n.Load() + n
	deadline := time.Now().Add(20 * time.Second)
	for o.n.Load() < want {
		if time.Now().After(deadline) {
			t.Fatalf("%d ticker pushes read, want %d", o.n.Load(), want)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// take hands back the Updates received since the last take.
func (h *harness) take() []feed.Update {
	h.mu.Lock()
	defer h.mu.Unlock()
	got := h.got
	h.got = nil
	return got
}

// TestQuietMarketWakesNoConsumer: in a market where nothing moves (no
// participants, no history) the venue still pushes an empty book delta
// every 20 ms here and repeats its 1 s topics every 50 ms; they reach the
// feed and stop there: over 20 rounds of them (some 50 deltas and 200
// repeats) no Update carries market or account data (the health's
// figures may move: TestHealthRefreshSendsShownFigures). Then a real
// change, an order resting at a new level, is in the very next Update
// that carries the book.
func TestQuietMarketWakesNoConsumer(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	const sym = "SPOT_ETH_USDT"
	obs := &tickerCounter{symbol: sym}
	h := startHarnessSim(t, ctx, sym, sim.Options{Seed: 5, NoRateLimits: true, NoHistory: true,
		Living: sim.LivingOptions{NoMarket: true, Streams: simws.Options{UpdateInterval: 20 * time.Millisecond, StatsInterval: 50 * time.Millisecond}}},
		func(c *feed.Config) { c.Observer, c.Watchlist = obs, []string{"SPOT_BTC_USDT", "SPOT_SOL_USDT"} })
	h.waitFor("a live book, tickers and a reconciled account", 15*time.Second, func() bool {
		b := h.st.Books[sym]
		return b != nil && b.State == feed.Live && len(b.Bids) > 0 && h.st.Account != nil &&
			!h.st.Account.Reconciled.IsZero() && h.st.Tickers["SPOT_SOL_USDT"].Symbol != ""
	})
	obs.waitPushes(t, 5) // what the first pushes started has arrived
	h.mu.Lock()
	h.record = true
	h.mu.Unlock()
	obs.waitPushes(t, 20)
	for i, u := range h.take() {
		if len(u.Books)+len(u.Trades)+len(u.BBOs)+len(u.Tickers)+len(u.Futures)+len(u.Candles) > 0 || u.Account != nil || len(u.Events) > 0 {
			t.Errorf("update %d of a quiet market carries data: books %d trades %d bbos %d tickers %d futures %d candles %d account %v events %v",
				i, len(u.Books), len(u.Trades), len(u.BBOs), len(u.Tickers), len(u.Futures), len(u.Candles), u.Account != nil, u.Events)
		}
	}

	// A real change: a bid 1 % below the best.
	h.mu.Lock()
	before := h.st.Books[sym]
	h.mu.Unlock()
	rule, err := h.rest.SymbolRule(ctx, sym)
	if err != nil {
		t.Fatal(err)
	}
	r := trade.RuleOf(rule)
	dec := int32(before.Scale.PriceDec)
	price := r.AlignPrice(decimal.New(before.Bids[0].Price, -dec).Mul(decimal.RequireFromString("0.99")), trade.Down)
	qty := r.AlignQty(decimal.Max(r.BaseMin, r.MinNotional.Mul(decimal.NewFromInt(2)).Div(price)), trade.Up)
	at, had := price.Shift(dec).IntPart(), int64(0)
	for _, l := range before.Bids {
		if l.Price == at {
			had = l.Qty
		}
	}
	if _, err := h.rest.SendOrder(ctx, venue.OrderRequest{Symbol: sym, ClientOrderID: 4242, Type: venue.Limit, Side: venue.Buy,
		Price: price, Quantity: qty}); err != nil {
		t.Fatal(err)
	}
	var first *feed.Book
	h.waitFor("a book after the order", 15*time.Second, func() bool {
		for _, u := range h.got {
			if b := u.Books[sym]; b != nil && first == nil {
				first = b
			}
		}
		return first != nil
	})
	for _, l := range first.Bids {
		if l.Price == at && l.Qty > had {
			return
		}
	}
	t.Fatalf("the first book after the order (version %d, before %d) has not the new bid at %s (had %d): %v",
		first.Version, before.Version, price, had, first.Bids)
}
