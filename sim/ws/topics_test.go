package ws

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"tradedeck/sim/market"
)

// runMarket drives the living market at rate actions per second per symbol for the test's life.
func (v *testVenue) runMarket(t testing.TB, rate float64, symbols ...string) *market.Market {
	t.Helper()
	mk, err := market.New(v.ex, market.Options{Seed: 3, Rate: rate, Symbols: symbols})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { mk.Run(ctx); close(done) }()
	t.Cleanup(func() { cancel(); <-done })
	return mk
}

func keysOf(m map[string]any) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

func requireKeys(t testing.TB, what string, m map[string]any, keys ...string) {
	t.Helper()
	want := append([]string(nil), keys...)
	sort.Strings(want)
	if got := keysOf(m); !reflect.DeepEqual(got, want) {
		t.Fatalf("%s: keys %v, want %v", what, got, want)
	}
}

func requireLevels(t testing.TB, what string, v any) int {
	t.Helper()
	ls, ok := v.([]any)
	if !ok {
		t.Fatalf("%s: levels %T", what, v)
	}
	for _, l := range ls {
		pq, ok := l.([]any)
		if !ok || len(pq) != 2 {
			t.Fatalf("%s: level %v", what, l)
		}
		for _, x := range pq {
			if _, ok := x.(json.Number); !ok {
				t.Fatalf("%s: level value %T %v", what, x, x)
			}
		}
	}
	return len(ls)
}

func TestEveryMarketTopic(t *testing.T) {
	opts := fastOptions()
	v := startVenue(t, opts)
	const sym = "PERP_BTC_USDT"
	v.runMarket(t, 400, sym)

	cl := v.market(t)
	topics := []string{
		sym + "@orderbook", sym + "@orderbook100", sym + "@orderbookupdate", sym + "@trade", sym + "@ticker",
		sym + "@bbo", sym + "@indexprice", sym + "@markprice", sym + "@openinterest", sym + "@estfundingrate",
		sym + "@aggbook10", sym + "@aggbook100", sym + "@aggbook1000",
		"tickers", "bbos", "markprices",
	}
	for iv := range klineTypes {
		topics = append(topics, sym+"@kline_"+iv)
	}
	for i, tp := range topics {
		if m := subscribe(cl, "s"+string(rune('a'+i)), tp); m["success"] != true {
			t.Fatalf("subscribe %s: %v", tp, m)
		}
	}

	// Collect until every topic has pushed at least three frames.
	frames := map[string][]map[string]any{}
	deadline := time.After(20 * time.Second)
	for missing := len(topics); missing > 0; {
		select {
		case m := <-cl.In:
			if m.Err != nil {
				t.Fatal(m.Err)
			}
			tp, _ := m.M["topic"].(string)
			if tp == "" {
				continue
			}
			frames[tp] = append(frames[tp], m.M)
			if len(frames[tp]) == 3 {
				missing--
			}
		case <-deadline:
			var short []string
			for _, tp := range topics {
				if len(frames[tp]) < 3 {
					short = append(short, tp)
				}
			}
			t.Fatalf("topics without 3 pushes: %v", short)
		}
	}

	for tp, fs := range frames {
		for _, f := range fs {
			requireKeys(t, tp+" frame", f, "topic", "ts", "data")
			requireNumber(t, f, "ts")
		}
		kind := tp
		if _, k, ok := strings.Cut(tp, "@"); ok {
			kind = k
		}
		d := fs[0]["data"]
		obj, _ := d.(map[string]any)
		switch {
		case kind == "orderbook" || kind == "orderbook100" || strings.HasPrefix(kind, "aggbook"):
			requireKeys(t, tp, obj, "symbol", "asks", "bids")
			if requireLevels(t, tp, obj["asks"]) == 0 || requireLevels(t, tp, obj["bids"]) == 0 {
				t.Fatalf("%s: empty book", tp)
			}
		case kind == "orderbookupdate":
			requireKeys(t, tp, obj, "symbol", "prevTs", "asks", "bids")
			requireLevels(t, tp, obj["asks"])
			requireLevels(t, tp, obj["bids"])
		case kind == "trade":
			requireKeys(t, tp, obj, "symbol", "price", "size", "side", "source")
			requireNumber(t, obj, "price", "size")
		case kind == "ticker":
			requireKeys(t, tp, obj, "symbol", "open", "close", "high", "low", "volume", "amount", "count")
			requireNumber(t, obj, "open", "close", "high", "low", "volume", "amount", "count")
		case kind == "bbo":
			requireKeys(t, tp, obj, "symbol", "ask", "askSize", "bid", "bidSize")
			requireNumber(t, obj, "ask", "askSize", "bid", "bidSize")
		case strings.HasPrefix(kind, "kline_"):
			requireKeys(t, tp, obj, "symbol", "type", "open", "close", "high", "low", "volume", "amount", "startTime", "endTime")
			requireNumber(t, obj, "open", "close", "high", "low", "volume", "amount", "startTime", "endTime")
			if obj["type"] != strings.TrimPrefix(kind, "kline_") {
				t.Fatalf("%s: type %v", tp, obj["type"])
			}
		case kind == "indexprice" || kind == "markprice":
			requireKeys(t, tp, obj, "symbol", "price")
			requireNumber(t, obj, "price")
		case kind == "openinterest":
			requireKeys(t, tp, obj, "symbol", "openInterest")
			requireNumber(t, obj, "openInterest")
		case kind == "estfundingrate":
			requireKeys(t, tp, obj, "symbol", "fundingRate", "fundingTs")
			requireNumber(t, obj, "fundingRate", "fundingTs")
		case kind == "tickers" || kind == "bbos" || kind == "markprices":
			arr, ok := d.([]any)
			if !ok || len(arr) != len(v.srv.symbols) {
				t.Fatalf("%s: want one entry per symbol, got %T %d", tp, d, len(arr))
			}
		default:
			t.Fatalf("unexpected topic %s", tp)
		}
		if obj != nil && obj["symbol"] != sym {
			t.Fatalf("%s: symbol %v", tp, obj["symbol"])
		}
	}

	// Cadence, from the server's own timestamps: snapshots every SnapshotEvery updates, the
	// 1 s topics every StatsInterval, orderbookupdate every UpdateInterval; ts never goes back.
	minGap := map[string]time.Duration{
		sym + "@orderbook":       opts.UpdateInterval * 5,
		sym + "@orderbookupdate": opts.UpdateInterval,
		sym + "@ticker":          opts.StatsInterval,
		"tickers":                opts.StatsInterval,
		sym + "@markprice":       opts.StatsInterval,
	}
	for tp, gap := range minGap {
		fs := frames[tp]
		for i := 1; i < len(fs); i++ {
			d := time.Duration(num64(t, fs[i]["ts"])-num64(t, fs[i-1]["ts"])) * time.Millisecond
			if d < gap/2 {
				t.Fatalf("%s: pushes %v apart, cadence %v", tp, d, gap)
			}
		}
	}
	upd := frames[sym+"@orderbookupdate"]
	for i := 1; i < len(upd); i++ {
		if prev := num64(t, upd[i]["data"].(map[string]any)["prevTs"]); prev != num64(t, upd[i-1]["ts"]) {
			t.Fatalf("prevTs chain: %d after ts %d", prev, num64(t, upd[i-1]["ts"]))
		}
	}
	bbo := frames[sym+"@bbo"]
	for i := 1; i < len(bbo); i++ {
		if reflect.DeepEqual(bbo[i]["data"], bbo[i-1]["data"]) {
			t.Fatalf("bbo pushed without a change: %v", bbo[i]["data"])
		}
	}
}

// TestSlowClientIsDropped: a client that stops reading is closed with a reason once its queue
// overflows, while a reading client keeps being served.
func TestSlowClientIsDropped(t *testing.T) {
	opts := fastOptions()
	opts.UpdateInterval = 5 * time.Millisecond
	opts.SnapshotEvery = 1
	opts.QueueSize = 16
	opts.WriteTimeout = 200 * time.Millisecond
	v := startVenue(t, opts)
	v.runMarket(t, 300)

	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	slow, _, err := websocket.Dial(ctx, v.url+MarketPath+demoApp, nil) //nolint:bodyclose // coder/websocket closes the handshake response body itself
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = slow.CloseNow() }() // the test is over either way
	for i, sym := range v.srv.symbols {
		for _, kind := range []string{"orderbook", "orderbookupdate", "aggbook10"} {
			b, _ := json.Marshal(map[string]string{"id": fmt.Sprint(i), "event": "subscribe", "topic": sym + "@" + kind})
			if err := slow.Write(ctx, websocket.MessageText, b); err != nil {
				t.Fatal(err)
			}
		}
	}
	reader := v.market(t)
	subscribe(reader, "r", "SPOT_BTC_USDT@orderbookupdate")

	deadline := time.Now().Add(30 * time.Second)
	for v.srv.Stats().SlowDrops == 0 {
		if time.Now().After(deadline) {
			t.Fatal("the client that never reads was not dropped")
		}
		reader.Next(5*time.Second, "updates for the reading client", topicIs("SPOT_BTC_USDT@orderbookupdate"))
	}
	// The reading client is still served after the slow one was dropped.
	for range 10 {
		reader.Next(5*time.Second, "updates after the drop", topicIs("SPOT_BTC_USDT@orderbookupdate"))
	}
}
