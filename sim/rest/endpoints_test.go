package rest

import (
	"strconv"
	"testing"
	"time"

	"github.com/shopspring/decimal"
)

// TestEveryEndpoint drives one trading story through every endpoint and
// checks each reply against the real venue's sample shape and the values
// the story implies.
func TestEveryEndpoint(t *testing.T) {
	for _, strNums := range []bool{false, true} {
		t.Run("string_numbers="+strconv.FormatBool(strNums), func(t *testing.T) { everyEndpoint(t, strNums) })
	}
}

func decOf(t *testing.T, v any) decimal.Decimal {
	t.Helper()
	d, err := decimal.NewFromString(str(v))
	if err != nil {
		t.Fatalf("not a number: %#v", v)
	}
	return d
}

func eqDec(t *testing.T, what string, v any, want string) {
	t.Helper()
	if got := decOf(t, v); !got.Equal(decimal.RequireFromString(want)) {
		t.Fatalf("%s = %s, want %s", what, got, want)
	}
}

// noBareNumbers fails when a reply written with StringNumbers holds a JSON number.
func noBareNumbers(t *testing.T, where string, v any) {
	t.Helper()
	switch x := v.(type) {
	case float64:
		t.Fatalf("%s: bare number %v", where, x)
	case map[string]any:
		for k, e := range x {
			noBareNumbers(t, where+"."+k, e)
		}
	case []any:
		for _, e := range x {
			noBareNumbers(t, where+"[]", e)
		}
	}
}

func everyEndpoint(t *testing.T, strNums bool) {
	e := newEnv(t, Options{StringNumbers: strNums, NoRateLimits: true})
	check := func(r reply, sampleName string) reply {
		t.Helper()
		r.ok(t)
		if sampleName != "" {
			keysOf(t, sampleName, sample(t, sampleName), r.body, "")
		}
		if strNums {
			noBareNumbers(t, sampleName, r.body)
		}
		return r
	}
	const spot, perp = "SPOT_BTC_USDT", "PERP_BTC_USDT"
	order := func(c *client, kv ...string) map[string]any {
		return check(c.do("POST", "/v1/order", vals(kv...)), "v1_order_post.json").body
	}

	// the story: BOB quotes 100/101, ALICE buys 0.5 at 101 (client id 5, tag t1) and bids 0.2 at 95
	order(e.bob, "symbol", spot, "order_type", "LIMIT", "side", "BUY", "order_price", "100", "order_quantity", "1")
	order(e.bob, "symbol", spot, "order_type", "LIMIT", "side", "SELL", "order_price", "101", "order_quantity", "1")
	buy := order(e.alice, "symbol", spot, "order_type", "LIMIT", "side", "BUY", "order_price", "101", "order_quantity", "0.5",
		"client_order_id", "5", "order_tag", "t1")
	if buy["order_type"] != "LIMIT" || num64(t, buy["client_order_id"]) != 5 || buy["order_amount"] != nil {
		t.Fatalf("send order reply %v", buy)
	}
	eqDec(t, "order_price", buy["order_price"], "101")
	buyID := strconv.FormatInt(num64(t, buy["order_id"]), 10)
	rest := order(e.alice, "symbol", spot, "order_type", "LIMIT", "side", "BUY", "order_price", "95", "order_quantity", "0.2", "client_order_id", "6")
	mkt := order(e.alice, "symbol", spot, "order_type", "MARKET", "side", "BUY", "order_amount", "20.2", "order_price", "1")
	if mkt["order_price"] != nil || mkt["order_quantity"] != nil {
		t.Fatalf("market by amount reply %v", mkt)
	}
	eqDec(t, "order_amount", mkt["order_amount"], "20.2")

	// public
	check(e.public("/v1/public/info/"+spot), "v1_public_info_symbol.json")
	if r := check(e.public("/v1/public/info"), ""); len(r.body["rows"].([]any)) != 2 {
		t.Fatalf("%s", r.raw)
	}
	mt := check(e.public("/v1/public/market_trades?symbol="+spot+"&limit=1"), "v1_public_market_trades.json")
	if rows := mt.body["rows"].([]any); len(rows) != 1 || rows[0].(map[string]any)["side"] != "BUY" {
		t.Fatalf("%s", mt.raw)
	}
	tokens := check(e.public("/v1/public/token"), "").body["rows"].([]any)
	if len(tokens) != 2 || tokens[0].(map[string]any)["token"] != "ETH_USDT" || tokens[0].(map[string]any)["balance_token"] != "USDT" {
		t.Fatalf("tokens %v", tokens)
	}
	nets := check(e.public("/v1/public/token_network"), "").body["rows"].([]any)
	if n := nets[0].(map[string]any); n["protocol"] != "ERC20" || n["token"] != "USDT" || str(n["allow_deposit"]) != "1" {
		t.Fatalf("networks %v", nets)
	}
	ob := check(e.public("/v1/public/orderbook/"+spot+"?max_level=5"), "v1_orderbook_symbol.json")
	bids := ob.body["bids"].([]any)
	if len(bids) != 2 || decOf(t, bids[0].(map[string]any)["price"]).LessThan(decOf(t, bids[1].(map[string]any)["price"])) {
		t.Fatalf("bids not descending: %s", ob.raw)
	}
	asks := ob.body["asks"].([]any)
	eqDec(t, "best ask", asks[0].(map[string]any)["price"], "101")
	eqDec(t, "best ask size", asks[0].(map[string]any)["quantity"], "0.3")
	check(e.alice.do("GET", "/v1/orderbook/"+spot, vals("max_level", "1")), "v1_orderbook_symbol.json")
	check(e.public("/v1/public/system_info"), "v1_public_system_info.json")
	kl := check(e.alice.do("GET", "/v1/kline", vals("symbol", spot, "type", "1m", "limit", "5")), "v1_public_kline.json")
	k0 := kl.body["rows"].([]any)[0].(map[string]any)
	eqDec(t, "kline volume", k0["volume"], "0.7")
	eqDec(t, "kline amount", k0["amount"], "70.7")
	check(e.public("/v1/public/kline?symbol="+spot+"&type=1h"), "v1_public_kline.json")
	hist := check(e.public("/pub/v1/hist/kline?symbol="+spot+"&type=5m&start_time=0"), "")
	if meta := hist.body["meta"].(map[string]any); num64(t, meta["records_per_page"]) != 100 || num64(t, meta["total"]) != 1 {
		t.Fatalf("hist kline %s", hist.raw)
	}

	// orders and trades
	one := check(e.alice.do("GET", "/v1/order/"+buyID, nil), "v1_order_oid.json")
	if one.body["status"] != "FILLED" || one.body["order_tag"] != "t1" || one.body["fee_asset"] != "BTC" {
		t.Fatalf("%s", one.raw)
	}
	eqDec(t, "total_fee", one.body["total_fee"], "0.00025")
	eqDec(t, "average_executed_price", one.body["average_executed_price"], "101")
	tx := one.body["Transactions"].([]any)[0].(map[string]any)
	tid := strconv.FormatInt(num64(t, tx["id"]), 10)
	check(e.alice.do("GET", "/v1/client/order/5", nil), "v1_client_order_cid.json")
	check(e.alice.do("GET", "/v1/order/"+buyID+"/trades", nil), "v1_order_oid_trades.json")
	tr := check(e.alice.do("GET", "/v1/client/trade/"+tid, nil), "v1_client_trade_tid.json")
	if str(tr.body["is_maker"]) != "0" || tr.body["side"] != "BUY" {
		t.Fatalf("%s", tr.raw)
	}
	trades := check(e.alice.do("GET", "/v1/client/trades", vals("symbol", spot)), "v1_client_trades.recorded-2024.json")
	if num64(t, trades.body["meta"].(map[string]any)["total"]) != 2 {
		t.Fatalf("%s", trades.raw)
	}
	if r := check(e.alice.do("GET", "/v1/client/trades", vals("order_tag", "t1")), ""); len(r.body["rows"].([]any)) != 1 {
		t.Fatalf("%s", r.raw)
	}
	open := check(e.alice.do("GET", "/v1/orders", vals("status", "INCOMPLETE")), "v1_orders_incomplete.recorded-2024.json")
	if rows := open.body["rows"].([]any); len(rows) != 1 || num64(t, rows[0].(map[string]any)["order_id"]) != num64(t, rest["order_id"]) {
		t.Fatalf("%s", open.raw)
	}
	all := check(e.alice.do("GET", "/v1/orders", nil), "v1_orders.json")
	if meta := all.body["meta"].(map[string]any); num64(t, meta["total"]) != 3 || num64(t, meta["records_per_page"]) != 25 || num64(t, meta["current_page"]) != 1 {
		t.Fatalf("%s", all.raw)
	}
	for status, n := range map[string]int{"COMPLETED": 2, "FILLED": 2, "NEW": 1, "CANCELLED": 0} {
		if r := check(e.alice.do("GET", "/v1/orders", vals("status", status, "symbol", spot)), ""); len(r.body["rows"].([]any)) != n {
			t.Fatalf("%s: %s", status, r.raw)
		}
	}
	for kv, n := range map[[2]string]int{{"side", "SELL"}: 0, {"order_type", "MARKET"}: 1, {"order_tag", "t1"}: 1, {"end_t", "1"}: 0, {"page", "2"}: 0} {
		if r := check(e.alice.do("GET", "/v1/orders", vals(kv[0], kv[1])), ""); len(r.body["rows"].([]any)) != n {
			t.Fatalf("%v: %s", kv, r.raw)
		}
	}

	// account
	h1 := check(e.alice.do("GET", "/v1/client/holding", nil), "v1_client_holding.json")
	eqDec(t, "BTC holding", h1.body["holding"].(map[string]any)["BTC"], "2.69965")  // 2 + 0.5 + 0.2 - 0.00025 - 0.0001
	eqDec(t, "USDT holding", h1.body["holding"].(map[string]any)["USDT"], "9929.3") // 10000 - 50.5 - 20.2 (before the withdrawal)
	h2 := check(e.alice.do("GET", "/v2/client/holding", vals("all", "true")), "")
	for _, row := range h2.body["holding"].([]any) {
		r := row.(map[string]any)
		if r["token"] == "USDT" {
			eqDec(t, "USDT frozen", r["frozen"], "19")
		}
		for _, k := range []string{"token", "holding", "frozen", "interest", "outstanding_holding", "pending_exposure", "updated_time"} {
			if _, ok := r[k]; !ok {
				t.Fatalf("holding v2 row lacks %s", k)
			}
		}
	}
	check(e.alice.do("GET", "/v1/client/token", nil), "")
	info := check(e.alice.do("GET", "/v1/client/info", nil), "v1_client_info.json")
	app := info.body["application"].(map[string]any)
	if app["application_id"] != "app-alice" || app["account_mode"] != "PURE_SPOT" {
		t.Fatalf("%s", info.raw)
	}
	eqDec(t, "taker_fee_rate", app["taker_fee_rate"], "5")
	dep := check(e.alice.do("GET", "/v1/asset/deposit", vals("token", "ETH_USDT")), "")
	if s, _ := dep.body["address"].(string); len(s) != 42 {
		t.Fatalf("%s", dep.raw)
	}
	ah := check(e.alice.do("GET", "/v1/asset/history", vals("token_side", "DEPOSIT", "balance_token", "BTC")), "")
	if rows := ah.body["rows"].([]any); len(rows) != 1 || rows[0].(map[string]any)["status"] != "COMPLETED" {
		t.Fatalf("%s", ah.raw)
	}
	if _, ok := ah.body["meta"].(map[string]any)["total"]; ok {
		t.Fatal("asset history meta has total")
	}
	wd := check(e.alice.do("POST", "/v1/asset/withdraw", vals("token", "ETH_USDT", "address", "0x00000000219ab540356cbb839cbe05303d7705fa", "amount", "10")), "")
	if wd.body["withdraw_id"] == "" {
		t.Fatalf("%s", wd.raw)
	}
	wrow := check(e.alice.do("GET", "/v1/asset/history", vals("token_side", "WITHDRAW")), "").body["rows"].([]any)[0].(map[string]any)
	if wrow["fee_token"] != "USDT" || wrow["token"] != "ETH_USDT" {
		t.Fatalf("withdrawal row %v", wrow)
	}
	eqDec(t, "fee_amount", wrow["fee_amount"], "2")
	e.alice.do("POST", "/v1/asset/withdraw", vals("token", "ETH_USDT", "address", "0x1", "amount", "99999")).fails(t, 400, -1008)
	check(e.alice.do("POST", "/v1/client/account_mode", vals("account_mode", "FUTURES")), "")
	check(e.alice.do("POST", "/v1/client/leverage", vals("leverage", "20")), "")
	if app := check(e.alice.do("GET", "/v1/client/info", nil), "").body["application"].(map[string]any); app["account_mode"] != "FUTURES" || num64(t, app["futures_leverage"]) != 20 {
		t.Fatalf("%v", app)
	}

	// perpetuals: ALICE buys 1 from BOB at 100.0
	order(e.bob, "symbol", perp, "order_type", "LIMIT", "side", "SELL", "order_price", "100.0", "order_quantity", "1")
	order(e.alice, "symbol", perp, "order_type", "MARKET", "side", "BUY", "order_quantity", "1")
	pos := check(e.alice.do("GET", "/v1/positions", nil), "v1_positions.json")
	p0 := pos.body["positions"].([]any)[0].(map[string]any)
	eqDec(t, "holding", p0["holding"], "1")
	eqDec(t, "average_open_price", p0["average_open_price"], "100")
	check(e.alice.do("GET", "/v1/position/"+perp, nil), "v1_position_symbol.json")
	// ALICE borrows BTC (FUTURES mode margins spot too): sells 3 with 2.6998 held
	order(e.bob, "symbol", spot, "order_type", "LIMIT", "side", "BUY", "order_price", "99", "order_quantity", "5")
	order(e.alice, "symbol", spot, "order_type", "LIMIT", "side", "SELL", "order_price", "99", "order_quantity", "3")
	eqDec(t, "borrowed BTC", check(e.alice.do("GET", "/v1/client/holding", nil), "").body["holding"].(map[string]any)["BTC"], "-0.30035")

	// eight hours later: funding and interest
	e.clock.Advance(8 * time.Hour)
	e.ex.Tick()
	fr := check(e.public("/v1/public/funding_rates"), "").body["rows"].([]any)[0].(map[string]any)
	for _, k := range []string{"symbol", "est_funding_rate", "est_funding_rate_timestamp", "last_funding_rate", "last_funding_rate_timestamp", "next_funding_time"} {
		if _, ok := fr[k]; !ok {
			t.Fatalf("funding rate lacks %s", k)
		}
	}
	eqDec(t, "last_funding_rate", fr["last_funding_rate"], "0.0001")
	one1 := check(e.public("/v1/public/funding_rate/"+perp), "")
	if one1.body["symbol"] != perp || num64(t, one1.body["next_funding_time"]) != time.Date(2024, 1, 1, 16, 0, 0, 0, time.UTC).UnixMilli() {
		t.Fatalf("%s", one1.raw)
	}
	fh := check(e.public("/v1/public/funding_rate_history?symbol="+perp), "")
	if rows := fh.body["rows"].([]any); len(rows) != 1 {
		t.Fatalf("%s", fh.raw)
	}
	check(e.public("/v1/public/futures"), "")
	fut := check(e.public("/v1/public/futures/"+perp), "").body["info"].(map[string]any)
	eqDec(t, "open_interest", fut["open_interest"], "1")
	eqDec(t, "24h_volume", fut["24h_volume"], "1")
	ff := check(e.alice.do("GET", "/v1/funding_fee/history", nil), "")
	f0 := ff.body["rows"].([]any)[0].(map[string]any)
	if f0["payment_type"] != "Pay" || f0["symbol"] != perp {
		t.Fatalf("%s", ff.raw)
	}
	eqDec(t, "funding_fee", f0["funding_fee"], "0.01") // 1 * 100 * 0.0001

	ti := check(e.alice.do("GET", "/v1/token_interest", nil), "")
	if r := ti.body["rows"].([]any)[1].(map[string]any); r["token"] != "BTC" || r["current_hourly_base_rate"] != "0.02%" || r["current_annual_base_rate"] != "175.2%" {
		t.Fatalf("%s", ti.raw)
	}
	check(e.alice.do("GET", "/v1/token_interest/BTC", nil), "")
	ih := check(e.alice.do("GET", "/v1/interest/history", vals("token", "BTC", "side", "LOAN")), "")
	rows := ih.body["rows"].([]any)
	if len(rows) != 8 {
		t.Fatalf("interest rows %d: %s", len(rows), ih.raw)
	}
	if _, isStr := rows[0].(map[string]any)["interest"].(string); !isStr {
		t.Fatal("interest is not a string")
	}
	check(e.alice.do("POST", "/v1/interest/repay", vals("token", "BTC", "amount", "0.00001")), "")

	// subaccounts
	subs := check(e.alice.do("GET", "/v1/sub_account/all", nil), "").body["rows"].([]any)
	if len(subs) != 1 || subs[0].(map[string]any)["application_id"] != "app-sub" {
		t.Fatalf("%v", subs)
	}
	assets := check(e.alice.do("GET", "/v1/sub_account/assets", nil), "").body["rows"].([]any)
	if len(assets) != 2 {
		t.Fatalf("%v", assets)
	}
	eqDec(t, "sub usdt_balance", assets[1].(map[string]any)["usdt_balance"], "500")
	xfer := check(e.alice.do("POST", "/v1/asset/main_sub_transfer", vals("token", "USDT", "amount", "100", "from_application_id", "app-alice", "to_application_id", "app-sub")), "")
	if num64(t, xfer.body["id"]) == 0 {
		t.Fatalf("%s", xfer.raw)
	}
	detail := check(e.sub.do("GET", "/v1/sub_account/asset_detail", vals("application_id", "app-sub")), "")
	eqDec(t, "sub USDT", detail.body["balances"].(map[string]any)["USDT"].(map[string]any)["holding"], "600")
	xh := check(e.sub.do("GET", "/v1/asset/main_sub_transfer_history", nil), "")
	data := xh.body["data"].(map[string]any)
	if r := data["rows"].([]any); len(r) != 1 || r[0].(map[string]any)["from_application_id"] != "app-alice" || r[0].(map[string]any)["status"] != "COMPLETED" {
		t.Fatalf("%s", xh.raw)
	}
	check(e.sub.do("GET", "/v1/sub_account/ip_restriction", nil), "")

	// cancels
	cancel := check(e.alice.do("DELETE", "/v1/client/order", vals("client_order_id", "6", "symbol", spot)), "v1_order_delete.json")
	if cancel.body["status"] != "CANCEL_SENT" {
		t.Fatalf("%s", cancel.raw)
	}
	e.alice.do("DELETE", "/v1/client/order", vals("client_order_id", "6", "symbol", spot)).fails(t, 400, -1006)
	order(e.alice, "symbol", spot, "order_type", "POST_ONLY", "side", "SELL", "order_price", "150", "order_quantity", "0.1")
	if r := check(e.alice.do("DELETE", "/v1/orders", vals("symbol", spot)), ""); r.body["status"] != "CANCEL_ALL_SENT" {
		t.Fatalf("%s", r.raw)
	}
	if r := check(e.alice.do("GET", "/v1/orders", vals("status", "INCOMPLETE")), ""); len(r.body["rows"].([]any)) != 0 {
		t.Fatalf("%s", r.raw)
	}
}
