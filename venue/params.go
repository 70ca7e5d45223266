package venue

import (
	"net/url"
	"slices"
	"strconv"
	"time"

	"github.com/shopspring/decimal"
)

// Typed parameters of the endpoints. Each has Validate (what the spec
// forbids is refused before anything is sent, with a *ParamError naming the
// wire parameter) and Values (the wire parameters). The simulator may use
// Validate to apply the same rules.

// MaxOrderAmountDecimals is the precision limit of order_amount.
const MaxOrderAmountDecimals = 8

// OrderRequest is the body of POST /v1/order.
type OrderRequest struct {
	Symbol        string
	ClientOrderID int64  // 0..9223372036854775807; 0 = none
	OrderTag      string // "" = the venue's "default"
	Type          OrderType
	Side          Side
	Price         decimal.Decimal // required except for MARKET, where it must be zero
	Quantity      decimal.Decimal // base quantity
	Amount        decimal.Decimal // quote amount, MARKET/ASK/BID only, instead of Quantity
	// VisibleQuantity is the quantity shown on the book (0 hides the
	// order); not sent when !Valid (the venue then shows all of it).
	VisibleQuantity decimal.NullDecimal
	// ReduceOnly is a real-venue parameter outside the spec, sent only when
	// true (futures).
	ReduceOnly bool
}

// Placeable reports whether an order of type t can be placed (LIQUIDATE
// only appears in listings).
func (t OrderType) Placeable() bool {
	switch t {
	case Limit, Market, IOC, FOK, PostOnly, Ask, Bid:
		return true
	}
	return false
}

// byAmount reports whether t may be sized in quote currency.
func byAmount(t OrderType) bool { return t == Market || t == Ask || t == Bid }

// Validate applies the spec's parameter rules.
func (r OrderRequest) Validate() error {
	if r.Symbol == "" {
		return paramErr("symbol", "required")
	}
	if err := checkSide("side", r.Side, true); err != nil {
		return err
	}
	if r.Type == "" {
		return paramErr("order_type", "required")
	}
	if !r.Type.Placeable() {
		return paramErr("order_type", "%q is not one of LIMIT, MARKET, IOC, FOK, POST_ONLY, ASK, BID", string(r.Type))
	}
	if r.ClientOrderID < 0 {
		return paramErr("client_order_id", "must be between 0 and 9223372036854775807, got %d", r.ClientOrderID)
	}
	switch {
	case r.Type == Market && !r.Price.IsZero():
		return paramErr("order_price", "not allowed for MARKET orders")
	case r.Type != Market && r.Price.IsZero():
		return paramErr("order_price", "required for %s orders", r.Type)
	case r.Price.IsNegative():
		return paramErr("order_price", "must be positive, got %s", r.Price)
	}
	hasQty, hasAmt := !r.Quantity.IsZero(), !r.Amount.IsZero()
	switch {
	case hasQty && hasAmt:
		return paramErr("order_amount", "not allowed together with order_quantity")
	case r.Quantity.IsNegative():
		return paramErr("order_quantity", "must be positive, got %s", r.Quantity)
	case r.Amount.IsNegative():
		return paramErr("order_amount", "must be positive, got %s", r.Amount)
	case hasAmt && !byAmount(r.Type):
		return paramErr("order_amount", "only for MARKET, ASK and BID orders, not %s", r.Type)
	case hasAmt && !r.Amount.Truncate(MaxOrderAmountDecimals).Equal(r.Amount):
		return paramErr("order_amount", "at most %d decimal digits, got %s", MaxOrderAmountDecimals, r.Amount)
	case !hasQty && !hasAmt && byAmount(r.Type):
		return paramErr("order_quantity", "order_quantity or order_amount required for %s orders", r.Type)
	case !hasQty && !hasAmt:
		return paramErr("order_quantity", "required for %s orders", r.Type)
	}
	if r.VisibleQuantity.Valid {
		v := r.VisibleQuantity.Decimal
		switch {
		case v.IsNegative():
			return paramErr("visible_quantity", "must not be negative, got %s", v)
		case hasQty && v.GreaterThan(r.Quantity):
			return paramErr("visible_quantity", "%s is above order_quantity %s", v, r.Quantity)
		}
	}
	return nil
}

// Values returns the wire parameters (call Validate first).
func (r OrderRequest) Values() url.Values {
	v := url.Values{}
	v.Set("symbol", r.Symbol)
	v.Set("order_type", string(r.Type))
	v.Set("side", string(r.Side))
	if r.ClientOrderID != 0 {
		v.Set("client_order_id", strconv.FormatInt(r.ClientOrderID, 10))
	}
	if r.OrderTag != "" {
		v.Set("order_tag", r.OrderTag)
	}
	setDecimal(v, "order_price", r.Price)
	setDecimal(v, "order_quantity", r.Quantity)
	setDecimal(v, "order_amount", r.Amount)
	if r.VisibleQuantity.Valid {
		v.Set("visible_quantity", r.VisibleQuantity.Decimal.String())
	}
	if r.ReduceOnly {
		v.Set("reduce_only", "true")
	}
	return v
}

// OrderFilter filters GET /v1/orders. Zero fields are not sent.
type OrderFilter struct {
	Symbol   string
	Side     Side
	Type     OrderType // LIMIT, MARKET, IOC, FOK, POST_ONLY, LIQUIDATE
	OrderTag string
	Status   OrderStatus // a status, INCOMPLETE or COMPLETED
	Start    time.Time   // start_t
	End      time.Time   // end_t
	Page     int
}

var listTypes = []OrderType{Limit, Market, IOC, FOK, PostOnly, Liquidate}
var listStatuses = []OrderStatus{StatusNew, StatusCancelled, StatusPartialFilled, StatusFilled, StatusRejected, StatusIncomplete, StatusCompleted}

// Validate checks the enumerations and the time range.
func (f OrderFilter) Validate() error {
	if err := checkSide("side", f.Side, false); err != nil {
		return err
	}
	if f.Type != "" && !slices.Contains(listTypes, f.Type) {
		return paramErr("order_type", "%q is not one of LIMIT, MARKET, IOC, FOK, POST_ONLY, LIQUIDATE", string(f.Type))
	}
	if f.Status != "" && !slices.Contains(listStatuses, f.Status) {
		return paramErr("status", "%q is not an order status, INCOMPLETE or COMPLETED", string(f.Status))
	}
	return checkPaging(f.Start, f.End, f.Page)
}

// Values returns the wire parameters.
func (f OrderFilter) Values() url.Values {
	v := url.Values{}
	setString(v, "symbol", f.Symbol)
	setString(v, "side", string(f.Side))
	setString(v, "order_type", string(f.Type))
	setString(v, "order_tag", f.OrderTag)
	setString(v, "status", string(f.Status))
	setPaging(v, f.Start, f.End, f.Page)
	return v
}

// TradeFilter filters GET /v1/client/trades.
type TradeFilter struct {
	Symbol   string
	OrderTag string
	Start    time.Time
	End      time.Time
	Page     int
}

// Validate checks the time range and page.
func (f TradeFilter) Validate() error { return checkPaging(f.Start, f.End, f.Page) }

// Values returns the wire parameters.
func (f TradeFilter) Values() url.Values {
	v := url.Values{}
	setString(v, "symbol", f.Symbol)
	setString(v, "order_tag", f.OrderTag)
	setPaging(v, f.Start, f.End, f.Page)
	return v
}

// FundingRateHistoryFilter filters GET /v1/public/funding_rate_history.
// Without Start and End the venue returns the newest rate.
type FundingRateHistoryFilter struct {
	Symbol string // required
	Start  time.Time
	End    time.Time
	Page   int
}

// Validate checks the symbol, time range and page.
func (f FundingRateHistoryFilter) Validate() error {
	if f.Symbol == "" {
		return paramErr("symbol", "required")
	}
	return checkPaging(f.Start, f.End, f.Page)
}

// Values returns the wire parameters.
func (f FundingRateHistoryFilter) Values() url.Values {
	v := url.Values{}
	v.Set("symbol", f.Symbol)
	setPaging(v, f.Start, f.End, f.Page)
	return v
}

// KlineRequest asks GET /v1/kline for the latest klines. The spec does not
// show its parameters; these are the real venue's (symbol, type, limit up
// to 1000).
type KlineRequest struct {
	Symbol string // required
	Type   string // required: 1m, 5m, 15m, 30m, 1h, 4h, 12h, 1d, 1w, 1mon, 1y
	Limit  int    // 0 = the venue's default
}

// KlineTypes are the kline intervals of the REST endpoints.
var KlineTypes = []string{"1m", "5m", "15m", "30m", "1h", "4h", "12h", "1d", "1w", "1mon", "1y"}

// HistKlineTypes are the intervals the historical kline accepts.
var HistKlineTypes = []string{"5m", "15m", "30m", "1h", "4h", "12h", "1d", "1w", "1mon", "1y"}

// Validate checks symbol, type and limit.
func (r KlineRequest) Validate() error {
	if r.Symbol == "" {
		return paramErr("symbol", "required")
	}
	if err := checkEnum("type", r.Type, KlineTypes); err != nil {
		return err
	}
	if r.Limit < 0 || r.Limit > 1000 {
		return paramErr("limit", "must be between 1 and 1000, got %d", r.Limit)
	}
	return nil
}

// Values returns the wire parameters.
func (r KlineRequest) Values() url.Values {
	v := url.Values{}
	v.Set("symbol", r.Symbol)
	v.Set("type", r.Type)
	setInt(v, "limit", int64(r.Limit))
	return v
}

// HistKlineRequest asks {public_history_url}/v1/hist/kline.
type HistKlineRequest struct {
	Symbol    string    // required
	Type      string    // required, one of HistKlineTypes
	StartTime time.Time // required (sent as 13-digit ms)
}

// Validate checks the three required parameters.
func (r HistKlineRequest) Validate() error {
	if r.Symbol == "" {
		return paramErr("symbol", "required")
	}
	if err := checkEnum("type", r.Type, HistKlineTypes); err != nil {
		return err
	}
	if r.StartTime.IsZero() {
		return paramErr("start_time", "required")
	}
	if r.StartTime.UnixMilli() < 0 {
		return paramErr("start_time", "before 1970")
	}
	return nil
}

// Values returns the wire parameters.
func (r HistKlineRequest) Values() url.Values {
	v := url.Values{}
	v.Set("symbol", r.Symbol)
	v.Set("type", r.Type)
	v.Set("start_time", strconv.FormatInt(r.StartTime.UnixMilli(), 10))
	return v
}

// AssetHistoryFilter filters GET /v1/asset/history.
type AssetHistoryFilter struct {
	Token        string
	BalanceToken string
	Type         string // BALANCE, COLLATERAL
	TokenSide    string // DEPOSIT, WITHDRAW
	Status       string // NEW, CONFIRMING, PROCESSING, COMPLETED, CANCELED
	Start        time.Time
	End          time.Time
	Page         int
}

// Validate checks the enumerations, time range and page.
func (f AssetHistoryFilter) Validate() error {
	if err := checkEnum("type", f.Type, []string{"", "BALANCE", "COLLATERAL"}); err != nil {
		return err
	}
	if err := checkEnum("token_side", f.TokenSide, []string{"", "DEPOSIT", "WITHDRAW"}); err != nil {
		return err
	}
	if err := checkEnum("status", f.Status, []string{"", "NEW", "CONFIRMING", "PROCESSING", "COMPLETED", "CANCELED"}); err != nil {
		return err
	}
	return checkPaging(f.Start, f.End, f.Page)
}

// Values returns the wire parameters.
func (f AssetHistoryFilter) Values() url.Values {
	v := url.Values{}
	setString(v, "token", f.Token)
	setString(v, "balance_token", f.BalanceToken)
	setString(v, "type", f.Type)
	setString(v, "token_side", f.TokenSide)
	setString(v, "status", f.Status)
	setPaging(v, f.Start, f.End, f.Page)
	return v
}

// LeverageRequest is the body of POST /v1/client/leverage. Mode is not
// sent: it selects which values are allowed (MARGIN 3, 4, 5; FUTURES 1, 2,
// 3, 4, 5, 10, 15, 20; "" accepts any of them and lets the venue decide).
type LeverageRequest struct {
	Leverage int
	Mode     AccountMode
}

// LeverageChoices are the leverages allowed per account mode.
var LeverageChoices = map[AccountMode][]int{
	Margin:  {3, 4, 5},
	Futures: {1, 2, 3, 4, 5, 10, 15, 20},
}

// Validate checks the leverage against the mode.
func (r LeverageRequest) Validate() error {
	switch r.Mode {
	case Margin, Futures:
		if !slices.Contains(LeverageChoices[r.Mode], r.Leverage) {
			return paramErr("leverage", "%d not allowed in %s mode (allowed %v)", r.Leverage, r.Mode, LeverageChoices[r.Mode])
		}
	case "":
		if !slices.Contains(LeverageChoices[Margin], r.Leverage) && !slices.Contains(LeverageChoices[Futures], r.Leverage) {
			return paramErr("leverage", "%d is not one of 1, 2, 3, 4, 5, 10, 15, 20", r.Leverage)
		}
	case PureSpot:
		return paramErr("leverage", "no leverage in PURE_SPOT mode")
	default:
		return paramErr("account_mode", "%q is not PURE_SPOT, MARGIN or FUTURES", string(r.Mode))
	}
	return nil
}

// Values returns the wire parameters.
func (r LeverageRequest) Values() url.Values {
	return url.Values{"leverage": {strconv.Itoa(r.Leverage)}}
}

// InterestHistoryFilter filters GET /v1/interest/history.
type InterestHistoryFilter struct {
	Token string
	Side  string // LOAN, REPAY, AUTO_REPAY
	Start time.Time
	End   time.Time
	Page  int
}

// Validate checks the side, time range and page.
func (f InterestHistoryFilter) Validate() error {
	if err := checkEnum("side", f.Side, []string{"", "LOAN", "REPAY", "AUTO_REPAY"}); err != nil {
		return err
	}
	return checkPaging(f.Start, f.End, f.Page)
}

// Values returns the wire parameters.
func (f InterestHistoryFilter) Values() url.Values {
	v := url.Values{}
	setString(v, "token", f.Token)
	setString(v, "side", f.Side)
	setPaging(v, f.Start, f.End, f.Page)
	return v
}

// FundingFeeFilter filters GET /v1/funding_fee/history.
type FundingFeeFilter struct {
	Symbol string
	Start  time.Time
	End    time.Time
	Page   int
}

// Validate checks the time range and page.
func (f FundingFeeFilter) Validate() error { return checkPaging(f.Start, f.End, f.Page) }

// Values returns the wire parameters.
func (f FundingFeeFilter) Values() url.Values {
	v := url.Values{}
	setString(v, "symbol", f.Symbol)
	setPaging(v, f.Start, f.End, f.Page)
	return v
}

// IPRestrictionFilter filters GET /v1/sub_account/ip_restriction.
type IPRestrictionFilter struct {
	ApplicationID string
	APIKey        string
}

// Values returns the wire parameters.
func (f IPRestrictionFilter) Values() url.Values {
	v := url.Values{}
	setString(v, "application_id", f.ApplicationID)
	setString(v, "api_key", f.APIKey)
	return v
}

// TransferFilter filters GET /v1/asset/main_sub_transfer_history.
type TransferFilter struct {
	Start time.Time
	End   time.Time
	Page  int
}

// Validate checks the time range and page.
func (f TransferFilter) Validate() error { return checkPaging(f.Start, f.End, f.Page) }

// Values returns the wire parameters.
func (f TransferFilter) Values() url.Values {
	v := url.Values{}
	setPaging(v, f.Start, f.End, f.Page)
	return v
}

// TransferRequest is the body of POST /v1/asset/main_sub_transfer.
type TransferRequest struct {
	Token             string
	Amount            decimal.Decimal
	FromApplicationID string
	ToApplicationID   string
}

// Validate checks the four required parameters.
func (r TransferRequest) Validate() error {
	switch {
	case r.Token == "":
		return paramErr("token", "required")
	case !r.Amount.IsPositive():
		return paramErr("amount", "must be positive, got %s", r.Amount)
	case r.FromApplicationID == "":
		return paramErr("from_application_id", "required")
	case r.ToApplicationID == "":
		return paramErr("to_application_id", "required")
	case r.FromApplicationID == r.ToApplicationID:
		return paramErr("to_application_id", "same as from_application_id")
	}
	return nil
}

// Values returns the wire parameters.
func (r TransferRequest) Values() url.Values {
	return url.Values{
		"token":               {r.Token},
		"amount":              {r.Amount.String()},
		"from_application_id": {r.FromApplicationID},
		"to_application_id":   {r.ToApplicationID},
	}
}

func checkSide(param string, s Side, required bool) error {
	switch {
	case s == "" && required:
		return paramErr(param, "required")
	case s == "" || s == Buy || s == Sell:
		return nil
	}
	return paramErr(param, "%q is not BUY or SELL", string(s))
}

func checkEnum(param, v string, allowed []string) error {
	if v == "" && !slices.Contains(allowed, "") {
		return paramErr(param, "required")
	}
	if !slices.Contains(allowed, v) {
		return paramErr(param, "%q is not one of %v", v, allowed)
	}
	return nil
}

func checkPaging(start, end time.Time, page int) error {
	switch {
	case page < 0:
		return paramErr("page", "must be 1 or more, got %d", page)
	case !start.IsZero() && start.UnixMilli() < 0:
		return paramErr("start_t", "before 1970")
	case !start.IsZero() && !end.IsZero() && end.Before(start):
		return paramErr("end_t", "before start_t")
	}
	return nil
}

func setString(v url.Values, name, s string) {
	if s != "" {
		v.Set(name, s)
	}
}

func setInt(v url.Values, name string, n int64) {
	if n != 0 {
		v.Set(name, strconv.FormatInt(n, 10))
	}
}

func setDecimal(v url.Values, name string, d decimal.Decimal) {
	if !d.IsZero() {
		v.Set(name, d.String())
	}
}

// setPaging writes start_t and end_t as 13-digit ms and the page.
func setPaging(v url.Values, start, end time.Time, page int) {
	if !start.IsZero() {
		v.Set("start_t", strconv.FormatInt(start.UnixMilli(), 10))
	}
	if !end.IsZero() {
		v.Set("end_t", strconv.FormatInt(end.UnixMilli(), 10))
	}
	setInt(v, "page", int64(page))
}
