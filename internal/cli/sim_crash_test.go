package cli

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"tradedeck/e2e/bintest"
	"tradedeck/internal/testkit"
	"tradedeck/venue"
)

// tradedeckBinary builds the real binary; go test -short leaves out the
// tests that run it.
func tradedeckBinary(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	return bintest.Build(t, "../..") // the tradedeck command at the module root
}

type accountView struct {
	open     []int64
	balances map[string]string // token -> holding/frozen
	trades   []int64
}

func viewAccount(t *testing.T, c *venue.Client) accountView {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	v := accountView{balances: map[string]string{}}
	orders, _, err := c.ListOrders(ctx, venue.OrderFilter{Status: venue.StatusIncomplete})
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range orders {
		v.open = append(v.open, o.OrderID.Int64())
	}
	hs, err := c.HoldingV2(ctx, true)
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range hs {
		v.balances[h.Token] = h.Holding.String() + "/" + h.Frozen.String()
	}
	trades, _, err := c.ListTrades(ctx, venue.TradeFilter{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tr := range trades {
		v.trades = append(v.trades, tr.ID.Int64())
	}
	slices.Sort(v.open)
	slices.Sort(v.trades)
	return v
}

// TestSimKill9KeepsAcknowledgedOrders is issue 12's point 6 with the real
// binary: orders acknowledged just before a kill -9 (no checkpoint since)
// are back after a restart with their fills, balances and frozen amounts,
// new ids are greater, and a record torn by the crash does not stop the
// restart.
func TestSimKill9KeepsAcknowledgedOrders(t *testing.T) {
	state := filepath.Join(t.TempDir(), "state.json")
	args := []string{"--state", state, "--rate", "off", "--no-history", "--seed", "3"}
	bin := tradedeckBinary(t)
	p := bintest.StartSim(t, bin, args...)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	var last int64
	for i, sym := range []string{"SPOT_BTC_USDT", "SPOT_ETH_USDT", "SPOT_BTC_USDT", "SPOT_ETH_USDT"} {
		book, err := p.Client.OrderBook(ctx, sym, 5)
		if err != nil {
			t.Fatal(err)
		}
		price := book.Bids[len(book.Bids)-1].Price.Sub(decimal.NewFromInt(int64(10 + i))) // rests below the book
		qty := decimal.RequireFromString("0.01")
		if sym == "SPOT_ETH_USDT" {
			qty = decimal.RequireFromString("0.1")
		}
		ack, err := p.Client.SendOrder(ctx, venue.OrderRequest{Symbol: sym, Type: venue.Limit, Side: venue.Buy, Price: price, Quantity: qty})
		if err != nil {
			t.Fatal(err)
		}
		last = max(last, ack.OrderID.Int64())
	}
	ack, err := p.Client.SendOrder(ctx, venue.OrderRequest{Symbol: "SPOT_BTC_USDT", Type: venue.Market, Side: venue.Buy,
		Quantity: decimal.RequireFromString("0.002")}) // fills against the seeded book
	if err != nil {
		t.Fatal(err)
	}
	last = max(last, ack.OrderID.Int64())
	before := viewAccount(t, p.Client)
	p.Kill9(t)
	if len(before.open) != 4 || len(before.trades) == 0 {
		t.Fatalf("before the crash: %+v", before)
	}

	// a crash in the middle of a write leaves a partial record at the tail
	segs, _ := filepath.Glob(state + ".journal.*")
	if len(segs) == 0 {
		t.Fatal("no journal segment next to the state file")
	}
	f, err := os.OpenFile(segs[len(segs)-1], os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.Write([]byte{200, 0, 0, 0, 1, 2, 3, 4, 9, 9, 9, 9, 9, 9, 9, 9, '{', '"'})
	f.Close()

	p2 := bintest.StartSim(t, bin, args...)
	after := viewAccount(t, p2.Client)
	if !slices.Equal(before.open, after.open) || !slices.Equal(before.trades, after.trades) {
		t.Fatalf("orders or fills lost in the crash:\nbefore %+v\nafter  %+v", before, after)
	}
	for tok, b := range before.balances {
		if after.balances[tok] != b {
			t.Fatalf("%s holding/frozen %s before the crash, %s after", tok, b, after.balances[tok])
		}
	}
	next, err := p2.Client.SendOrder(ctx, venue.OrderRequest{Symbol: "SPOT_BTC_USDT", Type: venue.Market, Side: venue.Buy,
		Quantity: decimal.RequireFromString("0.001")})
	if err != nil {
		t.Fatal(err)
	}
	if next.OrderID.Int64() <= last {
		t.Fatalf("order id %d handed out after the restart; %d was acknowledged before the crash", next.OrderID.Int64(), last)
	}
	t.Run("private stream", func(t *testing.T) { testKill9KeepsStreamedEvents(t, bin) })
}

// streamSeen is what a private-stream client saw: every executionreport
// (order id -> the furthest state seen), every fill's trade and every
// balance it was told.
type streamSeen struct {
	orders   map[int64]seenOrder
	trades   map[int64]seenTrade
	balances []seenBalance
	fills    int
}

type seenOrder struct {
	status   string
	executed decimal.Decimal
}

type seenTrade struct {
	order      int64
	price, qty decimal.Decimal
}

type seenBalance struct {
	token   string
	holding decimal.Decimal
}

// record notes one private frame; it reports whether it was a fill.
func (s *streamSeen) record(m map[string]any) bool {
	data, _ := m["data"].(map[string]any)
	switch m["topic"] {
	case "executionreport":
		id := jsonInt(data["orderId"])
		exec := jsonDec(data["totalExecutedQuantity"])
		if prev, ok := s.orders[id]; !ok || exec.GreaterThanOrEqual(prev.executed) {
			s.orders[id] = seenOrder{status: fmt.Sprint(data["status"]), executed: exec}
		}
		if tid := jsonInt(data["tradeId"]); tid != 0 {
			s.trades[tid] = seenTrade{order: id, price: jsonDec(data["executedPrice"]), qty: jsonDec(data["executedQuantity"])}
			s.fills++
			return true
		}
	case "balance":
		bs, _ := data["balances"].(map[string]any)
		for tok, v := range bs {
			b, _ := v.(map[string]any)
			s.balances = append(s.balances, seenBalance{tok, jsonDec(b["holding"])})
		}
	}
	return false
}

func jsonInt(v any) int64 {
	n, _ := v.(json.Number)
	i, _ := n.Int64()
	return i
}

func jsonDec(v any) decimal.Decimal {
	n, _ := v.(json.Number)
	d, _ := decimal.NewFromString(n.String())
	return d
}

// testKill9KeepsStreamedEvents is issue 29's point 5: a private-stream client
// records every event while four clients trade; the venue is killed with -9
// the moment the client has seen a random number of fills, and after each
// restart everything the client saw (orders, fills, balances) is in the
// venue's state. An event pushed before its journal record was fsynced is
// lost by such a crash; 200 fills in all.
func testKill9KeepsStreamedEvents(t *testing.T, bin string) {
	state := filepath.Join(t.TempDir(), "state.json")
	args := []string{"--state", state, "--rate", "busy", "--no-history", "--seed", "5", "--no-rate-limits"}
	p := bintest.StartSim(t, bin, args...)
	start := map[string]decimal.Decimal{} // the demo account's holdings before any trade
	for _, h := range holdings(t, p.Client) {
		start[h.Token] = h.Holding
	}
	seen := &streamSeen{orders: map[int64]seenOrder{}, trades: map[int64]seenTrade{}}
	rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 29))
	for round := 1; seen.fills < 200; round++ {
		target := seen.fills + 10 + rng.IntN(40)
		streamUntilKilled(t, p, seen, min(target, 200))
		p = bintest.StartSim(t, bin, args...)
		checkSeenInVenue(t, round, unlimited(p), seen, start)
	}
}

// unlimited is p's client without the client-side rate limiter: the sim runs
// with --no-rate-limits, and the test trades and reads as fast as it can.
func unlimited(p *bintest.Sim) *venue.Client { return p.Client.With(venue.WithLimiter(nil)) }

func holdings(t *testing.T, c *venue.Client) []venue.HoldingV2 {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	hs, err := c.HoldingV2(ctx, true)
	if err != nil {
		t.Fatal(err)
	}
	return hs
}

// streamUntilKilled trades on p with four clients (small MARKET orders, buys
// and sells in turn) while a private-stream client records every frame; it
// kills p with -9 as soon as the client has seen target fills in all, then
// reads what was already on its way.
func streamUntilKilled(t *testing.T, p *bintest.Sim, seen *streamSeen, target int) {
	t.Helper()
	cl := testkit.DialWS(t, p.Banner.PrivateStreamURL(p.Banner.ApplicationID))
	ts := time.Now().UnixMilli()
	cl.Write([]byte(`{"id":"a","event":"auth","params":{"apikey":"` + p.Banner.APIKey + `","sign":"` +
		venue.SignWS(p.Banner.APISecret, ts) + `","timestamp":"` + strconv.FormatInt(ts, 10) + `"}}`))
	cl.Next(10*time.Second, "auth", func(m map[string]any) bool { return m["id"] == "a" })
	for _, topic := range []string{"executionreport", "balance"} {
		cl.Write([]byte(`{"id":"` + topic + `","event":"subscribe","topic":"` + topic + `"}`))
		cl.Next(10*time.Second, "subscribed "+topic, func(m map[string]any) bool { return m["id"] == topic })
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	client := unlimited(p)
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; ctx.Err() == nil; i++ {
				side := venue.Buy
				if i%2 == 1 {
					side = venue.Sell
				}
				if _, err := client.SendOrder(ctx, venue.OrderRequest{Symbol: "SPOT_BTC_USDT", Type: venue.Market, Side: side,
					Quantity: decimal.RequireFromString("0.001")}); err != nil && ctx.Err() == nil && !isDown(err) {
					t.Errorf("order: %v", err)
					return
				}
			}
		}()
	}
	killed := false
	deadline := time.After(2 * time.Minute)
	for !killed || cl.In != nil {
		select {
		case f, ok := <-cl.In:
			if !ok || f.Err != nil {
				if !killed {
					t.Fatalf("private stream ended before the kill: %v", f.Err)
				}
				cl.In = nil
				continue
			}
			if seen.record(f.M) && seen.fills >= target && !killed {
				_ = p.Cmd.Process.Kill() // at once: frames still on their way are read below
				killed = true
				cancel()
			}
		case <-deadline:
			t.Fatalf("%d fills seen, waiting for %d", seen.fills, target)
		}
	}
	_ = p.Cmd.Wait()
	wg.Wait()
}

// isDown reports whether err is the venue going away (the kill), not a refusal.
func isDown(err error) bool {
	var ve *venue.APIError
	return !errors.As(err, &ve)
}

// checkSeenInVenue fails unless every order, fill and balance in seen is
// in the restarted venue's state.
func checkSeenInVenue(t *testing.T, round int, c *venue.Client, seen *streamSeen, start map[string]decimal.Decimal) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	for id, so := range seen.orders {
		o, err := c.GetOrder(ctx, id)
		if err != nil {
			t.Fatalf("round %d: order %d (%s, executed %s on the stream) is gone after kill -9: %v", round, id, so.status, so.executed, err)
		}
		final := so.status == "FILLED" || so.status == "CANCELLED"
		if o.Executed.LessThan(so.executed) || (final && string(o.Status) != so.status) {
			t.Fatalf("round %d: order %d: the stream said %s, executed %s; after kill -9 %s, executed %s",
				round, id, so.status, so.executed, o.Status, o.Executed)
		}
	}
	trades := allTrades(t, ctx, c)
	byID := map[int64]venue.Trade{}
	for _, tr := range trades {
		byID[tr.ID.Int64()] = tr
	}
	for id, st := range seen.trades {
		tr, ok := byID[id]
		if !ok || tr.OrderID.Int64() != st.order || !tr.ExecutedPrice.Equal(st.price) || !tr.ExecutedQuantity.Equal(st.qty) {
			t.Fatalf("round %d: fill %d of order %d (%s at %s) seen on the stream; after kill -9: %+v (found %v)", round, id, st.order, st.qty, st.price, tr, ok)
		}
	}
	reachable := balancesAlong(trades, start)
	for _, b := range seen.balances {
		if !reachable[b.token][b.holding.String()] {
			t.Fatalf("round %d: %s holding %s seen on the stream is no state the restarted venue's %d trades pass through",
				round, b.token, b.holding, len(trades))
		}
	}
	t.Logf("round %d: %d fills, %d orders, %d balances seen, all in the venue after kill -9", round, len(seen.trades), len(seen.orders), len(seen.balances))
}

// allTrades reads every page of the account's trades, oldest first.
func allTrades(t *testing.T, ctx context.Context, c *venue.Client) []venue.Trade {
	t.Helper()
	var out []venue.Trade
	for page := 1; ; page++ {
		rows, _, err := c.ListTrades(ctx, venue.TradeFilter{Page: page})
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, rows...)
		if len(rows) < 25 {
			break
		}
	}
	slices.SortFunc(out, func(a, b venue.Trade) int { return cmp.Compare(a.ID.Int64(), b.ID.Int64()) })
	return out
}

// balancesAlong is every holding each token passes through from start as
// the trades settle one by one (a spot BUY pays its fee in the base token,
// a SELL in the quote).
func balancesAlong(trades []venue.Trade, start map[string]decimal.Decimal) map[string]map[string]bool {
	cur := maps.Clone(start)
	out := map[string]map[string]bool{}
	note := func() {
		for tok, h := range cur {
			if out[tok] == nil {
				out[tok] = map[string]bool{}
			}
			out[tok][h.String()] = true
		}
	}
	note()
	for _, tr := range trades {
		parts := strings.Split(tr.Symbol, "_") // SPOT_BASE_QUOTE
		base, quote := parts[1], parts[2]
		notional := tr.ExecutedPrice.Mul(tr.ExecutedQuantity)
		if tr.Side == venue.Buy {
			cur[base], cur[quote] = cur[base].Add(tr.ExecutedQuantity), cur[quote].Sub(notional)
		} else {
			cur[base], cur[quote] = cur[base].Sub(tr.ExecutedQuantity), cur[quote].Add(notional)
		}
		cur[tr.FeeAsset] = cur[tr.FeeAsset].Sub(tr.Fee)
		note()
	}
	return out
}
