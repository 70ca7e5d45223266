package sim_test

import (
	"errors"
	"net/url"
	"strconv"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/shopspring/decimal"

	"tradedeck/sim"
	"tradedeck/sim/exchange"
	"tradedeck/sim/ws"
	"tradedeck/venue"
)

func TestPrivateAuth(t *testing.T) {
	inst := startSim(t, sim.Options{Seed: 2, Living: sim.LivingOptions{NoMarket: true}})
	creds := inst.Credentials
	url := inst.Endpoints.PrivateStreamURL(creds.ApplicationID)

	// Private topics before auth.
	cl := dialWS(t, url)
	cl.send(`{"id":"1","event":"subscribe","topic":"executionreport"}`)
	if m := cl.next("reply", func(m map[string]any) bool { return m["id"] == "1" }); m["success"] != false || m["errorMsg"] != "Auth is needed." {
		t.Fatalf("before auth: %v", m)
	}

	// Success, then subscriptions work.
	ok := authPrivate(t, inst, creds)
	ok.subscribe("2", "executionreport")

	now := time.Now().UnixMilli()
	fails := []struct {
		name, path, key, sign string
		ts                    int64
	}{
		{"bad signature", url, creds.APIKey, venue.SignWS("not the secret", now), now},
		{"expired timestamp", url, creds.APIKey, venue.SignWS(creds.APISecret, now-301_000), now - 301_000},
		{"unknown key", url, "nope", venue.SignWS(creds.APISecret, now), now},
		{"key of another application", inst.Endpoints.PrivateStreamURL(inst.SubCredentials.ApplicationID), creds.APIKey, venue.SignWS(creds.APISecret, now), now},
	}
	for _, f := range fails {
		c := dialWS(t, f.path)
		c.send(`{"id":"a","event":"auth","params":{"apikey":"` + f.key + `","sign":"` + f.sign + `","timestamp":"` + strconv.FormatInt(f.ts, 10) + `"}}`)
		m := c.next(f.name+" reply", func(m map[string]any) bool { return m["id"] == "a" })
		if m["success"] != false || m["event"] != "auth" || m["errorMsg"] == "" {
			t.Fatalf("%s: %v", f.name, m)
		}
		// then the connection closes
		select {
		case fm := <-c.In:
			var ce websocket.CloseError
			if fm.Err == nil || !errors.As(fm.Err, &ce) {
				t.Fatalf("%s: want a close, got %v %v", f.name, fm.M, fm.Err)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("%s: connection not closed", f.name)
		}
	}

	// Auth on the market stream is refused without closing.
	mk := dialWS(t, inst.Endpoints.MarketStreamURL(creds.ApplicationID))
	mk.send(`{"id":"m","event":"auth","params":{"apikey":"` + creds.APIKey + `","sign":"x","timestamp":"1"}}`)
	if m := mk.next("market auth reply", func(m map[string]any) bool { return m["id"] == "m" }); m["success"] != false {
		t.Fatalf("market auth: %v", m)
	}
	mk.subscribe("after", "tickers")
}

func dec(s string) decimal.Decimal { return decimal.RequireFromString(s) }

// TestExecutionReportsAndAccountTopics: place -> partial fill -> fill, place -> cancel, a
// POST_ONLY refused with its reason, and the position, balance and positioninfo pushes after
// a fill, all for the authenticated account only.
func TestExecutionReportsAndAccountTopics(t *testing.T) {
	inst := startSim(t, sim.Options{Seed: 2, Living: sim.LivingOptions{
		NoMarket: true,
		Streams:  ws.Options{StatsInterval: 50 * time.Millisecond},
	}})
	creds := inst.Credentials
	cl := authPrivate(t, inst, creds)
	for _, tp := range []string{"executionreport", "balance", "position", "positioninfo"} {
		cl.subscribe("s-"+tp, tp)
	}
	// The subaccount's stream must not see the main account's data.
	other := authPrivate(t, inst, inst.SubCredentials)
	other.subscribe("o1", "executionreport")
	other.subscribe("o2", "balance")

	const sym = "PERP_BTC_USDT"
	bbo, _ := inst.Exchange.BestBidAsk(sym)
	price := bbo.Bid.Add(bbo.Ask).Div(decimal.NewFromInt(2)).Truncate(1) // inside the spread
	code, m := signedREST(t, inst, creds, "POST", "/v1/order", url.Values{
		"symbol": {sym}, "order_type": {"LIMIT"}, "side": {"SELL"}, "order_price": {price.String()},
		"order_quantity": {"0.002"}, "client_order_id": {"77"},
	})
	if code != 200 || m["success"] != true {
		t.Fatalf("place: %d %v", code, m)
	}
	oid := numStr(m["order_id"])

	report := func(status string) map[string]any {
		t.Helper()
		f := cl.next("executionreport "+status, func(m map[string]any) bool { return m["topic"] == "executionreport" })
		d := f["data"].(map[string]any)
		if d["status"] != status || numStr(d["orderId"]) != oid {
			t.Fatalf("want %s of %s, got %v", status, oid, d)
		}
		return d
	}
	d := report("NEW")
	if numStr(d["clientOrderId"]) != "77" || d["side"] != "SELL" || d["type"] != "LIMIT" || numStr(d["quantity"]) != "0.002" || numStr(d["price"]) != price.String() {
		t.Fatalf("NEW: %v", d)
	}

	taker := inst.Exchange.InternalAccount("TEST_TAKER")
	buy := func() {
		t.Helper()
		if _, err := inst.Exchange.PlaceOrder(taker, exchange.OrderRequest{Symbol: sym, Type: exchange.IOC, Side: exchange.Buy,
			Price: price, HasPrice: true, Quantity: dec("0.001"), HasQuantity: true}); err != nil {
			t.Fatal(err)
		}
	}
	buy()
	d = report("PARTIAL_FILLED")
	if numStr(d["executedQuantity"]) != "0.001" || numStr(d["executedPrice"]) != price.String() || d["maker"] != true ||
		numStr(d["tradeId"]) == "0" || numStr(d["totalExecutedQuantity"]) != "0.001" || d["feeAsset"] != "USDT" {
		t.Fatalf("partial: %v", d)
	}
	if fee := dec(numStr(d["fee"])); !fee.Equal(price.Mul(dec("0.001")).Mul(dec("0.0002"))) {
		t.Fatalf("maker fee %s at 2 bps of %s", fee, price.Mul(dec("0.001")))
	}
	firstTrade := numStr(d["tradeId"])
	buy()
	d = report("FILLED")
	if numStr(d["totalExecutedQuantity"]) != "0.002" || numStr(d["tradeId"]) == firstTrade || numStr(d["avgPrice"]) != price.String() {
		t.Fatalf("filled: %v", d)
	}

	pos := cl.next("position", func(m map[string]any) bool { return m["topic"] == "position" })
	arr := pos["data"].([]any)
	p := arr[0].(map[string]any)
	if p["symbol"] != sym || numStr(p["holding"]) == "0" {
		t.Fatalf("position: %v", pos)
	}
	bal := cl.next("balance", func(m map[string]any) bool { return m["topic"] == "balance" })
	if _, ok := bal["data"].(map[string]any)["balances"].(map[string]any)["USDT"]; !ok {
		t.Fatalf("balance: %v", bal)
	}
	pi := cl.next("positioninfo", func(m map[string]any) bool { return m["topic"] == "positioninfo" })
	pid := pi["data"].(map[string]any)
	usdt, ok := pid["positions"].(map[string]any)["USDT"].(map[string]any)
	if !ok || pid["marginMode"] != "FUTURES" || numStr(usdt["holding"]) == "" {
		t.Fatalf("positioninfo: %v", pi)
	}

	// place -> cancel
	low := bbo.Bid.Mul(dec("0.98")).Truncate(1)
	code, m = signedREST(t, inst, creds, "POST", "/v1/order", url.Values{
		"symbol": {sym}, "order_type": {"LIMIT"}, "side": {"BUY"}, "order_price": {low.String()}, "order_quantity": {"0.001"},
	})
	if code != 200 {
		t.Fatalf("place 2: %v", m)
	}
	oid = numStr(m["order_id"])
	report("NEW")
	code, m = signedREST(t, inst, creds, "DELETE", "/v1/order", url.Values{"symbol": {sym}, "order_id": {oid}})
	if code != 200 {
		t.Fatalf("cancel: %v", m)
	}
	if d := report("CANCELLED"); d["reason"] == "" {
		t.Fatalf("cancel without reason: %v", d)
	}

	// a POST_ONLY that would take is refused with a reason
	code, m = signedREST(t, inst, creds, "POST", "/v1/order", url.Values{
		"symbol": {sym}, "order_type": {"POST_ONLY"}, "side": {"BUY"}, "order_price": {bbo.Ask.String()}, "order_quantity": {"0.001"},
	})
	if code != 200 {
		t.Fatalf("place 3: %v", m)
	}
	oid = numStr(m["order_id"])
	report("NEW")
	if d := report("CANCELLED"); d["reason"] != "POST_ONLY order would take liquidity" {
		t.Fatalf("post-only refusal: %v", d)
	}

	// Nothing of it reached the subaccount's stream.
	other.subscribe("o3", "positioninfo")
	other.next("the subaccount's own positioninfo", func(m map[string]any) bool {
		if m["topic"] == "executionreport" || m["topic"] == "balance" {
			t.Fatalf("subaccount saw %v", m)
		}
		return m["topic"] == "positioninfo"
	})
}
