package sim_test

import (
	"context"
	"fmt"
	"maps"
	"math/rand/v2"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"tradedeck/fixed"
	"tradedeck/sim"
	"tradedeck/sim/exchange"
	"tradedeck/sim/ws"
)

// bookState is one side pair of a book at a ts.
type bookState struct{ asks, bids map[int64]int64 }

func (s bookState) equal(asks, bids map[int64]int64) bool {
	return maps.Equal(s.asks, asks) && maps.Equal(s.bids, bids)
}

// churn places a small order at the best bid or ask of sym and cancels it a few ms later, over
// and over until ctx ends: the level goes A -> B -> A between two pushes far more often than
// the synthetic market alone makes it.
func churn(ctx context.Context, t *testing.T, ex *exchange.Exchange, rule exchange.Rule, seed uint64) {
	acct := ex.InternalAccount("CHURN_" + rule.Symbol)
	rng := rand.New(rand.NewPCG(seed, 7))
	for ctx.Err() == nil {
		asks, bids, _, err := ex.DepthFixed(rule.Symbol, 1, nil, nil)
		if err != nil {
			t.Error(err)
			return
		}
		side, lv := exchange.Buy, bids
		if rng.IntN(2) == 0 {
			side, lv = exchange.Sell, asks
		}
		if len(lv) == 0 {
			time.Sleep(time.Millisecond)
			continue
		}
		o, perr := ex.PlaceOrder(acct, exchange.OrderRequest{
			Symbol: rule.Symbol, Type: exchange.PostOnly, Side: side,
			Price: fixed.ToDecimal(lv[0].Price, rule.PriceDecimals), HasPrice: true,
			Quantity: rule.BaseMin.Mul(fixed.ToDecimal(int64(1+rng.IntN(5)), 0)), HasQuantity: true,
		})
		time.Sleep(time.Duration(1+rng.IntN(8)) * time.Millisecond)
		if perr == nil {
			_ = ex.Cancel(acct, rule.Symbol, o.ID) // may have been filled meanwhile
		}
	}
}

// TestRandomSnapshotsRebuildExactly takes many REST snapshots at random moments of a busy market
// (with orders that come and go between pushes) and rebuilds a book from each one plus the
// orderbookupdate stream by the documented sync rule. Every rebuilt book must equal the venue's
// @orderbook push of the same ts, and a snapshot stamped with a push's ts must be that push's book.
func TestRandomSnapshotsRebuildExactly(t *testing.T) {
	inst := startSim(t, sim.Options{Seed: 21, Living: sim.LivingOptions{
		Rate:    300,
		Streams: ws.Options{UpdateInterval: 50 * time.Millisecond},
	}})
	symbols := []string{"SPOT_BTC_USDT", "PERP_ETH_USDT"}
	rules := map[string]exchange.Rule{}
	for _, r := range inst.Exchange.Rules() {
		rules[r.Symbol] = r
	}
	ctx, stop := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	for i, s := range symbols {
		wg.Go(func() { churn(ctx, t, inst.Exchange, rules[s], uint64(i)) })
	}
	defer wg.Wait()
	defer stop()

	cl := dialWS(t, inst.Endpoints.MarketStreamURL(inst.Credentials.ApplicationID))
	for i, s := range symbols {
		cl.subscribe(fmt.Sprint("u", i), s+"@orderbookupdate")
		cl.subscribe(fmt.Sprint("o", i), s+"@orderbook")
	}

	// Per symbol: the reference book (from an @orderbook push, chained by updates) and its
	// state at each recent push ts; the recent updates, to replay into a new snapshot's book;
	// the books being rebuilt from snapshots.
	type symState struct {
		ref       *localBook
		states    map[int64]bookState
		recent    []map[string]any
		rebuilds  []*localBook
		stampedAt map[int64][]bookState // snapshots stamped with a ts the reference has not reached
	}
	syms := map[string]*symState{}
	for _, s := range symbols {
		r := rules[s]
		syms[s] = &symState{states: map[int64]bookState{}, stampedAt: map[int64][]bookState{},
			ref: &localBook{pd: r.PriceDecimals, qd: r.QtyDecimals}}
	}
	snapshots, rebuiltEqual, rebuiltDiffer, stampedEqual, stampedDiffer, refChecks := 0, 0, 0, 0, 0, 0
	checkStamped := func(st *symState, ts int64, snap bookState) {
		if want, ok := st.states[ts]; ok {
			if want.equal(snap.asks, snap.bids) {
				stampedEqual++
			} else {
				stampedDiffer++
			}
		}
	}
	handle := func(f map[string]any) {
		tp, _ := f["topic"].(string)
		d, _ := f["data"].(map[string]any)
		sym := fmt.Sprint(d["symbol"])
		st := syms[sym]
		if st == nil {
			return
		}
		ts := num(t, f["ts"])
		ref := st.ref
		if strings.HasSuffix(tp, "@orderbookupdate") {
			st.recent = append(st.recent, f)
			if len(st.recent) > 200 {
				st.recent = st.recent[100:]
			}
			for _, b := range st.rebuilds {
				if !b.update(t, f) {
					t.Fatalf("%s: prevTs chain broken at %d", sym, ts)
				}
			}
			if ref.bids == nil {
				return
			}
			if !ref.update(t, f) {
				t.Fatalf("%s: prevTs chain broken at %d", sym, ts)
			}
			st.states[ts] = bookState{maps.Clone(ref.asks), maps.Clone(ref.bids)}
			for _, snap := range st.stampedAt[ts] {
				checkStamped(st, ts, snap)
			}
			delete(st.stampedAt, ts)
			return
		}
		asks, bids := levelsMap(t, ref, d["asks"]), levelsMap(t, ref, d["bids"])
		if ref.bids == nil { // the reference starts from the first push
			ref.asks, ref.bids, ref.snapTs, ref.lastTs, ref.synced = asks, bids, ts, ts, true
			st.states[ts] = bookState{maps.Clone(asks), maps.Clone(bids)}
			return
		}
		if ts == ref.lastTs {
			if !maps.Equal(asks, ref.asks) || !maps.Equal(bids, ref.bids) {
				t.Fatalf("%s at %d: the stream's own book differs from its @orderbook push", sym, ts)
			}
			refChecks++
		}
		kept := st.rebuilds[:0]
		for _, b := range st.rebuilds {
			if !b.synced || b.lastTs != ts {
				kept = append(kept, b)
				continue
			}
			if maps.Equal(asks, b.asks) && maps.Equal(bids, b.bids) {
				rebuiltEqual++
			} else {
				rebuiltDiffer++
			}
		}
		st.rebuilds = kept
	}
	drain := func(d time.Duration) {
		end := time.After(d)
		for {
			select {
			case fm := <-cl.in:
				if fm.err != nil {
					t.Fatal(fm.err)
				}
				handle(fm.m)
			case <-end:
				return
			}
		}
	}
	takeSnapshot := func(sym string) {
		st := syms[sym]
		code, m := signedREST(t, inst, inst.Credentials, "GET", "/v1/orderbook/"+sym, url.Values{"max_level": {"1000"}})
		if code != 200 || m["success"] != true {
			t.Fatalf("snapshot %s: %d %v", sym, code, m)
		}
		b := &localBook{pd: st.ref.pd, qd: st.ref.qd, asks: map[int64]int64{}, bids: map[int64]int64{}}
		b.snapTs = num(t, m["timestamp"])
		for _, side := range []struct {
			key string
			dst map[int64]int64
		}{{"asks", b.asks}, {"bids", b.bids}} {
			for _, l := range m[side.key].([]any) {
				lv := l.(map[string]any)
				side.dst[b.parse(t, lv["price"], b.pd)] = b.parse(t, lv["quantity"], b.qd)
			}
		}
		snap := bookState{maps.Clone(b.asks), maps.Clone(b.bids)}
		if _, ok := st.states[b.snapTs]; ok {
			checkStamped(st, b.snapTs, snap)
		} else if b.snapTs > st.ref.lastTs {
			st.stampedAt[b.snapTs] = append(st.stampedAt[b.snapTs], snap)
		}
		for _, f := range st.recent { // the updates buffered while the request was in flight
			b.update(t, f)
		}
		st.rebuilds = append(st.rebuilds, b)
		snapshots++
	}

	drain(300 * time.Millisecond)
	rng := rand.New(rand.NewPCG(21, 1))
	const want = 200
	for snapshots < want {
		takeSnapshot(symbols[rng.IntN(len(symbols))])
		drain(time.Duration(15+rng.IntN(30)) * time.Millisecond)
	}
	deadline := time.Now().Add(20 * time.Second)
	pending := func() int {
		n := 0
		for _, st := range syms {
			n += len(st.rebuilds)
		}
		return n
	}
	for pending() > 0 && time.Now().Before(deadline) {
		drain(50 * time.Millisecond)
	}
	t.Logf("%d snapshots: %d rebuilt books equal to the venue's, %d differ; %d stamped with a push ts: %d equal to it, %d differ; %d reference checks",
		snapshots, rebuiltEqual, rebuiltDiffer, stampedEqual+stampedDiffer, stampedEqual, stampedDiffer, refChecks)
	if rebuiltDiffer != 0 || stampedDiffer != 0 || rebuiltEqual != want || refChecks == 0 {
		t.Fatalf("%d of %d rebuilt books and %d of %d push-stamped snapshots differ from the venue's (%d never compared)",
			rebuiltDiffer, want, stampedDiffer, stampedEqual+stampedDiffer, pending())
	}
}
