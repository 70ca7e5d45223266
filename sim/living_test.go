package sim_test

import (
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"tradedeck/fixed"
	"tradedeck/sim"
	"tradedeck/sim/faults"
	"tradedeck/sim/swapstats"
	"tradedeck/sim/ws"
)

// localBook is a client's book: fixed-point price -> quantity per side.
type localBook struct {
	pd, qd     int
	bids, asks map[int64]int64
	synced     bool
	snapTs     int64
	lastTs     int64
	buffered   []map[string]any
}

func (b *localBook) parse(t testing.TB, v any, dec int) int64 {
	t.Helper()
	x, ok := fixed.Parse([]byte(numStr(v)), dec)
	if !ok {
		t.Fatalf("bad number %v", v)
	}
	return x
}

// apply sets the levels of one side ([[p,q],...]); q = 0 removes.
func (b *localBook) apply(t testing.TB, side map[int64]int64, levels any) {
	for _, l := range levels.([]any) {
		pq := l.([]any)
		p, q := b.parse(t, pq[0], b.pd), b.parse(t, pq[1], b.qd)
		if q == 0 {
			delete(side, p)
		} else {
			side[p] = q
		}
	}
}

func levelsMap(t testing.TB, b *localBook, levels any) map[int64]int64 {
	m := map[int64]int64{}
	b.apply(t, m, levels)
	return m
}

// update applies one orderbookupdate by the venue's sync rule; false when the chain broke.
func (b *localBook) update(t testing.TB, f map[string]any) bool {
	ts := num(t, f["ts"])
	d := f["data"].(map[string]any)
	prev := num(t, d["prevTs"])
	if !b.synced {
		if ts <= b.snapTs {
			return true // older than the snapshot
		}
		if prev > b.snapTs || b.snapTs >= ts {
			t.Fatalf("first update after snapshot %d: prevTs %d ts %d", b.snapTs, prev, ts)
		}
		b.synced = true
	} else if prev != b.lastTs {
		return false
	}
	b.apply(t, b.asks, d["asks"])
	b.apply(t, b.bids, d["bids"])
	b.lastTs = ts
	return true
}

func num(t testing.TB, v any) int64 {
	t.Helper()
	n, err := v.(json.Number).Int64()
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// TestBookFromSnapshotAndUpdates rebuilds books from one REST snapshot each plus the
// orderbookupdate stream of a busy market, and compares them with the venue's own @orderbook
// snapshot of the same ts, over thousands of updates.
func TestBookFromSnapshotAndUpdates(t *testing.T) {
	inst := startSim(t, sim.Options{Seed: 11, Living: sim.LivingOptions{
		Rate:    300,
		Streams: ws.Options{UpdateInterval: 20 * time.Millisecond},
	}})
	symbols := []string{"SPOT_BTC_USDT", "SPOT_ETH_USDT", "SPOT_DOGE_USDT", "SPOT_XRP_USDT", "PERP_BTC_USDT", "PERP_ETH_USDT", "PERP_SOL_USDT", "PERP_WOO_USDT"}
	books := map[string]*localBook{}
	for _, r := range inst.Exchange.Rules() {
		books[r.Symbol] = &localBook{pd: r.PriceDecimals, qd: r.QtyDecimals, bids: map[int64]int64{}, asks: map[int64]int64{}}
	}
	cl := dialWS(t, inst.Endpoints.MarketStreamURL(inst.Credentials.ApplicationID))
	for i, s := range symbols {
		cl.subscribe(fmt.Sprint("u", i), s+"@orderbookupdate")
		cl.subscribe(fmt.Sprint("o", i), s+"@orderbook")
	}
	// Let updates buffer, as a client does while its snapshot request is in flight.
	cl.each(100*time.Millisecond, func(f map[string]any) {
		if tp, _ := f["topic"].(string); len(tp) > 0 {
			d, _ := f["data"].(map[string]any)
			if b := books[fmt.Sprint(d["symbol"])]; b != nil {
				b.buffered = append(b.buffered, f)
			}
		}
	})
	for _, s := range symbols {
		code, m := signedREST(t, inst, inst.Credentials, "GET", "/v1/orderbook/"+s, url.Values{"max_level": {"1000"}})
		if code != 200 || m["success"] != true {
			t.Fatalf("snapshot %s: %d %v", s, code, m)
		}
		b := books[s]
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
	}

	updates, compared, changedLevels := 0, 0, 0
	handle := func(f map[string]any) {
		tp, _ := f["topic"].(string)
		d, _ := f["data"].(map[string]any)
		b := books[fmt.Sprint(d["symbol"])]
		if b == nil {
			return
		}
		if strings.HasSuffix(tp, "@orderbookupdate") {
			if !b.update(t, f) {
				t.Fatalf("%s: prevTs chain broken without a fault at ts %v", d["symbol"], f["ts"])
			}
			if b.synced {
				updates++
				changedLevels += len(d["asks"].([]any)) + len(d["bids"].([]any))
			}
			return
		}
		if !b.synced || num(t, f["ts"]) != b.lastTs {
			return
		}
		asks, bids := levelsMap(t, b, d["asks"]), levelsMap(t, b, d["bids"])
		if !maps.Equal(asks, b.asks) || !maps.Equal(bids, b.bids) {
			t.Fatalf("%s at ts %d: rebuilt book (%d asks, %d bids) differs from the venue's (%d asks, %d bids)",
				d["symbol"], b.lastTs, len(b.asks), len(b.bids), len(asks), len(bids))
		}
		compared++
	}
	for _, b := range books {
		pending := b.buffered
		b.buffered = nil
		for _, f := range pending {
			handle(f)
		}
	}
	deadline := time.Now().Add(40 * time.Second)
	for (updates < 2000 || compared < 40) && time.Now().Before(deadline) {
		cl.each(200*time.Millisecond, handle)
	}
	if updates < 2000 || compared < 40 {
		t.Fatalf("only %d updates and %d comparisons", updates, compared)
	}
	t.Logf("%d updates (%d level changes) applied, %d books compared equal", updates, changedLevels, compared)
}

// TestSkippedUpdateBreaksChain: a withheld orderbookupdate shows as prevTs naming a push the
// client never saw, once per injected skip, and the counters say how many were injected.
func TestSkippedUpdateBreaksChain(t *testing.T) {
	inst := startSim(t, sim.Options{Seed: 5, Living: sim.LivingOptions{
		Rate:    50,
		Streams: ws.Options{UpdateInterval: 20 * time.Millisecond},
	}})
	const sym = "PERP_BTC_USDT"
	cl := dialWS(t, inst.Endpoints.MarketStreamURL(inst.Credentials.ApplicationID))
	cl.subscribe("u", sym+"@orderbookupdate")

	var last int64
	breaks := 0
	read := func(n int) {
		for range n {
			f := cl.next("update", func(m map[string]any) bool { return m["topic"] == sym+"@orderbookupdate" })
			prev := num(t, f["data"].(map[string]any)["prevTs"])
			if last != 0 && prev != last {
				breaks++
			}
			last = num(t, f["ts"])
		}
	}
	read(10)
	if breaks != 0 {
		t.Fatalf("%d breaks before any fault", breaks)
	}
	inst.Faults.SkipNextUpdate(sym)
	read(10)
	if breaks != 1 || inst.Faults.SkippedBySymbol(sym) != 1 {
		t.Fatalf("one skip: %d breaks seen, %d injected", breaks, inst.Faults.SkippedBySymbol(sym))
	}
	inst.Faults.Set(faults.Config{SkipUpdateEvery: 4})
	read(40)
	inst.Faults.Set(faults.Config{})
	want := inst.Faults.SkippedBySymbol(sym)
	read(5)
	if int64(breaks) != want || want < 8 {
		t.Fatalf("every 4th: %d breaks seen, %d injected", breaks, want)
	}
	if c := inst.Faults.Counts(); c.SkippedUpdates != want {
		t.Fatalf("counts %+v", c)
	}
}

// TestSwapStatsMounted: the swap statistics answer under the sim's StatsURL.
func TestSwapStatsMounted(t *testing.T) {
	inst := startSim(t, sim.Options{Seed: 4, Living: sim.LivingOptions{NoMarket: true}})
	resp, err := http.Get(inst.Endpoints.StatsURL + "/stat?period=1d&network=" + swapstats.Networks[0])
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var body struct {
		Status string            `json:"status"`
		Data   []json.RawMessage `json:"data"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil || resp.StatusCode != 200 || body.Status != "ok" || len(body.Data) == 0 {
		t.Fatalf("stat: %d %+v %v", resp.StatusCode, body, err)
	}
}
