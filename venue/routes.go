package venue

import (
	"strings"
	"time"
)

// Group names a rate-limit budget of the venue (each endpoint's limit in
// the WOO X API docs, https://docs.woox.io/).
// Endpoints in one group share one counter.
type Group string

// Rate-limit groups. Where the spec lists endpoints together without saying
// "each", they share a group (the safe reading): margin interest rates (all
// and one), positions (all and one).
const (
	GroupPublic          Group = "public"           // all /v1/public/*, per IP
	GroupSendOrder       Group = "send_order"       // per symbol
	GroupCancelOrder     Group = "cancel_order"     // cancel + cancel by client id
	GroupCancelAll       Group = "cancel_all"       // DELETE /v1/orders
	GroupGetOrder        Group = "get_order"        // get + get by client id
	GroupGetOrders       Group = "get_orders"       // GET /v1/orders
	GroupOrderBook       Group = "orderbook"        // GET /v1/orderbook/:symbol
	GroupKline           Group = "kline"            // GET /v1/kline
	GroupHistKline       Group = "hist_kline"       // GET {public_history_url}/v1/hist/kline
	GroupTrade           Group = "trade"            // GET /v1/client/trade/:tid
	GroupOrderTrades     Group = "order_trades"     // GET /v1/order/:oid/trades
	GroupTrades          Group = "trades"           // GET /v1/client/trades
	GroupHoldingV1       Group = "holding_v1"       // GET /v1/client/holding
	GroupHoldingV2       Group = "holding_v2"       // GET /v2/client/holding
	GroupTokenConfig     Group = "token_config"     // GET /v1/client/token
	GroupAccountInfo     Group = "account_info"     // GET /v1/client/info
	GroupAssetHistory    Group = "asset_history"    // GET /v1/asset/history
	GroupInterestRates   Group = "interest_rates"   // GET /v1/token_interest[/:token]
	GroupInterestHistory Group = "interest_history" // GET /v1/interest/history
	GroupRepayInterest   Group = "repay_interest"   // POST /v1/interest/repay
	GroupSubAccounts     Group = "sub_accounts"     // GET /v1/sub_account/all
	GroupSubAssets       Group = "sub_assets"       // GET /v1/sub_account/assets
	GroupSubAssetDetail  Group = "sub_asset_detail" // GET /v1/sub_account/asset_detail
	GroupIPRestriction   Group = "ip_restriction"   // GET /v1/sub_account/ip_restriction
	GroupDepositAddress  Group = "deposit_address"  // GET /v1/asset/deposit
	GroupTransferHistory Group = "transfer_history" // GET /v1/asset/main_sub_transfer_history
	GroupTransfer        Group = "transfer"         // POST /v1/asset/main_sub_transfer
	GroupAccountMode     Group = "account_mode"     // POST /v1/client/account_mode
	GroupLeverage        Group = "leverage"         // POST /v1/client/leverage
	GroupFundingFee      Group = "funding_fee"      // GET /v1/funding_fee/history
	GroupPositions       Group = "positions"        // GET /v1/positions, /v1/position/:symbol
)

// RateLimit is a budget: at most N requests in any Window.
type RateLimit struct {
	N      int
	Window time.Duration
	// PerSymbol: one budget per symbol (send order).
	PerSymbol bool
}

// RateLimits is the venue's limit table, per group. The simulator enforces the
// same table.
var RateLimits = map[Group]RateLimit{
	GroupPublic:          {10, time.Second, false},
	GroupSendOrder:       {2, time.Second, true},
	GroupCancelOrder:     {10, time.Second, false},
	GroupCancelAll:       {10, time.Second, false},
	GroupGetOrder:        {10, time.Second, false},
	GroupGetOrders:       {10, time.Second, false},
	GroupOrderBook:       {10, time.Second, false},
	GroupKline:           {10, time.Second, false},
	GroupHistKline:       {10, time.Second, false},
	GroupTrade:           {10, time.Second, false},
	GroupOrderTrades:     {10, time.Second, false},
	GroupTrades:          {10, time.Second, false},
	GroupHoldingV1:       {10, time.Second, false},
	GroupHoldingV2:       {10, time.Second, false},
	GroupTokenConfig:     {10, time.Second, false},
	GroupAccountInfo:     {10, time.Minute, false},
	GroupAssetHistory:    {10, time.Minute, false},
	GroupInterestRates:   {10, time.Minute, false},
	GroupInterestHistory: {10, time.Minute, false},
	GroupRepayInterest:   {10, time.Minute, false},
	GroupSubAccounts:     {10, time.Minute, false},
	GroupSubAssets:       {10, time.Minute, false},
	GroupSubAssetDetail:  {10, time.Minute, false},
	GroupIPRestriction:   {10, 10 * time.Second, false},
	GroupDepositAddress:  {5, time.Minute, false},
	GroupTransferHistory: {20, time.Minute, false},
	GroupTransfer:        {20, time.Minute, false},
	GroupAccountMode:     {5, time.Minute, false},
	GroupLeverage:        {5, time.Minute, false},
	GroupFundingFee:      {20, time.Minute, false},
	GroupPositions:       {10, 10 * time.Second, false},
}

// Route is one REST endpoint. Path uses net/http pattern syntax for its
// parameters ("/v1/order/{oid}"), so a server can register
// Method+" "+Path directly on an http.ServeMux.
type Route struct {
	Name   string // the client method's name
	Method string
	Path   string
	Group  Group
	// History: served at Endpoints.PublicHistoryURL, not BaseURL.
	History bool
	// Public: readable without keys (signed anyway when keys are set).
	Public bool
}

// Pattern is the net/http ServeMux pattern of the route.
func (r Route) Pattern() string { return r.Method + " " + r.Path }

// path fills the {name} parameters of r.Path in order with already escaped
// values.
func (r Route) path(args ...string) string {
	p := r.Path
	for _, a := range args {
		i := strings.IndexByte(p, '{')
		j := strings.IndexByte(p, '}')
		if i < 0 || j < i {
			break
		}
		p = p[:i] + a + p[j+1:]
	}
	return p
}

// Every REST endpoint of the spec.
var (
	RoutePublicInfo         = Route{"SymbolRule", "GET", "/v1/public/info/{symbol}", GroupPublic, false, true}
	RoutePublicInfoAll      = Route{"SymbolRules", "GET", "/v1/public/info", GroupPublic, false, true}
	RouteMarketTrades       = Route{"MarketTrades", "GET", "/v1/public/market_trades", GroupPublic, false, true}
	RouteTokens             = Route{"Tokens", "GET", "/v1/public/token", GroupPublic, false, true}
	RouteTokenNetworks      = Route{"TokenNetworks", "GET", "/v1/public/token_network", GroupPublic, false, true}
	RouteFundingRates       = Route{"FundingRates", "GET", "/v1/public/funding_rates", GroupPublic, false, true}
	RouteFundingRate        = Route{"FundingRate", "GET", "/v1/public/funding_rate/{symbol}", GroupPublic, false, true}
	RouteFundingRateHistory = Route{"FundingRateHistory", "GET", "/v1/public/funding_rate_history", GroupPublic, false, true}
	RouteFuturesAll         = Route{"FuturesInfos", "GET", "/v1/public/futures", GroupPublic, false, true}
	RouteFutures            = Route{"FuturesInfo", "GET", "/v1/public/futures/{symbol}", GroupPublic, false, true}

	RouteOrderBook = Route{"OrderBook", "GET", "/v1/orderbook/{symbol}", GroupOrderBook, false, false}
	RouteKline     = Route{"Kline", "GET", "/v1/kline", GroupKline, false, false}
	RouteHistKline = Route{"HistKline", "GET", "/v1/hist/kline", GroupHistKline, true, true}
	// Unsigned twins of the two above on the real venue (since 2023; the
	// simulator serves them too), used when the client has no keys.
	RoutePublicOrderBook = Route{"OrderBook (public)", "GET", "/v1/public/orderbook/{symbol}", GroupPublic, false, true}
	RoutePublicKline     = Route{"Kline (public)", "GET", "/v1/public/kline", GroupPublic, false, true}

	RouteSendOrder             = Route{"SendOrder", "POST", "/v1/order", GroupSendOrder, false, false}
	RouteCancelOrder           = Route{"CancelOrder", "DELETE", "/v1/order", GroupCancelOrder, false, false}
	RouteCancelOrderByClientID = Route{"CancelOrderByClientID", "DELETE", "/v1/client/order", GroupCancelOrder, false, false}
	RouteCancelAll             = Route{"CancelAll", "DELETE", "/v1/orders", GroupCancelAll, false, false}
	RouteGetOrder              = Route{"GetOrder", "GET", "/v1/order/{oid}", GroupGetOrder, false, false}
	RouteGetOrderByClientID    = Route{"GetOrderByClientID", "GET", "/v1/client/order/{client_order_id}", GroupGetOrder, false, false}
	RouteListOrders            = Route{"ListOrders", "GET", "/v1/orders", GroupGetOrders, false, false}

	RouteGetTrade    = Route{"GetTrade", "GET", "/v1/client/trade/{tid}", GroupTrade, false, false}
	RouteOrderTrades = Route{"OrderTrades", "GET", "/v1/order/{oid}/trades", GroupOrderTrades, false, false}
	RouteListTrades  = Route{"ListTrades", "GET", "/v1/client/trades", GroupTrades, false, false}

	RouteTokenConfig    = Route{"TokenConfig", "GET", "/v1/client/token", GroupTokenConfig, false, false}
	RouteHolding        = Route{"Holding", "GET", "/v1/client/holding", GroupHoldingV1, false, false}
	RouteHoldingV2      = Route{"HoldingV2", "GET", "/v2/client/holding", GroupHoldingV2, false, false}
	RouteAccountInfo    = Route{"AccountInfo", "GET", "/v1/client/info", GroupAccountInfo, false, false}
	RouteDepositAddress = Route{"DepositAddress", "GET", "/v1/asset/deposit", GroupDepositAddress, false, false}
	RouteAssetHistory   = Route{"AssetHistory", "GET", "/v1/asset/history", GroupAssetHistory, false, false}
	RouteAccountMode    = Route{"SetAccountMode", "POST", "/v1/client/account_mode", GroupAccountMode, false, false}
	RouteLeverage       = Route{"SetLeverage", "POST", "/v1/client/leverage", GroupLeverage, false, false}

	RouteInterestRates   = Route{"InterestRates", "GET", "/v1/token_interest", GroupInterestRates, false, false}
	RouteInterestRate    = Route{"InterestRate", "GET", "/v1/token_interest/{token}", GroupInterestRates, false, false}
	RouteInterestHistory = Route{"InterestHistory", "GET", "/v1/interest/history", GroupInterestHistory, false, false}
	RouteRepayInterest   = Route{"RepayInterest", "POST", "/v1/interest/repay", GroupRepayInterest, false, false}

	RouteFundingFeeHistory = Route{"FundingFeeHistory", "GET", "/v1/funding_fee/history", GroupFundingFee, false, false}
	RoutePositions         = Route{"Positions", "GET", "/v1/positions", GroupPositions, false, false}
	RoutePosition          = Route{"Position", "GET", "/v1/position/{symbol}", GroupPositions, false, false}

	RouteSubAccounts      = Route{"SubAccounts", "GET", "/v1/sub_account/all", GroupSubAccounts, false, false}
	RouteSubAccountAssets = Route{"SubAccountAssets", "GET", "/v1/sub_account/assets", GroupSubAssets, false, false}
	RouteSubAccountDetail = Route{"SubAccountAssetDetail", "GET", "/v1/sub_account/asset_detail", GroupSubAssetDetail, false, false}
	RouteIPRestriction    = Route{"IPRestrictions", "GET", "/v1/sub_account/ip_restriction", GroupIPRestriction, false, false}
	RouteTransferHistory  = Route{"TransferHistory", "GET", "/v1/asset/main_sub_transfer_history", GroupTransferHistory, false, false}
	RouteTransfer         = Route{"Transfer", "POST", "/v1/asset/main_sub_transfer", GroupTransfer, false, false}
)

// Routes lists every endpoint, in the spec's order, then the real venue's
// public twins of the order book and kline.
var Routes = []Route{
	RoutePublicInfo, RoutePublicInfoAll, RouteMarketTrades, RouteTokens, RouteTokenNetworks,
	RouteFundingRates, RouteFundingRate, RouteFundingRateHistory, RouteFuturesAll, RouteFutures,
	RouteOrderBook, RouteKline, RouteHistKline, RoutePublicOrderBook, RoutePublicKline,
	RouteSendOrder, RouteCancelOrder, RouteCancelOrderByClientID, RouteCancelAll,
	RouteGetOrder, RouteGetOrderByClientID, RouteListOrders,
	RouteGetTrade, RouteOrderTrades, RouteListTrades,
	RouteTokenConfig, RouteHolding, RouteHoldingV2, RouteAccountInfo, RouteDepositAddress,
	RouteAssetHistory, RouteAccountMode, RouteLeverage,
	RouteInterestRates, RouteInterestRate, RouteInterestHistory, RouteRepayInterest,
	RouteFundingFeeHistory, RoutePositions, RoutePosition,
	RouteSubAccounts, RouteSubAccountAssets, RouteSubAccountDetail, RouteIPRestriction,
	RouteTransferHistory, RouteTransfer,
}
