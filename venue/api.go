package venue

import (
	"context"
	"encoding/json"
	"net/url"
	"strconv"
	"strings"

	"github.com/shopspring/decimal"
)

// One method per endpoint of the spec, in the spec's order. Each validates
// its parameters first (a *ParamError names the one at fault) and then goes
// through Client.do (rate limit, signing, errors).

// Reply envelopes.
type (
	rowsReply[T any] struct {
		ack
		Rows []T `json:"rows"`
	}
	pageReply[T any] struct {
		ack
		Rows []T  `json:"rows"`
		Meta Meta `json:"meta"`
	}
	infoReply[T any] struct {
		ack
		Info T `json:"info"`
	}
	// topReply is a resource whose fields sit at the top level.
	topReply[T any] struct {
		ack
		Value T
	}
	statusReply struct {
		ack
		Status string `json:"status"`
	}
)

// UnmarshalJSON decodes the status and the resource from the same object.
func (r *topReply[T]) UnmarshalJSON(b []byte) error {
	if err := json.Unmarshal(b, &r.ack); err != nil {
		return err
	}
	return json.Unmarshal(b, &r.Value)
}

// MarshalJSON writes the status and the resource's fields into one object,
// the shape UnmarshalJSON reads (not a nested "Value").
func (r topReply[T]) MarshalJSON() ([]byte, error) {
	a, err := json.Marshal(r.ack)
	if err != nil {
		return nil, err
	}
	v, err := json.Marshal(r.Value)
	if err != nil {
		return nil, err
	}
	if len(v) < 2 || v[0] != '{' || string(v) == "{}" {
		return a, nil
	}
	return append(append(a[:len(a)-1], ','), v[1:]...), nil
}

func rows[T any](ctx context.Context, c *Client, req request) ([]T, error) {
	var r rowsReply[T]
	err := c.do(ctx, req, &r)
	return r.Rows, err
}

func page[T any](ctx context.Context, c *Client, req request) ([]T, Meta, error) {
	var r pageReply[T]
	err := c.do(ctx, req, &r)
	return r.Rows, r.Meta, err
}

func info[T any](ctx context.Context, c *Client, req request) (T, error) {
	var r infoReply[T]
	err := c.do(ctx, req, &r)
	return r.Info, err
}

func top[T any](ctx context.Context, c *Client, req request) (T, error) {
	var r topReply[T]
	err := c.do(ctx, req, &r)
	return r.Value, err
}

// ofSymbol reads route's resource of one symbol (the symbol is the path's
// last segment) with read, info or top as the reply wraps it.
func ofSymbol[T any](ctx context.Context, c *Client, route Route, symbol string,
	read func(context.Context, *Client, request) (T, error)) (T, error) {
	if err := needSymbol(symbol); err != nil {
		var zero T
		return zero, err
	}
	return read(ctx, c, request{route: route, args: []string{symbol}})
}

// filter is a listing's query: checked, then written as wire parameters.
type filter interface {
	Validate() error
	Values() url.Values
}

// filteredPage reads one page of route's listing selected by f, once f is
// valid.
func filteredPage[T any](ctx context.Context, c *Client, route Route, f filter) ([]T, Meta, error) {
	if err := f.Validate(); err != nil {
		return nil, Meta{}, err
	}
	return page[T](ctx, c, request{route: route, params: f.Values()})
}

func (c *Client) sendOnly(ctx context.Context, req request) error {
	var r statusReply
	return c.do(ctx, req, &r)
}

func needSymbol(symbol string) error {
	if symbol == "" {
		return paramErr("symbol", "required")
	}
	return nil
}

func needID(param string, id int64) error {
	if id <= 0 {
		return paramErr(param, "required (a positive id), got %d", id)
	}
	return nil
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

// --- Public ---

// SymbolRule returns the trading rule of one symbol (GET /v1/public/info/:symbol).
func (c *Client) SymbolRule(ctx context.Context, symbol string) (SymbolRule, error) {
	return ofSymbol(ctx, c, RoutePublicInfo, symbol, info[SymbolRule])
}

// SymbolRules returns the rules of every symbol (GET /v1/public/info).
func (c *Client) SymbolRules(ctx context.Context) ([]SymbolRule, error) {
	return rows[SymbolRule](ctx, c, request{route: RoutePublicInfoAll})
}

// MarketTrades returns the latest public trades of symbol; limit 0 means
// the venue's default (10).
func (c *Client) MarketTrades(ctx context.Context, symbol string, limit int) ([]MarketTrade, error) {
	if err := needSymbol(symbol); err != nil {
		return nil, err
	}
	if limit < 0 {
		return nil, paramErr("limit", "must be positive, got %d", limit)
	}
	v := url.Values{"symbol": {symbol}}
	setInt(v, "limit", int64(limit))
	return rows[MarketTrade](ctx, c, request{route: RouteMarketTrades, params: v})
}

// Tokens returns every token (GET /v1/public/token).
func (c *Client) Tokens(ctx context.Context) ([]Token, error) {
	return rows[Token](ctx, c, request{route: RouteTokens})
}

// TokenNetworks returns every token network (GET /v1/public/token_network).
func (c *Client) TokenNetworks(ctx context.Context) ([]TokenNetwork, error) {
	return rows[TokenNetwork](ctx, c, request{route: RouteTokenNetworks})
}

// FundingRates returns the funding rates of every perpetual symbol.
func (c *Client) FundingRates(ctx context.Context) ([]FundingRate, error) {
	return rows[FundingRate](ctx, c, request{route: RouteFundingRates})
}

// FundingRate returns the funding rate of one perpetual symbol.
func (c *Client) FundingRate(ctx context.Context, symbol string) (FundingRate, error) {
	return ofSymbol(ctx, c, RouteFundingRate, symbol, top[FundingRate])
}

// FundingRateHistory returns past funding rates of a symbol, one page.
func (c *Client) FundingRateHistory(ctx context.Context, f FundingRateHistoryFilter) ([]FundingRateHistory, Meta, error) {
	return filteredPage[FundingRateHistory](ctx, c, RouteFundingRateHistory, f)
}

// FuturesInfos returns the market state of every perpetual symbol.
func (c *Client) FuturesInfos(ctx context.Context) ([]FuturesInfo, error) {
	return rows[FuturesInfo](ctx, c, request{route: RouteFuturesAll})
}

// FuturesInfo returns the market state of one perpetual symbol.
func (c *Client) FuturesInfo(ctx context.Context, symbol string) (FuturesInfo, error) {
	return ofSymbol(ctx, c, RouteFutures, symbol, info[FuturesInfo])
}

// --- Market data ---

// OrderBook returns a snapshot of symbol's book; maxLevel 0 means the
// venue's default (100 levels a side). Without keys it reads the unsigned
// /v1/public/orderbook/:symbol instead (the same book; public budget).
func (c *Client) OrderBook(ctx context.Context, symbol string, maxLevel int) (OrderBook, error) {
	if err := needSymbol(symbol); err != nil {
		return OrderBook{}, err
	}
	if maxLevel < 0 {
		return OrderBook{}, paramErr("max_level", "must be positive, got %d", maxLevel)
	}
	v := url.Values{}
	setInt(v, "max_level", int64(maxLevel))
	return top[OrderBook](ctx, c, request{route: c.keyed(RouteOrderBook, RoutePublicOrderBook), args: []string{symbol}, params: v})
}

// Kline returns the latest klines (GET /v1/kline; without keys the
// unsigned GET /v1/public/kline).
func (c *Client) Kline(ctx context.Context, r KlineRequest) ([]Kline, error) {
	if err := r.Validate(); err != nil {
		return nil, err
	}
	return rows[Kline](ctx, c, request{route: c.keyed(RouteKline, RoutePublicKline), params: r.Values()})
}

// keyed picks the signed route when the client has keys, else its public twin.
func (c *Client) keyed(signed, public Route) Route {
	if c.creds.HasKeys() {
		return signed
	}
	return public
}

// HistKline returns historical klines from the public history address.
func (c *Client) HistKline(ctx context.Context, r HistKlineRequest) ([]Kline, Meta, error) {
	return filteredPage[Kline](ctx, c, RouteHistKline, r)
}

// --- Orders ---

// SendOrder places an order. The reply only acknowledges it; its progress
// arrives on the private stream (executionreport).
func (c *Client) SendOrder(ctx context.Context, r OrderRequest) (OrderAck, error) {
	if err := r.Validate(); err != nil {
		return OrderAck{}, err
	}
	return top[OrderAck](ctx, c, request{route: RouteSendOrder, params: r.Values(), symbol: r.Symbol})
}

// CancelOrder asks to cancel an order by its id (reply CANCEL_SENT; the
// cancellation itself arrives on the private stream).
func (c *Client) CancelOrder(ctx context.Context, symbol string, orderID int64) error {
	if err := needSymbol(symbol); err != nil {
		return err
	}
	if err := needID("order_id", orderID); err != nil {
		return err
	}
	v := url.Values{"symbol": {symbol}, "order_id": {itoa(orderID)}}
	return c.sendOnly(ctx, request{route: RouteCancelOrder, params: v})
}

// CancelOrderByClientID asks to cancel the latest order of symbol with
// that client order id.
func (c *Client) CancelOrderByClientID(ctx context.Context, symbol string, clientOrderID int64) error {
	if err := needSymbol(symbol); err != nil {
		return err
	}
	if err := needID("client_order_id", clientOrderID); err != nil {
		return err
	}
	v := url.Values{"symbol": {symbol}, "client_order_id": {itoa(clientOrderID)}}
	return c.sendOnly(ctx, request{route: RouteCancelOrderByClientID, params: v})
}

// CancelAll asks to cancel every open order of symbol (reply CANCEL_ALL_SENT).
func (c *Client) CancelAll(ctx context.Context, symbol string) error {
	if err := needSymbol(symbol); err != nil {
		return err
	}
	return c.sendOnly(ctx, request{route: RouteCancelAll, params: url.Values{"symbol": {symbol}}})
}

// GetOrder reads one order with its transactions.
func (c *Client) GetOrder(ctx context.Context, orderID int64) (Order, error) {
	if err := needID("oid", orderID); err != nil {
		return Order{}, err
	}
	return top[Order](ctx, c, request{route: RouteGetOrder, args: []string{itoa(orderID)}})
}

// GetOrderByClientID reads the latest order with that client order id,
// with its transactions.
func (c *Client) GetOrderByClientID(ctx context.Context, clientOrderID int64) (Order, error) {
	if err := needID("client_order_id", clientOrderID); err != nil {
		return Order{}, err
	}
	return top[Order](ctx, c, request{route: RouteGetOrderByClientID, args: []string{itoa(clientOrderID)}})
}

// ListOrders returns one page of orders (without transactions).
func (c *Client) ListOrders(ctx context.Context, f OrderFilter) ([]Order, Meta, error) {
	return filteredPage[Order](ctx, c, RouteListOrders, f)
}

// --- Trades ---

// GetTrade reads one of the account's trades.
func (c *Client) GetTrade(ctx context.Context, tradeID int64) (Trade, error) {
	if err := needID("tid", tradeID); err != nil {
		return Trade{}, err
	}
	return top[Trade](ctx, c, request{route: RouteGetTrade, args: []string{itoa(tradeID)}})
}

// OrderTrades returns the trades of one order.
func (c *Client) OrderTrades(ctx context.Context, orderID int64) ([]Trade, error) {
	if err := needID("oid", orderID); err != nil {
		return nil, err
	}
	return rows[Trade](ctx, c, request{route: RouteOrderTrades, args: []string{itoa(orderID)}})
}

// ListTrades returns one page of the account's trades.
func (c *Client) ListTrades(ctx context.Context, f TradeFilter) ([]Trade, Meta, error) {
	return filteredPage[Trade](ctx, c, RouteListTrades, f)
}

// --- Account, balances, assets ---

// TokenConfig returns the account's token configuration.
func (c *Client) TokenConfig(ctx context.Context) ([]TokenConfig, error) {
	return rows[TokenConfig](ctx, c, request{route: RouteTokenConfig})
}

// Holding returns the balance of every token (v1); negative means owed.
func (c *Client) Holding(ctx context.Context) (map[string]decimal.Decimal, error) {
	var r struct {
		ack
		Holding map[string]decimal.Decimal `json:"holding"`
	}
	err := c.do(ctx, request{route: RouteHolding}, &r)
	return r.Holding, err
}

// HoldingV2 returns the balances (v2); all includes empty balances.
func (c *Client) HoldingV2(ctx context.Context, all bool) ([]HoldingV2, error) {
	v := url.Values{}
	if all {
		v.Set("all", "true")
	}
	var r struct {
		ack
		Holding []HoldingV2 `json:"holding"`
	}
	err := c.do(ctx, request{route: RouteHoldingV2, params: v}, &r)
	return r.Holding, err
}

// AccountInfo returns the account's settings and margin rate.
func (c *Client) AccountInfo(ctx context.Context) (AccountInfo, error) {
	return top[AccountInfo](ctx, c, request{route: RouteAccountInfo})
}

// DepositAddress returns the deposit address of token (a token name from
// the token list, which may carry a network qualifier).
func (c *Client) DepositAddress(ctx context.Context, token string) (DepositAddress, error) {
	if token == "" {
		return DepositAddress{}, paramErr("token", "required")
	}
	return top[DepositAddress](ctx, c, request{route: RouteDepositAddress, params: url.Values{"token": {token}}})
}

// AssetHistory returns one page of deposits and withdrawals.
func (c *Client) AssetHistory(ctx context.Context, f AssetHistoryFilter) ([]AssetHistory, Meta, error) {
	return filteredPage[AssetHistory](ctx, c, RouteAssetHistory, f)
}

// SetAccountMode switches the account between PURE_SPOT, MARGIN and FUTURES.
func (c *Client) SetAccountMode(ctx context.Context, mode AccountMode) error {
	if err := checkEnum("account_mode", string(mode), []string{string(PureSpot), string(Margin), string(Futures)}); err != nil {
		return err
	}
	return c.sendOnly(ctx, request{route: RouteAccountMode, params: url.Values{"account_mode": {string(mode)}}})
}

// SetLeverage sets the account's leverage.
func (c *Client) SetLeverage(ctx context.Context, r LeverageRequest) error {
	if err := r.Validate(); err != nil {
		return err
	}
	return c.sendOnly(ctx, request{route: RouteLeverage, params: r.Values()})
}

// --- Margin interest ---

// InterestRates returns the margin interest rates of every token.
func (c *Client) InterestRates(ctx context.Context) ([]MarginInterestRate, error) {
	return rows[MarginInterestRate](ctx, c, request{route: RouteInterestRates})
}

// InterestRate returns the margin interest rate of one token (the name is
// sent upper case, as the venue requires).
func (c *Client) InterestRate(ctx context.Context, token string) (MarginInterestRate, error) {
	if token == "" {
		return MarginInterestRate{}, paramErr("token", "required")
	}
	return info[MarginInterestRate](ctx, c, request{route: RouteInterestRate, args: []string{strings.ToUpper(token)}})
}

// InterestHistory returns one page of interest loans and repayments.
func (c *Client) InterestHistory(ctx context.Context, f InterestHistoryFilter) ([]InterestHistory, Meta, error) {
	return filteredPage[InterestHistory](ctx, c, RouteInterestHistory, f)
}

// RepayInterest repays amount of token's interest.
func (c *Client) RepayInterest(ctx context.Context, token string, amount decimal.Decimal) error {
	if token == "" {
		return paramErr("token", "required")
	}
	if !amount.IsPositive() {
		return paramErr("amount", "must be positive, got %s", amount)
	}
	v := url.Values{"token": {token}, "amount": {amount.String()}}
	return c.sendOnly(ctx, request{route: RouteRepayInterest, params: v})
}

// --- Futures account ---

// FundingFeeHistory returns one page of funding fee payments.
func (c *Client) FundingFeeHistory(ctx context.Context, f FundingFeeFilter) ([]FundingFee, Meta, error) {
	return filteredPage[FundingFee](ctx, c, RouteFundingFeeHistory, f)
}

// Positions returns every perpetual position and the margin ratios.
func (c *Client) Positions(ctx context.Context) (Positions, error) {
	return top[Positions](ctx, c, request{route: RoutePositions})
}

// Position returns the position of one perpetual symbol.
func (c *Client) Position(ctx context.Context, symbol string) (Position, error) {
	return ofSymbol(ctx, c, RoutePosition, symbol, top[Position])
}

// --- Subaccounts ---

// SubAccounts lists the subaccounts (main account only).
func (c *Client) SubAccounts(ctx context.Context) ([]SubAccount, error) {
	return rows[SubAccount](ctx, c, request{route: RouteSubAccounts})
}

// SubAccountAssets returns the USDT value of every account, main included
// (main account only).
func (c *Client) SubAccountAssets(ctx context.Context) ([]SubAccountAssets, error) {
	return rows[SubAccountAssets](ctx, c, request{route: RouteSubAccountAssets})
}

// SubAccountAssetDetail returns the per-token balances of one account.
func (c *Client) SubAccountAssetDetail(ctx context.Context, applicationID string) (SubAccountAssetDetail, error) {
	if applicationID == "" {
		return SubAccountAssetDetail{}, paramErr("application_id", "required")
	}
	v := url.Values{"application_id": {applicationID}}
	return top[SubAccountAssetDetail](ctx, c, request{route: RouteSubAccountDetail, params: v})
}

// IPRestrictions returns the IP allow lists of the account's keys.
func (c *Client) IPRestrictions(ctx context.Context, f IPRestrictionFilter) ([]IPRestriction, Meta, error) {
	return page[IPRestriction](ctx, c, request{route: RouteIPRestriction, params: f.Values()})
}

// TransferHistory returns one page of main/sub transfers.
func (c *Client) TransferHistory(ctx context.Context, f TransferFilter) ([]Transfer, Meta, error) {
	if err := f.Validate(); err != nil {
		return nil, Meta{}, err
	}
	var r struct {
		ack
		Data struct {
			Rows []Transfer `json:"rows"`
			Meta Meta       `json:"meta"`
		} `json:"data"`
	}
	err := c.do(ctx, request{route: RouteTransferHistory, params: f.Values()}, &r)
	return r.Data.Rows, r.Data.Meta, err
}

// Transfer moves assets between the main account and a subaccount and
// returns the transfer's id.
func (c *Client) Transfer(ctx context.Context, r TransferRequest) (int64, error) {
	if err := r.Validate(); err != nil {
		return 0, err
	}
	var rep struct {
		ack
		ID Int `json:"id"`
	}
	err := c.do(ctx, request{route: RouteTransfer, params: r.Values()}, &rep)
	return int64(rep.ID), err
}
