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

// bounds are the worst prices a snapshot cut at its depth vouches for (0: the whole side).
type bounds struct{ ask, bid int64 }

// within keeps the levels of a side at prices the bound vouches for.
func within(side map[int64]int64, bound int64, buy bool) map[int64]int64 {
	if bound == 0 {
		return side
	}
	out := map[int64]int64{}
	for p, q := range side {
		if (buy && p >= bound) || (!buy && p <= bound) {
			out[p] = q
		}
	}
	return out
}

// equalWithin compares two books over the prices the bounds vouch for.
func (bd bounds) equalWithin(asks, bids, wantAsks, wantBids map[int64]int64) bool {
	return maps.Equal(within(asks, bd.ask, false), within(wantAsks, bd.ask, false)) &&
		maps.Equal(within(bids, bd.bid, true), within(wantBids, bd.bid, true))
}

// rebuild is a book rebuilt from one snapshot.
type rebuild struct {
	*localBook
	bounds
}

// stamped is a snapshot waiting for the push of its ts.
type stamped struct {
	bookState
	bounds
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

// TestRandomSnapshotsRebuildExactly takes many snapshots (signed REST, every fourth one the
// Websocket request) at random moments of a busy market with orders that come and go between
// pushes, and rebuilds a book from each one plus the orderbookupdate stream by the documented
// sync rule. Every rebuilt book must equal the venue's @orderbook push of the same ts, and a
// snapshot stamped with a push's ts must be that push's book (both over the prices a snapshot
// cut at its depth vouches for).
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
		rebuilds  []rebuild
		stampedAt map[int64][]stamped // snapshots stamped with a ts the reference has not reached
	}
	syms := map[string]*symState{}
	for _, s := range symbols {
		r := rules[s]
		syms[s] = &symState{states: map[int64]bookState{}, stampedAt: map[int64][]stamped{},
			ref: &localBook{pd: r.PriceDecimals, qd: r.QtyDecimals}}
	}
	snapshots, rebuiltEqual, rebuiltDiffer, stampedEqual, stampedDiffer, refChecks := 0, 0, 0, 0, 0, 0
	inFlight, viaWS := 0, 0
	checkStamped := func(st *symState, ts int64, snap stamped) {
		if want, ok := st.states[ts]; ok {
			if snap.equalWithin(snap.asks, snap.bids, want.asks, want.bids) {
				stampedEqual++
			} else {
				stampedDiffer++
			}
		}
	}
	// startRebuild joins a snapshot to the stream: the updates already read replay into it (the
	// ones buffered while the request was in flight), the later ones follow as they come.
	startRebuild := func(sym string, ts int64, asks, bids map[int64]int64, bd bounds) {
		st := syms[sym]
		b := rebuild{&localBook{pd: st.ref.pd, qd: st.ref.qd, asks: asks, bids: bids, snapTs: ts}, bd}
		snap := stamped{bookState{maps.Clone(asks), maps.Clone(bids)}, bd}
		if _, ok := st.states[ts]; ok {
			checkStamped(st, ts, snap)
		} else if ts > st.ref.lastTs {
			st.stampedAt[ts] = append(st.stampedAt[ts], snap)
		}
		for _, f := range st.recent {
			b.update(t, f)
		}
		st.rebuilds = append(st.rebuilds, b)
		snapshots++
	}
	// worst is the bound of a side cut at depth levels (0: not cut).
	worst := func(side map[int64]int64, depth int, buy bool) int64 {
		if len(side) < depth {
			return 0
		}
		var w int64
		for p := range side {
			if w == 0 || (buy && p < w) || (!buy && p > w) {
				w = p
			}
		}
		return w
	}
	handle := func(f map[string]any) {
		if f["event"] == "request" { // a Websocket snapshot (depth 100)
			if f["success"] != true {
				t.Fatalf("orderbook request: %v", f)
			}
			d := f["data"].(map[string]any)
			sym := fmt.Sprint(d["symbol"])
			ref := syms[sym].ref
			asks, bids := levelsMap(t, ref, d["asks"]), levelsMap(t, ref, d["bids"])
			startRebuild(sym, num(t, d["ts"]), asks, bids, bounds{worst(asks, 100, false), worst(bids, 100, true)})
			inFlight--
			return
		}
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
			if b.equalWithin(b.asks, b.bids, asks, bids) {
				rebuiltEqual++
			} else {
				rebuiltDiffer++
			}
		}
		st.rebuilds = kept
	}
	takeSnapshot := func(i int, sym string) {
		if i%4 == 3 {
			cl.send(fmt.Sprintf(`{"id":"snap%d","event":"request","params":{"type":"orderbook","symbol":"%s"}}`, i, sym))
			inFlight++
			viaWS++
			return
		}
		code, m := signedREST(t, inst, inst.Credentials, "GET", "/v1/orderbook/"+sym, url.Values{"max_level": {"1000"}})
		if code != 200 || m["success"] != true {
			t.Fatalf("snapshot %s: %d %v", sym, code, m)
		}
		ref := syms[sym].ref
		sides := [2]map[int64]int64{{}, {}}
		for i, key := range []string{"asks", "bids"} {
			for _, l := range m[key].([]any) {
				lv := l.(map[string]any)
				sides[i][ref.parse(t, lv["price"], ref.pd)] = ref.parse(t, lv["quantity"], ref.qd)
			}
		}
		startRebuild(sym, num(t, m["timestamp"]), sides[0], sides[1], bounds{worst(sides[0], 1000, false), worst(sides[1], 1000, true)})
	}

	cl.each(300*time.Millisecond, handle)
	rng := rand.New(rand.NewPCG(21, 1))
	const want = 200
	for i := range want {
		takeSnapshot(i, symbols[rng.IntN(len(symbols))])
		cl.each(time.Duration(15+rng.IntN(30))*time.Millisecond, handle)
	}
	deadline := time.Now().Add(20 * time.Second)
	pending := func() int {
		n := 0
		for _, st := range syms {
			n += len(st.rebuilds)
		}
		return n
	}
	for (pending() > 0 || inFlight > 0) && time.Now().Before(deadline) {
		cl.each(50*time.Millisecond, handle)
	}
	t.Logf("%d snapshots (%d by Websocket request): %d rebuilt books equal to the venue's, %d differ; %d stamped with a push ts: %d equal to it, %d differ; %d reference checks",
		snapshots, viaWS, rebuiltEqual, rebuiltDiffer, stampedEqual+stampedDiffer, stampedEqual, stampedDiffer, refChecks)
	if rebuiltDiffer != 0 || stampedDiffer != 0 || rebuiltEqual != want || refChecks == 0 {
		t.Fatalf("%d of %d rebuilt books and %d of %d push-stamped snapshots differ from the venue's (%d never compared)",
			rebuiltDiffer, want, stampedDiffer, stampedEqual+stampedDiffer, pending())
	}
}
