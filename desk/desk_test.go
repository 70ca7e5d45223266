package desk

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"tradedeck/feed"
	"tradedeck/sim"
	"tradedeck/sim/simtest"
	"tradedeck/trade"
	"tradedeck/venue"
)

// tracker records what the desk tells the feed.
type tracker struct {
	mu       sync.Mutex
	pending  []feed.Order
	rejected map[int64]string
}

func (t *tracker) TrackPending(o feed.Order) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.pending = append(t.pending, o)
}

func (t *tracker) RejectPending(cid int64, reason string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.rejected == nil {
		t.rejected = map[int64]string{}
	}
	t.rejected[cid] = reason
}

func newDesk(t *testing.T, client *venue.Client, tr Tracker, timeout time.Duration) *Desk {
	t.Helper()
	d, err := New(Config{Client: client, Tracker: tr, Timeout: timeout})
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// rest places a LIMIT BUY well below the book through REST.
func rest(t *testing.T, c *venue.Client, sym string, cid int64) {
	t.Helper()
	ctx := context.Background()
	ob, err := c.OrderBook(ctx, sym, 1)
	if err != nil {
		t.Fatal(err)
	}
	rule, _ := c.SymbolRule(ctx, sym)
	p := trade.RuleOf(rule).AlignPrice(ob.Bids[0].Price.Mul(decimal.RequireFromString("0.9")), trade.Down)
	q := trade.RuleOf(rule).BaseMin.Mul(decimal.NewFromInt(20))
	if _, err := c.SendOrder(ctx, venue.OrderRequest{Symbol: sym, Side: venue.Buy, Type: venue.Limit,
		Price: p, Quantity: q, ClientOrderID: cid}); err != nil {
		t.Fatalf("%s: %v", sym, err)
	}
}

func openOrders(t *testing.T, c *venue.Client) []venue.Order {
	t.Helper()
	rows, _, err := c.ListOrders(context.Background(), venue.OrderFilter{Status: venue.StatusIncomplete})
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

func TestNoKeysNoDesk(t *testing.T) {
	if _, err := New(Config{}); err == nil {
		t.Fatal("a desk without a client")
	}
	c := venue.NewClient(venue.Endpoints{BaseURL: "http://127.0.0.1:9"}, venue.Credentials{})
	if _, err := New(Config{Client: c}); err == nil {
		t.Fatal("a desk without keys")
	}
}

// Send tracks the order as PENDING before the venue answers; an accepted
// order rests on the venue and is not rejected; Cancel finds it by client
// order id when the order id is not known.
func TestSendTracksThenCancelByClientID(t *testing.T) {
	inst := simtest.Start(t, sim.Options{Seed: 3, NoRateLimits: true, Living: sim.LivingOptions{NoMarket: true}})
	client := venue.NewClient(inst.Endpoints, inst.Credentials, venue.WithLimiter(nil))
	tr := &tracker{}
	d := newDesk(t, client, tr, 0)
	ctx := context.Background()
	const sym = "SPOT_ETH_USDT"
	ob, _ := client.OrderBook(ctx, sym, 1)
	o := trade.Order{Symbol: sym, Side: trade.Buy, Type: trade.Limit, Price: ob.Bids[0].Price.Sub(decimal.NewFromInt(50)),
		Quantity: decimal.RequireFromString("0.01"), ClientOrderID: 4242}
	ack, err := d.Send(ctx, o)
	if err != nil || ack.OrderID == 0 {
		t.Fatalf("send: %+v %v", ack, err)
	}
	if len(tr.pending) != 1 || tr.pending[0].Status != feed.StatusPending || tr.pending[0].ClientOrderID != 4242 {
		t.Fatalf("pending %+v", tr.pending)
	}
	if len(tr.rejected) != 0 {
		t.Fatalf("an accepted order was rejected: %v", tr.rejected)
	}
	if err := d.Cancel(ctx, feed.Order{Symbol: sym, ClientOrderID: 4242}); err != nil {
		t.Fatal(err)
	}
	if rows := openOrders(t, client); len(rows) != 0 {
		t.Fatalf("still open: %+v", rows)
	}
}

// The panic cancel reads the venue's incomplete orders page by page, so
// it cancels symbols the dashboard never knew about.
func TestPanicCancelPagesThroughUnknownSymbols(t *testing.T) {
	inst := simtest.Start(t, sim.Options{Seed: 5, NoRateLimits: true, Living: sim.LivingOptions{NoMarket: true}})
	client := venue.NewClient(inst.Endpoints, inst.Credentials, venue.WithLimiter(nil))
	d := newDesk(t, client, nil, 0)
	syms := []string{"SPOT_ETH_USDT", "SPOT_BTC_USDT", "SPOT_SOL_USDT"}
	cid := int64(100)
	for _, s := range syms {
		for i := 0; i < 10; i++ { // 30 orders: more than one page of 25
			cid++
			rest(t, client, s, cid)
		}
	}
	targets, errs := d.PanicCancel(context.Background(), []string{"SPOT_ETH_USDT"}) // one symbol known
	if len(errs) != 0 {
		t.Fatal(errs)
	}
	if strings.Join(targets, ",") != "SPOT_BTC_USDT,SPOT_ETH_USDT,SPOT_SOL_USDT" {
		t.Fatalf("targets %v", targets)
	}
	if rows := openOrders(t, client); len(rows) != 0 {
		t.Fatalf("%d orders survived the panic cancel", len(rows))
	}
}

// An order the client's own rate limiter keeps back (its wait would
// outlast the call's timeout) is reported as not sent, and its pending row
// ends at once.
func TestRateLimiterKeepsOrderBack(t *testing.T) {
	inst := simtest.Start(t, sim.Options{Seed: 10, Living: sim.LivingOptions{NoMarket: true}})
	client := venue.NewClient(inst.Endpoints, inst.Credentials) // the default limiter: 2 orders/s/symbol
	tr := &tracker{}
	d := newDesk(t, client, tr, 200*time.Millisecond)
	ob, _ := client.OrderBook(context.Background(), "SPOT_ETH_USDT", 1)
	o := trade.Order{Symbol: "SPOT_ETH_USDT", Side: trade.Buy, Type: trade.Limit, Price: ob.Bids[0].Price,
		Quantity: decimal.RequireFromString("0.01")}
	var err error
	for i := 0; i < 3; i++ {
		o.ClientOrderID = int64(800 + i)
		ctx, cancel := d.Context()
		_, err = d.Send(ctx, o)
		cancel()
	}
	if !errors.Is(err, venue.ErrRateLimitWait) {
		t.Fatalf("third order in a second: %v", err)
	}
	if _, ok := tr.rejected[802]; !ok {
		t.Fatal("kept-back order left pending")
	}
	if got := trade.Explain(err); !strings.HasPrefix(got, "not sent: ") {
		t.Fatalf("explained as %q", got)
	}
}

func TestRefused(t *testing.T) {
	for _, c := range []struct {
		err  error
		want bool
	}{
		{nil, false},
		{errors.New("network down"), false},
		{venue.ErrRateLimitWait, true},
		{&venue.APIError{HTTPStatus: 400, Code: -1102}, true},
		{&venue.APIError{HTTPStatus: 500, Code: -1000}, false},
		{&venue.APIError{HTTPStatus: 429}, false},
	} {
		if got := Refused(c.err); got != c.want {
			t.Errorf("Refused(%v) = %v", c.err, got)
		}
	}
}

// stopper records when the algos were stopped: before any order was
// cancelled (it counts the orders still open then).
type stopper struct {
	client *venue.Client
	t      *testing.T
	calls  []string
	open   []int
}

func (s *stopper) StopAlgos(symbol, why string) error {
	s.calls = append(s.calls, symbol+"|"+why)
	s.open = append(s.open, len(openOrders(s.t, s.client)))
	return nil
}

// The panic cancel and the cancel of a symbol stop the account's algos
// before they cancel anything, so no algo places an order behind them.
func TestCancelsStopAlgosFirst(t *testing.T) {
	inst := simtest.Start(t, sim.Options{Seed: 5, NoRateLimits: true, Living: sim.LivingOptions{NoMarket: true}})
	client := venue.NewClient(inst.Endpoints, inst.Credentials, venue.WithLimiter(nil))
	st := &stopper{client: client, t: t}
	d, err := New(Config{Client: client, Algos: st})
	if err != nil {
		t.Fatal(err)
	}
	rest(t, client, "SPOT_ETH_USDT", 501)
	rest(t, client, "SPOT_BTC_USDT", 502)
	if err := d.CancelAll(context.Background(), "SPOT_ETH_USDT"); err != nil {
		t.Fatal(err)
	}
	if _, errs := d.PanicCancel(context.Background(), nil); len(errs) != 0 {
		t.Fatal(errs)
	}
	if strings.Join(st.calls, ",") != "SPOT_ETH_USDT|cancel all SPOT_ETH_USDT,|panic cancel" || st.open[0] != 2 {
		t.Fatalf("algos stopped %q with %v orders open", st.calls, st.open)
	}
}
