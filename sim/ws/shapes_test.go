package ws

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strconv"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"tradedeck/internal/testkit"
	"tradedeck/sim/exchange"
	"tradedeck/venue"
)

// shape reduces a decoded JSON value to its structure: object keys with their shapes, the
// first element of an array, and the kind of each scalar (a number must be a JSON number).
// Maps keyed by token or symbol (balances, positions) reduce to one "*" entry.
func shape(v any) any {
	switch v := v.(type) {
	case map[string]any:
		out := map[string]any{}
		for k, x := range v {
			if k == "balances" || k == "positions" {
				out[k] = byName(x)
				continue
			}
			out[k] = shape(x)
		}
		return out
	case []any:
		if len(v) == 0 {
			return []any{}
		}
		return []any{shape(v[0])}
	case json.Number:
		return "number"
	case string:
		return "string"
	case bool:
		return "bool"
	case nil:
		return "null"
	}
	return "?"
}

func byName(v any) any {
	m, ok := v.(map[string]any)
	if !ok {
		return shape(v)
	}
	for _, x := range m {
		return map[string]any{"*": shape(x)}
	}
	return map[string]any{}
}

func fixture(t *testing.T, name string) map[string]any {
	t.Helper()
	d := json.NewDecoder(bytes.NewReader(testkit.ReadTestdata(t, name)))
	d.UseNumber()
	var m map[string]any
	if err := d.Decode(&m); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return m
}

// TestFramesMatchRecordedShapes compares every frame the sim sends with the venue's recorded
// sample of the same kind: same keys at every level, numbers where it has numbers.
func TestFramesMatchRecordedShapes(t *testing.T) {
	v := startVenue(t, fastOptions())
	const sym = "SPOT_BTC_USDT"
	v.runMarket(t, 200, sym)
	cl := v.market(t)
	got := map[string]map[string]any{}

	got["subscribe_reply.json"] = subscribe(cl, "c1", sym+"@orderbook")
	got["error_subscribe.json"] = subscribe(cl, "c2", "SPOT_WOO_USDC@orderbook")
	cl.send(`{"id":"c3","event":"unsubscribe","topic":"` + sym + `@orderbook"}`)
	got["unsubscribe_reply.ccxt-2025.json"] = cl.Next(5*time.Second, "unsubscribe", replyTo("c3"))
	cl.send(`{"event":"ping"}`)
	got["pong.json"] = cl.Next(5*time.Second, "pong", func(m map[string]any) bool { return m["event"] == "pong" })
	cl.send(`{"id":"c4","event":"request","params":{"type":"orderbook","symbol":"` + sym + `"}}`)
	got["request_orderbook_reply.json"] = cl.Next(5*time.Second, "request", replyTo("c4"))

	topics := map[string]string{
		sym + "@orderbook": "orderbook.json", sym + "@orderbookupdate": "orderbookupdate.json",
		sym + "@trade": "trade.json", sym + "@ticker": "ticker.json", "tickers": "tickers.json",
		sym + "@bbo": "bbo.json", "bbos": "bbos.json", sym + "@kline_1m": "kline_1m.json",
	}
	for tp := range topics {
		subscribe(cl, "t-"+tp, tp)
	}
	for tp, file := range topics {
		got[file] = cl.Next(10*time.Second, tp, func(m map[string]any) bool {
			d, _ := m["data"].(map[string]any)
			if tp == sym+"@orderbookupdate" { // one that changed both sides, as the sample did
				a, _ := d["asks"].([]any)
				b, _ := d["bids"].([]any)
				return m["topic"] == tp && len(a) > 0 && len(b) > 0
			}
			return m["topic"] == tp
		})
	}

	// Private stream: auth, a place and a fill of the demo account.
	pc := v.private(t)
	cl2 := pc
	cl2.send(`{"id":"p0","event":"subscribe","topic":"executionreport"}`)
	got["error_auth_needed.ccxt.json"] = cl2.Next(5*time.Second, "auth needed", replyTo("p0"))
	ts := time.Now().UnixMilli()
	cl2.send(`{"id":"123r","event":"auth","params":{"apikey":"` + demoKey + `","sign":"` + venue.SignWS(demoSecret, ts) + `","timestamp":"` + strconv.FormatInt(ts, 10) + `"}}`)
	got["auth_reply.json"] = cl2.Next(5*time.Second, "auth", replyTo("123r"))
	for _, tp := range []string{"executionreport", "balance", "positioninfo"} {
		subscribe(cl2, "p-"+tp, tp)
	}
	demo, _ := v.ex.AccountByName("DEMO_MAIN")
	if _, err := v.ex.PlaceOrder(demo, exchange.OrderRequest{Symbol: sym, Type: exchange.Market, Side: exchange.Buy,
		Quantity: decimal.RequireFromString("0.001"), HasQuantity: true}); err != nil {
		t.Fatal(err)
	}
	got["executionreport.json"] = cl2.Next(5*time.Second, "fill", func(m map[string]any) bool {
		d, _ := m["data"].(map[string]any)
		return m["topic"] == "executionreport" && d["status"] == "FILLED"
	})
	got["balance.json"] = cl2.Next(5*time.Second, "balance", topicIs("balance"))
	got["positioninfo.json"] = cl2.Next(5*time.Second, "positioninfo", topicIs("positioninfo"))

	for file, frame := range got {
		want, have := shape(fixture(t, file)), shape(frame)
		if !reflect.DeepEqual(want, have) {
			wb, _ := json.Marshal(want)
			hb, _ := json.Marshal(have)
			t.Errorf("%s:\nrecorded %s\nsim      %s", file, wb, hb)
		}
	}
}
