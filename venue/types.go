package venue

import (
	"github.com/shopspring/decimal"
)

// Wire types of every REST resource of the venue (WOO X API docs,
// https://docs.woox.io/).
// Field names follow the JSON keys; decoding accepts numbers as numbers or
// strings (see wire.go). Fields the real venue sends beyond the spec
// (seen in recorded replies, testdata/) are kept where a trader would want them.

// Side of an order or trade.
type Side string

// Sides.
const (
	Buy  Side = "BUY"
	Sell Side = "SELL"
)

// OrderType is the type of an order on placement (and LIQUIDATE in listings).
type OrderType string

// Order types.
const (
	Limit     OrderType = "LIMIT"
	Market    OrderType = "MARKET"
	IOC       OrderType = "IOC"
	FOK       OrderType = "FOK"
	PostOnly  OrderType = "POST_ONLY"
	Ask       OrderType = "ASK"
	Bid       OrderType = "BID"
	Liquidate OrderType = "LIQUIDATE" // listing filter only
)

// OrderStatus is the status of an order. Incomplete and Completed are
// grouped filter values of the order listing only.
type OrderStatus string

// Order statuses.
const (
	StatusNew           OrderStatus = "NEW"
	StatusPartialFilled OrderStatus = "PARTIAL_FILLED"
	StatusFilled        OrderStatus = "FILLED"
	StatusCancelled     OrderStatus = "CANCELLED"
	StatusRejected      OrderStatus = "REJECTED"
	StatusIncomplete    OrderStatus = "INCOMPLETE" // filter: NEW + PARTIAL_FILLED
	StatusCompleted     OrderStatus = "COMPLETED"  // filter: CANCELLED + FILLED
)

// Open reports whether an order in status s can still trade.
func (s OrderStatus) Open() bool { return s == StatusNew || s == StatusPartialFilled }

// AccountMode is the trading mode of an account.
type AccountMode string

// Account modes.
const (
	PureSpot AccountMode = "PURE_SPOT"
	Margin   AccountMode = "MARGIN"
	Futures  AccountMode = "FUTURES"
)

// Cancel reply statuses.
const (
	CancelSent    = "CANCEL_SENT"
	CancelAllSent = "CANCEL_ALL_SENT"
)

// Meta is the paging object of listings. Total is nil when the reply has
// none (asset history, interest history).
type Meta struct {
	Total          *Int `json:"total,omitempty"`
	RecordsPerPage Int  `json:"records_per_page"`
	CurrentPage    Int  `json:"current_page"`
}

// HasNext reports whether a page after this one exists. Without a total it
// guesses from a full page (rows == records per page).
func (m Meta) HasNext(rows int) bool {
	if m.Total != nil {
		return int64(m.CurrentPage)*int64(m.RecordsPerPage) < int64(*m.Total)
	}
	return m.RecordsPerPage > 0 && int64(rows) >= int64(m.RecordsPerPage)
}

// SymbolRule is a symbol's trading rule (exchange information).
type SymbolRule struct {
	Symbol      string          `json:"symbol"`
	QuoteMin    decimal.Decimal `json:"quote_min"`
	QuoteMax    decimal.Decimal `json:"quote_max"`
	QuoteTick   decimal.Decimal `json:"quote_tick"`
	BaseMin     decimal.Decimal `json:"base_min"`
	BaseMax     decimal.Decimal `json:"base_max"`
	BaseTick    decimal.Decimal `json:"base_tick"`
	MinNotional decimal.Decimal `json:"min_notional"`
	PriceRange  decimal.Decimal `json:"price_range"`
	CreatedTime SecTime         `json:"created_time"`
	UpdatedTime SecTime         `json:"updated_time"`
}

// MarketTrade is a public trade.
type MarketTrade struct {
	Symbol            string          `json:"symbol"`
	Side              Side            `json:"side"`
	ExecutedPrice     decimal.Decimal `json:"executed_price"`
	ExecutedQuantity  decimal.Decimal `json:"executed_quantity"`
	ExecutedTimestamp SecTime         `json:"executed_timestamp"`
}

// Token is a public token (the token name may carry a network qualifier,
// as used by deposit calls).
type Token struct {
	CreatedTime  SecTime `json:"created_time"`
	UpdatedTime  SecTime `json:"updated_time"`
	Token        string  `json:"token"`
	BalanceToken string  `json:"balance_token"`
	Fullname     string  `json:"fullname"`
	Decimals     Int     `json:"decimals"`
}

// TokenNetwork is a token on one network, with withdrawal terms.
type TokenNetwork struct {
	Protocol          string          `json:"protocol"`
	Token             string          `json:"token"`
	Name              string          `json:"name"`
	MinimumWithdrawal decimal.Decimal `json:"minimum_withdrawal"`
	WithdrawalFee     decimal.Decimal `json:"withdrawal_fee"`
	AllowDeposit      Flag            `json:"allow_deposit"`
	AllowWithdraw     Flag            `json:"allow_withdraw"`
}

// FundingRate is the funding rate record of a perpetual symbol.
type FundingRate struct {
	Symbol                   string          `json:"symbol"`
	EstFundingRate           decimal.Decimal `json:"est_funding_rate"`
	EstFundingRateTimestamp  MsTime          `json:"est_funding_rate_timestamp"`
	LastFundingRate          decimal.Decimal `json:"last_funding_rate"`
	LastFundingRateTimestamp MsTime          `json:"last_funding_rate_timestamp"`
	NextFundingTime          MsTime          `json:"next_funding_time"`
}

// FundingRateHistory is one row of the funding rate history. The timestamp
// is documented as ms but sampled as seconds: EpochTime reads both.
type FundingRateHistory struct {
	Symbol               string          `json:"symbol"`
	FundingRate          decimal.Decimal `json:"funding_rate"`
	FundingRateTimestamp EpochTime       `json:"funding_rate_timestamp"`
	NextFundingTime      EpochTime       `json:"next_funding_time"`
}

// FuturesInfo is the public market state of a perpetual symbol.
type FuturesInfo struct {
	Symbol          string          `json:"symbol"`
	IndexPrice      decimal.Decimal `json:"index_price"`
	MarkPrice       decimal.Decimal `json:"mark_price"`
	EstFundingRate  decimal.Decimal `json:"est_funding_rate"`
	LastFundingRate decimal.Decimal `json:"last_funding_rate"`
	NextFundingTime MsTime          `json:"next_funding_time"`
	OpenInterest    decimal.Decimal `json:"open_interest"`
	Open24h         decimal.Decimal `json:"24h_open"`
	Close24h        decimal.Decimal `json:"24h_close"`
	High24h         decimal.Decimal `json:"24h_high"`
	Low24h          decimal.Decimal `json:"24h_low"`
	Volume24h       decimal.Decimal `json:"24h_volume"`
	Amount24h       decimal.Decimal `json:"24h_amount"`
}

// TokenConfig is the account's configuration of one token.
type TokenConfig struct {
	Token               string          `json:"token"`
	CollateralRatio     decimal.Decimal `json:"collateral_ratio"`
	MarginFactor        decimal.Decimal `json:"margin_factor"`
	FuturesMarginFactor decimal.Decimal `json:"futures_margin_factor"`
	Collateral          Bool            `json:"collateral"`
	CanCollateral       Bool            `json:"can_collateral"`
	CanShort            Bool            `json:"can_short"`
	Stable              Bool            `json:"stable"`
}

// Order is an order as read back. Transactions is filled only by the reads
// of one order (by id or client id), never by listings.
type Order struct {
	OrderID              Int                 `json:"order_id"`
	ClientOrderID        Int                 `json:"client_order_id"`
	OrderTag             string              `json:"order_tag"`
	Symbol               string              `json:"symbol"`
	Side                 Side                `json:"side"`
	Type                 OrderType           `json:"type"`
	Status               OrderStatus         `json:"status"`
	Price                decimal.NullDecimal `json:"price"` // null for MARKET orders
	Quantity             decimal.NullDecimal `json:"quantity"`
	Amount               decimal.NullDecimal `json:"amount"`
	Visible              decimal.Decimal     `json:"visible"`
	Executed             decimal.Decimal     `json:"executed"`
	TotalFee             decimal.Decimal     `json:"total_fee"`
	FeeAsset             string              `json:"fee_asset"` // "" when null
	AverageExecutedPrice decimal.NullDecimal `json:"average_executed_price"`
	ReduceOnly           Bool                `json:"reduce_only"`
	CreatedTime          SecTime             `json:"created_time"`
	UpdatedTime          SecTime             `json:"updated_time"`
	Reason               string              `json:"reason,omitempty"` // why it ended, when the venue says (the simulator does)
	Transactions         []Trade             `json:"Transactions,omitempty"`
}

// Remaining is the quantity still open (quantity - executed), zero when the
// order was placed by amount.
func (o Order) Remaining() decimal.Decimal {
	if !o.Quantity.Valid {
		return decimal.Zero
	}
	return o.Quantity.Decimal.Sub(o.Executed)
}

// Trade is an execution of one of the account's orders. The fee is in the
// base asset for BUY and in the quote asset for SELL.
type Trade struct {
	ID                Int             `json:"id"`
	Symbol            string          `json:"symbol"`
	OrderID           Int             `json:"order_id"`
	OrderTag          string          `json:"order_tag,omitempty"` // listings only
	Side              Side            `json:"side"`
	ExecutedPrice     decimal.Decimal `json:"executed_price"`
	ExecutedQuantity  decimal.Decimal `json:"executed_quantity"`
	ExecutedTimestamp SecTime         `json:"executed_timestamp"`
	IsMaker           Flag            `json:"is_maker"`
	Fee               decimal.Decimal `json:"fee"`
	FeeAsset          string          `json:"fee_asset"`
	RealizedPnL       decimal.Decimal `json:"realized_pnl"` // real venue, perpetuals; null when none
}

// HoldingV2 is one token's balance (GET /v2/client/holding).
type HoldingV2 struct {
	Token              string          `json:"token"`
	Holding            decimal.Decimal `json:"holding"`
	Frozen             decimal.Decimal `json:"frozen"`
	OutstandingHolding decimal.Decimal `json:"outstanding_holding"`
	PendingExposure    decimal.Decimal `json:"pending_exposure"`
	Interest           decimal.Decimal `json:"interest"`
	UpdatedTime        SecTime         `json:"updated_time"`
}

// Application is the account part of the account information.
type Application struct {
	ApplicationID       string          `json:"application_id"`
	Account             string          `json:"account"`
	Alias               string          `json:"alias"`
	AccountMode         AccountMode     `json:"account_mode"`
	Leverage            decimal.Decimal `json:"leverage"`
	TakerFeeRate        decimal.Decimal `json:"taker_fee_rate"`
	MakerFeeRate        decimal.Decimal `json:"maker_fee_rate"`
	InterestRate        decimal.Decimal `json:"interest_rate"`
	FuturesLeverage     decimal.Decimal `json:"futures_leverage"`
	FuturesTakerFeeRate decimal.Decimal `json:"futures_taker_fee_rate"`
	FuturesMakerFeeRate decimal.Decimal `json:"futures_maker_fee_rate"`
	OTPAuth             Bool            `json:"otpauth"`
}

// AccountInfo is the reply of GET /v1/client/info.
type AccountInfo struct {
	Application Application     `json:"application"`
	MarginRate  decimal.Decimal `json:"margin_rate"`
}

// AssetHistory is one deposit or withdrawal.
type AssetHistory struct {
	CreatedTime   SecTime             `json:"created_time"`
	UpdatedTime   SecTime             `json:"updated_time"`
	ID            string              `json:"id"`
	ExternalID    string              `json:"external_id"`
	ApplicationID string              `json:"application_id"` // "" when null
	Token         string              `json:"token"`
	TargetAddress string              `json:"target_address"`
	SourceAddress string              `json:"source_address"`
	Extra         string              `json:"extra"`
	Type          string              `json:"type"`       // BALANCE, COLLATERAL
	TokenSide     string              `json:"token_side"` // DEPOSIT, WITHDRAW
	Amount        decimal.Decimal     `json:"amount"`
	TxID          string              `json:"tx_id"`
	FeeToken      string              `json:"fee_token"` // "" when null
	FeeAmount     decimal.NullDecimal `json:"fee_amount"`
	Status        string              `json:"status"` // NEW, CONFIRMING, PROCESSING, COMPLETED, CANCELED
}

// DepositAddress is where to deposit a token.
type DepositAddress struct {
	Address string `json:"address"`
	Extra   string `json:"extra"`
}

// MarginInterestRate is a token's margin interest rate.
type MarginInterestRate struct {
	Token                 string  `json:"token"`
	CurrentHourlyBaseRate Percent `json:"current_hourly_base_rate"`
	EstHourlyBaseRate     Percent `json:"est_hourly_base_rate"`
	CurrentAnnualBaseRate Percent `json:"current_annual_base_rate"`
	EstAnnualBaseRate     Percent `json:"est_annual_base_rate"`
	EstTime               SecTime `json:"est_time"`
}

// InterestHistory is one interest loan or repayment.
type InterestHistory struct {
	CreatedTime   SecTime         `json:"created_time"`
	UpdatedTime   SecTime         `json:"updated_time"`
	Token         string          `json:"token"`
	ApplicationID string          `json:"application_id"` // "" when null
	Side          string          `json:"side"`           // LOAN, REPAY, AUTO_REPAY
	Interest      decimal.Decimal `json:"interest"`
}

// FundingFee is one funding fee payment of a perpetual position.
type FundingFee struct {
	ID          Int             `json:"id"`
	Symbol      string          `json:"symbol"`
	FundingRate decimal.Decimal `json:"funding_rate"`
	MarkPrice   decimal.Decimal `json:"mark_price"`
	FundingFee  decimal.Decimal `json:"funding_fee"`
	PaymentType string          `json:"payment_type"` // Receive, Pay
	Status      string          `json:"status"`
	CreatedTime SecTime         `json:"created_time"`
	UpdatedTime SecTime         `json:"updated_time"`
}

// Position is a perpetual position.
type Position struct {
	Symbol           string          `json:"symbol"`
	Holding          decimal.Decimal `json:"holding"`
	PendingLongQty   decimal.Decimal `json:"pending_long_qty"`
	PendingShortQty  decimal.Decimal `json:"pending_short_qty"`
	SettlePrice      decimal.Decimal `json:"settle_price"`
	AverageOpenPrice decimal.Decimal `json:"average_open_price"`
	PnL24h           decimal.Decimal `json:"pnl_24_h"`
	Fee24h           decimal.Decimal `json:"fee_24_h"`
	MarkPrice        decimal.Decimal `json:"mark_price"`
	EstLiqPrice      decimal.Decimal `json:"est_liq_price"` // real venue; absent in the spec
	Timestamp        SecTime         `json:"timestamp"`
}

// Positions is the reply of GET /v1/positions.
type Positions struct {
	CurrentMarginRatio     decimal.Decimal `json:"current_margin_ratio"`
	InitialMarginRatio     decimal.Decimal `json:"initial_margin_ratio"`
	MaintenanceMarginRatio decimal.Decimal `json:"maintenance_margin_ratio"`
	// Real venue fields beyond the spec (zero when absent).
	TotalCollateral   decimal.Decimal `json:"total_collateral"`
	FreeCollateral    decimal.Decimal `json:"free_collateral"`
	TotalAccountValue decimal.Decimal `json:"total_account_value"`
	Positions         []Position      `json:"positions"`
}

// SubAccount is a subaccount of the main account.
type SubAccount struct {
	ApplicationID string  `json:"application_id"`
	Account       string  `json:"account"`
	CreatedTime   SecTime `json:"created_time"`
}

// SubAccountAssets is the USDT value of one account (main included).
type SubAccountAssets struct {
	ApplicationID string          `json:"application_id"`
	Account       string          `json:"account"`
	USDTBalance   decimal.Decimal `json:"usdt_balance"`
}

// AssetBalance is one token's balance in the subaccount asset detail.
type AssetBalance struct {
	Holding   decimal.Decimal `json:"holding"`
	Frozen    decimal.Decimal `json:"frozen"`
	Interest  decimal.Decimal `json:"interest"`
	Staked    decimal.Decimal `json:"staked"`
	Unbonding decimal.Decimal `json:"unbonding"`
	Vault     decimal.Decimal `json:"vault"`
}

// SubAccountAssetDetail is the per-token balances of one account.
type SubAccountAssetDetail struct {
	Balances      map[string]AssetBalance `json:"balances"`
	Account       string                  `json:"account"`
	ApplicationID string                  `json:"application_id"`
}

// IPRestriction is the IP allow list of an api key.
type IPRestriction struct {
	IPList     string  `json:"ip_list"` // comma separated
	APIKey     string  `json:"api_key"`
	UpdateTime SecTime `json:"update_time"`
	Restrict   Bool    `json:"restrict"`
}

// Transfer is one transfer between the main account and a subaccount.
type Transfer struct {
	ID                Int             `json:"id"`
	Token             string          `json:"token"`
	Amount            decimal.Decimal `json:"amount"`
	Status            string          `json:"status"`
	FromApplicationID string          `json:"from_application_id"`
	ToApplicationID   string          `json:"to_application_id"`
	FromUser          string          `json:"from_user"`
	ToUser            string          `json:"to_user"`
	CreatedTime       SecTime         `json:"created_time"`
	UpdatedTime       SecTime         `json:"updated_time"`
}

// Kline is one candle.
type Kline struct {
	Open           decimal.Decimal `json:"open"`
	Close          decimal.Decimal `json:"close"`
	Low            decimal.Decimal `json:"low"`
	High           decimal.Decimal `json:"high"`
	Volume         decimal.Decimal `json:"volume"`
	Amount         decimal.Decimal `json:"amount"`
	Symbol         string          `json:"symbol"`
	Type           string          `json:"type"` // interval
	StartTimestamp MsTime          `json:"start_timestamp"`
	EndTimestamp   MsTime          `json:"end_timestamp"`
}

// BookLevel is one price level of the REST order book.
type BookLevel struct {
	Price    decimal.Decimal `json:"price"`
	Quantity decimal.Decimal `json:"quantity"`
}

// OrderBook is the REST order book snapshot. The real venue sends asks
// ascending and bids descending; the client keeps the
// order as received.
type OrderBook struct {
	Asks      []BookLevel `json:"asks"`
	Bids      []BookLevel `json:"bids"`
	Timestamp MsTime      `json:"timestamp"`
}

// OrderAck is the reply to POST /v1/order: the order was accepted; its
// progress arrives on the private stream (executionreport).
type OrderAck struct {
	OrderID       Int                 `json:"order_id"`
	ClientOrderID Int                 `json:"client_order_id"`
	OrderType     OrderType           `json:"order_type"`
	OrderPrice    decimal.NullDecimal `json:"order_price"`
	OrderQuantity decimal.NullDecimal `json:"order_quantity"`
	OrderAmount   decimal.NullDecimal `json:"order_amount"`
	ReduceOnly    Bool                `json:"reduce_only"`
	Timestamp     SecTime             `json:"timestamp"`
}

// SystemStatus is the reply of GET /v1/public/system_info, a real-venue
// endpoint outside the spec (status 0 = normal, 2 = maintenance); kept so
// that recorded samples decode. The client does not call it.
type SystemStatus struct {
	Data struct {
		Status Int    `json:"status"`
		Msg    string `json:"msg"`
	} `json:"data"`
	Timestamp MsTime `json:"timestamp"`
}
