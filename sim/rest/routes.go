package rest

import (
	"time"
)

func lim(name string, n int, window time.Duration, sc scope) limit {
	return limit{name: name, n: n, window: window, scope: sc}
}

// Parameters common to listings.
var (
	pagingParams = []string{"start_t", "end_t", "page"}
	sec          = time.Second
	minute       = time.Minute
)

func withPaging(names ...string) []string { return append(names, pagingParams...) }

// routes is the venue's endpoint table with its rate limits (the WOO X API
// docs, https://docs.woox.io/, list each endpoint's limit).
func (s *Server) routes(hist string) []route {
	pub := func(method, path, name string, params []string, h handler) route {
		return route{method, path, public, lim("public:"+name, 10, sec, perIP), params, h}
	}
	priv := func(method, path string, l limit, params []string, h handler) route {
		return route{method, path, private, l, params, h}
	}
	cancelShared := lim("cancel_order", 10, sec, perKey)
	getShared := lim("get_order", 10, sec, perKey)
	return []route{
		// public
		pub("GET", "/v1/public/info/{symbol}", "info_symbol", nil, s.symbolInfo),
		pub("GET", "/v1/public/info", "info", nil, s.allSymbolInfo),
		pub("GET", "/v1/public/market_trades", "market_trades", []string{"symbol", "limit"}, s.marketTrades),
		pub("GET", "/v1/public/token", "token", nil, s.publicTokens),
		pub("GET", "/v1/public/token_network", "token_network", nil, s.tokenNetworks),
		pub("GET", "/v1/public/funding_rates", "funding_rates", nil, s.fundingRates),
		pub("GET", "/v1/public/funding_rate/{symbol}", "funding_rate", nil, s.fundingRate),
		pub("GET", "/v1/public/funding_rate_history", "funding_rate_history", withPaging("symbol"), s.fundingRateHistory),
		pub("GET", "/v1/public/futures", "futures", nil, s.futuresAll),
		pub("GET", "/v1/public/futures/{symbol}", "futures_symbol", nil, s.futuresOne),
		pub("GET", "/v1/public/orderbook/{symbol}", "orderbook", []string{"max_level"}, s.orderbook),
		pub("GET", "/v1/public/kline", "kline", []string{"symbol", "type", "limit"}, s.kline),
		pub("GET", "/v1/public/system_info", "system_info", nil, s.systemInfo),
		pub("GET", hist+"/v1/hist/kline", "hist_kline", []string{"symbol", "type", "start_time", "page"}, s.histKline),

		// market data (signed)
		priv("GET", "/v1/orderbook/{symbol}", lim("orderbook", 10, sec, perKey), []string{"max_level"}, s.orderbook),
		priv("GET", "/v1/kline", lim("kline", 10, sec, perKey), []string{"symbol", "type", "limit"}, s.kline),

		// orders
		priv("POST", "/v1/order", lim("send_order", 2, sec, perSymbol), []string{"symbol", "client_order_id", "order_tag",
			"order_type", "order_price", "order_quantity", "order_amount", "visible_quantity", "side", "broker_id", "reduce_only"}, s.sendOrder),
		priv("DELETE", "/v1/order", cancelShared, []string{"order_id", "symbol"}, s.cancelOrder),
		priv("DELETE", "/v1/client/order", cancelShared, []string{"client_order_id", "symbol"}, s.cancelClientOrder),
		priv("DELETE", "/v1/orders", lim("cancel_orders", 10, sec, perKey), []string{"symbol"}, s.cancelOrders),
		priv("GET", "/v1/order/{oid}", getShared, nil, s.getOrder),
		priv("GET", "/v1/client/order/{cid}", getShared, nil, s.getClientOrder),
		priv("GET", "/v1/orders", lim("get_orders", 10, sec, perKey), withPaging("symbol", "side", "order_type", "order_tag", "status"), s.getOrders),

		// trades
		priv("GET", "/v1/client/trade/{tid}", lim("get_trade", 10, sec, perKey), nil, s.getTrade),
		priv("GET", "/v1/order/{oid}/trades", lim("get_trades", 10, sec, perKey), nil, s.getOrderTrades),
		priv("GET", "/v1/client/trades", lim("history_trades", 10, sec, perKey), withPaging("symbol", "order_tag"), s.getTrades),

		// account, balances, assets
		priv("GET", "/v1/client/token", lim("token_config", 10, sec, perKey), nil, s.tokenConfig),
		priv("GET", "/v1/client/holding", lim("holding_v1", 10, sec, perKey), nil, s.holdingV1),
		priv("GET", "/v2/client/holding", lim("holding_v2", 10, sec, perKey), []string{"all"}, s.holdingV2),
		priv("GET", "/v1/client/info", lim("account_info", 10, minute, perKey), nil, s.accountInfo),
		priv("GET", "/v1/asset/deposit", lim("deposit_address", 5, minute, perKey), []string{"token"}, s.depositAddress),
		priv("POST", "/v1/asset/withdraw", lim("withdraw", 10, minute, perKey), []string{"token", "address", "extra", "amount"}, s.withdraw),
		priv("GET", "/v1/asset/history", lim("asset_history", 10, minute, perKey), withPaging("token", "balance_token", "type", "token_side", "status"), s.assetHistory),
		priv("POST", "/v1/client/account_mode", lim("account_mode", 5, minute, perUser), []string{"account_mode"}, s.accountMode),
		priv("POST", "/v1/client/leverage", lim("leverage", 5, minute, perUser), []string{"leverage"}, s.leverage),

		// margin interest
		priv("GET", "/v1/token_interest", lim("token_interest", 10, minute, perKey), nil, s.tokenInterest),
		priv("GET", "/v1/token_interest/{token}", lim("token_interest_one", 10, minute, perKey), nil, s.tokenInterestOne),
		priv("GET", "/v1/interest/history", lim("interest_history", 10, minute, perKey), withPaging("token", "side"), s.interestHistory),
		priv("POST", "/v1/interest/repay", lim("repay_interest", 10, minute, perKey), []string{"token", "amount"}, s.repay),

		// futures account
		priv("GET", "/v1/funding_fee/history", lim("funding_fee_history", 20, minute, perUser), withPaging("symbol"), s.fundingFeeHistory),
		priv("GET", "/v1/positions", lim("positions", 10, 10*sec, perUser), nil, s.positions),
		priv("GET", "/v1/position/{symbol}", lim("position", 10, 10*sec, perUser), nil, s.position),

		// subaccounts
		{"GET", "/v1/sub_account/all", mainOnly, lim("sub_account_all", 10, minute, perKey), nil, s.subAccounts},
		{"GET", "/v1/sub_account/assets", mainOnly, lim("sub_account_assets", 10, minute, perKey), nil, s.subAccountAssets},
		priv("GET", "/v1/sub_account/asset_detail", lim("sub_account_asset_detail", 10, minute, perKey), []string{"application_id"}, s.assetDetail),
		priv("GET", "/v1/sub_account/ip_restriction", lim("ip_restriction", 10, 10*sec, perKey), []string{"application_id", "api_key"}, s.ipRestriction),
		priv("GET", "/v1/asset/main_sub_transfer_history", lim("transfer_history", 20, minute, perKey), pagingParams, s.transferHistory),
		priv("POST", "/v1/asset/main_sub_transfer", lim("transfer", 20, minute, perKey), []string{"token", "amount", "from_application_id", "to_application_id"}, s.transfer),
	}
}
