// Package feed is tradedeck's live data: Websocket connections to the
// venue's market and private streams, keep-alive and reconnect, order book
// sync, account state reconciled with REST, and a coalescer that hands the
// UI at most one Update per frame interval.
//
// This file is the contract between feed (producer) and the UI (consumer).
// Everything in an Update is an immutable snapshot: the feed never mutates
// a value after it was handed out, so panes may keep and compare them.
package feed

import (
	"maps"
	"time"

	"github.com/shopspring/decimal"
)

// Scale gives the decimals of the fixed-point prices and quantities of a
// symbol (value v with PriceDec decimals stands for v / 10^PriceDec).
// Derived from the symbol rule's quote_tick and base_tick.
type Scale struct {
	PriceDec int
	QtyDec   int
}

// Side of a trade or order.
type Side uint8

const (
	Buy  Side = 1
	Sell Side = 2
)

func (s Side) String() string {
	switch s {
	case Buy:
		return "BUY"
	case Sell:
		return "SELL"
	}
	return "?"
}

// Level is one price level, fixed-point in the symbol's Scale.
type Level struct {
	Price int64
	Qty   int64
}

// SyncState says whether a book (or other synced data) can be trusted.
type SyncState uint8

const (
	SyncNone  SyncState = iota // not subscribed
	Syncing                    // waiting for the snapshot and the first delta
	Live                       // in sync with the venue
	Stale                      // in sync when last seen, but no update for too long
	Resyncing                  // a gap, crossed book or reconnect: being rebuilt
)

var syncStateNames = [...]string{"none", "syncing", "live", "stale", "resyncing"}

func (s SyncState) String() string {
	if int(s) < len(syncStateNames) {
		return syncStateNames[s]
	}
	return "unknown"
}

// Book is a snapshot of one symbol's order book.
type Book struct {
	Symbol  string
	Scale   Scale
	Asks    []Level // ascending price, best first
	Bids    []Level // descending price, best first
	TS      int64   // venue time (ms) of the last applied update
	State   SyncState
	Age     time.Duration // time since the last applied update, at snapshot time
	Version uint64        // increases with every change
	Gaps    uint64        // prevTs chain breaks detected
	Resyncs uint64
}

// Trade is one public trade.
type Trade struct {
	Price int64
	Qty   int64
	Side  Side  // taker side
	TS    int64 // venue ms
}

// Trades is the recent public trades of a symbol, newest first, bounded.
// Rows is shared with the feed's later snapshots (and, as every snapshot,
// with every session a hub hands it to): read it, never write it.
type Trades struct {
	Symbol  string
	Scale   Scale
	Rows    []Trade
	Version uint64
}

// BBO is the best bid and offer of a symbol.
type BBO struct {
	Symbol  string
	Scale   Scale
	Bid     int64
	BidSize int64
	Ask     int64
	AskSize int64
	TS      int64
}

// Ticker is the 24h statistics of a symbol.
type Ticker struct {
	Symbol string
	Open   decimal.Decimal
	Close  decimal.Decimal // last price
	High   decimal.Decimal
	Low    decimal.Decimal
	Volume decimal.Decimal // base
	Amount decimal.Decimal // quote
	Count  int64
	TS     int64
}

// Candle is one kline.
type Candle struct {
	Start  int64 // ms
	End    int64 // ms
	Open   decimal.Decimal
	High   decimal.Decimal
	Low    decimal.Decimal
	Close  decimal.Decimal
	Volume decimal.Decimal
	Amount decimal.Decimal
}

// Candles is a kline series: REST history merged with live pushes.
type Candles struct {
	Symbol   string
	Interval string   // 1m 5m 15m 30m 1h 1d 1w 1M
	Rows     []Candle // oldest first
	Loaded   bool     // history has been fetched
	Version  uint64
}

// CandleKey is the key of Update.Candles.
func CandleKey(symbol, interval string) string { return symbol + "@" + interval }

// Futures is the perpetual-swap data of a symbol.
type Futures struct {
	Symbol          string
	MarkPrice       decimal.Decimal
	IndexPrice      decimal.Decimal
	EstFundingRate  decimal.Decimal
	LastFundingRate decimal.Decimal
	NextFunding     time.Time
	OpenInterest    decimal.Decimal
	TS              int64
}

// Order is an order of the account, merged from REST and executionreport.
type Order struct {
	OrderID       int64
	ClientOrderID int64
	Symbol        string
	Side          string // BUY, SELL
	Type          string // LIMIT, MARKET, IOC, FOK, POST_ONLY, ASK, BID
	Status        string // NEW, PARTIAL_FILLED, FILLED, CANCELLED, REJECTED; PENDING before the venue acked
	Tag           string
	Reason        string // reject or cancel reason
	Price         decimal.Decimal
	Quantity      decimal.Decimal
	Amount        decimal.Decimal // quote size when placed by amount
	Visible       decimal.Decimal
	Executed      decimal.Decimal
	AvgPrice      decimal.Decimal
	TotalFee      decimal.Decimal
	FeeAsset      string
	Created       time.Time
	Updated       time.Time
}

// StatusPending is the local status of an order sent but not yet acked.
const StatusPending = "PENDING"

// Open reports whether the order can still trade.
func (o Order) Open() bool {
	return o.Status == "NEW" || o.Status == "PARTIAL_FILLED" || o.Status == StatusPending
}

// Fill is one execution of an own order.
type Fill struct {
	TradeID       int64
	OrderID       int64
	ClientOrderID int64
	Symbol        string
	Side          string
	Price         decimal.Decimal
	Qty           decimal.Decimal
	Fee           decimal.Decimal
	FeeAsset      string
	Maker         bool
	Time          time.Time
	// RealizedPnL is the venue's realised profit of this fill (perpetuals,
	// REST trade field realized_pnl; zero until the REST listing brings it,
	// the stream's executionreport does not carry it).
	RealizedPnL decimal.Decimal
}

// Balance is one token of the account.
type Balance struct {
	Token              string
	Holding            decimal.Decimal
	Frozen             decimal.Decimal
	Interest           decimal.Decimal
	OutstandingHolding decimal.Decimal
	PendingExposure    decimal.Decimal
	Updated            time.Time
}

// Available is what can be used for new orders.
func (b Balance) Available() decimal.Decimal { return b.Holding.Sub(b.Frozen) }

// Position is a perpetual position.
type Position struct {
	Symbol       string
	Holding      decimal.Decimal // signed: negative is short
	PendingLong  decimal.Decimal
	PendingShort decimal.Decimal
	AvgOpenPrice decimal.Decimal
	SettlePrice  decimal.Decimal
	MarkPrice    decimal.Decimal
	EstLiqPrice  decimal.Decimal // estimated liquidation price (REST only; zero when unknown)
	PnL24h       decimal.Decimal
	Fee24h       decimal.Decimal
	Updated      time.Time
}

// UnrealizedPnL at the given mark price (exact).
func (p Position) UnrealizedPnL(mark decimal.Decimal) decimal.Decimal {
	return mark.Sub(p.AvgOpenPrice).Mul(p.Holding)
}

// Margin is the account-level data of positioninfo / account info.
type Margin struct {
	Mode       string // PURE_SPOT, MARGIN, FUTURES
	MarginRate decimal.Decimal
	Leverage   decimal.Decimal // margin leverage (MARGIN mode)
	// FuturesLeverage applies to perpetuals in FUTURES mode (0 when unknown).
	FuturesLeverage decimal.Decimal
	TakerFeeRate    decimal.Decimal // spot, basis points
	MakerFeeRate    decimal.Decimal
	// Perpetuals pay their own rates (futures_taker/maker_fee_rate).
	FuturesTakerFeeRate decimal.Decimal
	FuturesMakerFeeRate decimal.Decimal
}

// Collateral is the account-wide margin picture of GET /v1/positions (the
// real venue's fields; zero when the venue does not send them).
type Collateral struct {
	TotalCollateral        decimal.Decimal
	FreeCollateral         decimal.Decimal
	TotalAccountValue      decimal.Decimal // equity
	CurrentMarginRatio     decimal.Decimal
	InitialMarginRatio     decimal.Decimal // margin used = notional x this
	MaintenanceMarginRatio decimal.Decimal
	Known                  bool // a positions reply has been read
}

// ModeLeverage is the leverage that applies in the account's mode: the
// futures leverage in FUTURES mode, the margin leverage in MARGIN mode,
// none in PURE_SPOT.
func (m Margin) ModeLeverage() decimal.Decimal {
	switch m.Mode {
	case "FUTURES":
		return m.FuturesLeverage
	case "MARGIN":
		return m.Leverage
	}
	return decimal.Zero
}

// Account is a snapshot of the account's state.
type Account struct {
	Open       []Order // open and pending orders, newest first
	History    []Order // recent completed orders (FILLED, CANCELLED, REJECTED), newest first, bounded
	Fills      []Fill  // recent own trades, newest first, bounded
	Balances   []Balance
	Positions  []Position
	Margin     Margin
	Collateral Collateral
	Reconciled time.Time // last successful REST reconciliation
	Version    uint64
}

// StreamState is the connection state of one Websocket stream.
type StreamState uint8

const (
	Connecting   StreamState = iota
	Connected                // live
	StreamStale              // connected but silent for too long
	Reconnecting             // waiting RetryIn before the next attempt
	AuthFailed               // private stream refused our key (no retry storm)
	Stopped
)

var streamStateNames = [...]string{"connecting", "live", "stale", "reconnecting", "auth failed", "stopped"}

func (s StreamState) String() string {
	if int(s) < len(streamStateNames) {
		return streamStateNames[s]
	}
	return "unknown"
}

// Health of one stream, for the status bar.
type Health struct {
	Stream     string // "market" or "private"
	State      StreamState
	RetryIn    time.Duration // when Reconnecting
	MsgsPerSec float64
	LastMsg    time.Time
	Latency    time.Duration // venue ts vs local clock, smoothed
	Gaps       uint64
	Resyncs    uint64
	Reconnects uint64
	Err        string // last error; never contains a secret
}

// EventKind classifies an Event.
type EventKind uint8

const (
	EventInfo      EventKind = iota
	EventOrderAck            // venue accepted an order (NEW)
	EventFill                // an own order traded
	EventCancelled           // an own order was cancelled
	EventRejected            // an own order was rejected (Reason says why)
	EventError               // a feed error the user should see (REST failure, auth failure, ...)
)

// Event must reach the UI exactly once, in order (fills, acks, rejects, errors).
type Event struct {
	Kind   EventKind
	Time   time.Time
	Symbol string
	Order  *Order
	Fill   *Fill
	Text   string // human-readable one-liner
}

// Update is what the coalescer hands the UI, at most once per frame
// interval. Maps hold only what changed since the previous Update.
type Update struct {
	Seq     uint64
	Books   map[string]*Book
	Trades  map[string]*Trades
	BBOs    map[string]BBO
	Tickers map[string]Ticker
	Candles map[string]*Candles // key CandleKey(symbol, interval)
	Futures map[string]Futures
	Account *Account // nil when unchanged
	Health  []Health // nil when unchanged
	Events  []Event  // must-deliver, each exactly once, in order
}

// State is the latest value of everything the feed sent: Updates folded
// together. Updates carry only what changed; a consumer that needs the
// current book or ticker of any symbol (the UI's store, tests) applies
// each Update here.
type State struct {
	Seq     uint64
	Books   map[string]*Book
	Trades  map[string]*Trades
	BBOs    map[string]BBO
	Tickers map[string]Ticker
	Candles map[string]*Candles
	Futures map[string]Futures
	Account *Account
	Health  []Health
}

// NewState returns an empty State.
func NewState() State {
	return State{
		Books:   map[string]*Book{},
		Trades:  map[string]*Trades{},
		BBOs:    map[string]BBO{},
		Tickers: map[string]Ticker{},
		Candles: map[string]*Candles{},
		Futures: map[string]Futures{},
	}
}

// Apply folds u into s. Events are not state: the caller handles them.
func (s *State) Apply(u *Update) {
	s.Seq = u.Seq
	maps.Copy(s.Books, u.Books)
	maps.Copy(s.Trades, u.Trades)
	maps.Copy(s.BBOs, u.BBOs)
	maps.Copy(s.Tickers, u.Tickers)
	maps.Copy(s.Candles, u.Candles)
	maps.Copy(s.Futures, u.Futures)
	if u.Account != nil {
		s.Account = u.Account
	}
	if u.Health != nil {
		s.Health = u.Health
	}
}
