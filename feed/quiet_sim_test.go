package feed_test

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"tradedeck/feed"
	"tradedeck/feed/ws"
	"tradedeck/sim"
	"tradedeck/sim/simtest"
	simws "tradedeck/sim/ws"
	"tradedeck/trade"
	"tradedeck/venue"
)

// tickerCounter counts the ticker pushes the feed read (the Observer
// sees every one), the clock of a quiet market.
type tickerCounter struct {
	feed.Observer
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
func (o *tickerCounter) waitPushes(t *testing.T, n int64, timeout time.Duration) {
	t.Helper()
	want := o.n.Load() + n
	deadline := time.Now().Add(timeout)
	for o.n.Load() < want {
		if time.Now().After(deadline) {
			t.Fatalf("%d ticker pushes read, want %d", o.n.Load(), want)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// quietFeed is a feed of a market where nothing moves (no synthetic
// participants, no history): the venue still pushes an empty book delta
// every UpdateInterval and repeats its tickers, bbos, klines and
// positioninfo every StatsInterval, as the real one does.
type quietFeed struct {
	f    *feed.Feed
	inst *sim.Instance
	obs  *tickerCounter

	mu sync.Mutex
	st feed.State
	// got is every Update since the last take.
	got []feed.Update
}

func startQuiet(t *testing.T, ctx context.Context, symbol string) *quietFeed {
	inst := simtest.Start(t, sim.Options{Seed: 5, NoRateLimits: true, NoHistory: true,
		Living: sim.LivingOptions{NoMarket: true, Streams: simws.Options{
			UpdateInterval: 20 * time.Millisecond, StatsInterval: 50 * time.Millisecond}}})
	q := &quietFeed{inst: inst, obs: &tickerCounter{symbol: symbol}, st: feed.NewState()}
	q.f = feed.New(feed.Config{
		Endpoints: inst.Endpoints, Credentials: inst.Credentials,
		REST:   venue.NewClient(inst.Endpoints, inst.Credentials, venue.WithLimiter(nil)),
		Symbol: symbol, Watchlist: []string{"SPOT_BTC_USDT", "SPOT_SOL_USDT"},
		Backoff:  ws.Backoff{Min: 5 * time.Millisecond, Max: 100 * time.Millisecond},
		Observer: q.obs,
	})
	go func() { _ = q.f.Run(ctx) }()
	go func() {
		for u := range q.f.Updates() {
			q.mu.Lock()
			q.st.Apply(&u)
			q.got = append(q.got, u)
			q.mu.Unlock()
		}
	}()
	return q
}

// take hands back the Updates received since the last take.
func (q *quietFeed) take() []feed.Update {
	q.mu.Lock()
	defer q.mu.Unlock()
	got := q.got
	q.got = nil
	return got
}

func (q *quietFeed) waitFor(t *testing.T, what string, cond func(st *feed.State) bool) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for {
		q.mu.Lock()
		ok := cond(&q.st)
		q.mu.Unlock()
		if ok {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// TestQuietMarketWakesNoConsumer: while nothing moves, the venue's pushes
// (an empty delta every 20 ms, the 1 s topics every 50 ms here) reach the
// feed and stop there: over 20 rounds of them (some 50 deltas and 200
// repeats) no Update carries market or account data. The health line's
// figures may move (their own test is in package feed); nothing else
// may. Then a real change, an order resting at a new price, is in the
// very next Update that carries the book.
func TestQuietMarketWakesNoConsumer(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	const sym = "SPOT_ETH_USDT"
	q := startQuiet(t, ctx, sym)
	q.waitFor(t, "a live book, tickers and a reconciled account", func(st *feed.State) bool {
		b := st.Books[sym]
		return b != nil && b.State == feed.Live && len(b.Bids) > 0 && st.Account != nil &&
			!st.Account.Reconciled.IsZero() && st.Tickers["SPOT_SOL_USDT"].Symbol != ""
	})
	q.obs.waitPushes(t, 5, 10*time.Second) // what the first pushes started has arrived
	q.take()

	q.obs.waitPushes(t, 20, 20*time.Second)
	for i, u := range q.take() {
		if len(u.Books)+len(u.Trades)+len(u.BBOs)+len(u.Tickers)+len(u.Futures)+len(u.Candles) > 0 || u.Account != nil || len(u.Events) > 0 {
			t.Errorf("update %d of a quiet market carries data: books %d trades %d bbos %d tickers %d futures %d candles %d account %v events %v",
				i, len(u.Books), len(u.Trades), len(u.BBOs), len(u.Tickers), len(u.Futures), len(u.Candles), u.Account != nil, u.Events)
		}
	}

	// A real change: a bid at a new level, below the book.
	q.mu.Lock()
	before := q.st.Books[sym]
	q.mu.Unlock()
	rest := venue.NewClient(q.inst.Endpoints, q.inst.Credentials, venue.WithLimiter(nil))
	rule, err := rest.SymbolRule(ctx, sym)
	if err != nil {
		t.Fatal(err)
	}
	r := trade.RuleOf(rule)
	dec := int32(before.Scale.PriceDec)
	price := r.AlignPrice(decimal.New(before.Bids[0].Price, -dec).Mul(decimal.RequireFromString("0.99")), trade.Down)
	qty := r.AlignQty(decimal.Max(r.BaseMin, r.MinNotional.Mul(decimal.NewFromInt(2)).Div(price)), trade.Up)
	at := price.Shift(dec).IntPart()
	had := int64(0)
	for _, l := range before.Bids {
		if l.Price == at {
			had = l.Qty
		}
	}
	if _, err := rest.SendOrder(ctx, venue.OrderRequest{Symbol: sym, ClientOrderID: 4242, Type: venue.Limit, Side: venue.Buy,
		Price: price, Quantity: qty}); err != nil {
		t.Fatal(err)
	}
	var first *feed.Book
	q.waitFor(t, "a book after the order", func(*feed.State) bool {
		for _, u := range q.got {
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
