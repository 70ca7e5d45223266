package exchange

import (
	"encoding/json"
	"fmt"
	"slices"

	"github.com/shopspring/decimal"

	"tradedeck/fixed"
	"tradedeck/sim/engine"
	"tradedeck/sim/journal"
)

// stateVersion guards against loading a state file of another layout.
const stateVersion = 1

type stateFile struct {
	Version int   `json:"version"`
	SavedMs int64 `json:"saved_ms"`
	counters
	JournalSeq int64          `json:"journal_seq"` // the last journal record this state includes
	Accounts   []accountState `json:"accounts"`
	Transfers  []Transfer     `json:"transfers"`
	Markets    []marketState  `json:"markets"`
}

// counters are the exchange's id sequences and the times of its next
// funding and interest runs, as the state file and every journal record
// carry them.
type counters struct {
	NextOrderID  int64 `json:"next_order_id"`
	NextTradeID  int64 `json:"next_trade_id"`
	NextXferID   int64 `json:"next_transfer_id"`
	NextAssetID  int64 `json:"next_asset_id"`
	FundingNext  int64 `json:"funding_next"`
	InterestNext int64 `json:"interest_next"`
}

// counters reads the counters (under the lock).
func (e *Exchange) counters() counters {
	return counters{NextOrderID: e.nextOrderID, NextTradeID: e.nextTradeID, NextXferID: e.nextXferID,
		NextAssetID: e.nextAssetID, FundingNext: e.fundingNext, InterestNext: e.interestNext}
}

// setCounters restores the counters (under the lock).
func (e *Exchange) setCounters(c counters) {
	e.nextOrderID, e.nextTradeID, e.nextXferID, e.nextAssetID = c.NextOrderID, c.NextTradeID, c.NextXferID, c.NextAssetID
	e.fundingNext, e.interestNext = c.FundingNext, c.InterestNext
}

type accountState struct {
	Name        string                   `json:"name"`
	Mode        string                   `json:"mode"`
	Leverage    int                      `json:"leverage"`
	FutLeverage int                      `json:"futures_leverage"`
	Balances    map[string]balanceState  `json:"balances"`
	Positions   map[string]positionState `json:"positions"`
	Keys        []keyState               `json:"keys"`
	Orders      []orderRecord            `json:"orders"`
	Trades      []Trade                  `json:"trades"`
	Assets      []AssetRecord            `json:"assets"`
	Interest    []InterestRecord         `json:"interest"`
	Funding     []FundingFee             `json:"funding"`
}

type balanceState struct {
	Holding  decimal.Decimal `json:"holding"`
	Frozen   decimal.Decimal `json:"frozen"`
	Interest decimal.Decimal `json:"interest"`
	Updated  int64           `json:"updated"`
}

type positionState struct {
	Qty      decimal.Decimal `json:"qty"`
	AvgOpen  decimal.Decimal `json:"avg_open"`
	Realised decimal.Decimal `json:"realised"`
	PnL24    decimal.Decimal `json:"pnl_24h"`
	Fee24    decimal.Decimal `json:"fee_24h"`
	Settle   decimal.Decimal `json:"settle"`
	Updated  int64           `json:"updated"`
}

type keyState struct {
	Key       string   `json:"key"`
	Revoked   bool     `json:"revoked"`
	IPs       []string `json:"ips"`
	UpdatedMs int64    `json:"updated_ms"`
}

type orderRecord struct {
	Order
	PriceFx   int64           `json:"price_fx"`
	QtyFx     int64           `json:"qty_fx"`
	ExecFx    int64           `json:"exec_fx"`
	Frozen    decimal.Decimal `json:"frozen"`
	FrozenTok string          `json:"frozen_token"`
}

type candleState struct {
	Start  int64           `json:"t"`
	Open   int64           `json:"o"`
	High   int64           `json:"h"`
	Low    int64           `json:"l"`
	Close  int64           `json:"c"`
	Volume int64           `json:"v"`
	Amount decimal.Decimal `json:"a"`
	Count  int             `json:"n"`
}

type marketState struct {
	Symbol     string              `json:"symbol"`
	Last       int64               `json:"last"`
	Trades     []PublicTrade       `json:"trades"`
	Minutes    []candleState       `json:"minutes"`
	Hours      []candleState       `json:"hours,omitempty"` // absent in older files: rebuilt from the minutes
	Days       []candleState       `json:"days"`
	FundHist   []FundingRateRecord `json:"funding_history"`
	LastRate   decimal.Decimal     `json:"last_rate"`
	LastRateMs int64               `json:"last_rate_ms"`
}

// Dirty reports whether anything changed since the last Snapshot.
func (e *Exchange) Dirty() bool {
	user, market := e.DirtyState()
	return user || market
}

// DirtyState tells what changed since the last Snapshot: user state
// (accounts, orders, trades: save soon) and market data only (books,
// public trades, candles: can wait).
func (e *Exchange) DirtyState() (user, market bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.dirty, e.marketDirty
}

// persistMinutes is how many minute candles per market a snapshot keeps
// (three days and the hour the past began in: all of the minutes drawn at
// start); hour and day candles are kept whole.
const persistMinutes = (backfillMinuteHours + 1) * 60

// Snapshot serialises the persistent state: user accounts with balances,
// positions, keys, orders (open ones go back on the book on restore),
// trades and histories, transfers, and each market's public history.
// Internal market participants are not saved: they rebuild on start.
// The state is copied under the lock and encoded after releasing it, so
// the venue does not stall while a large state is written.
func (e *Exchange) Snapshot() ([]byte, error) {
	b, _, err := e.Checkpoint()
	return b, err
}

// Checkpoint is Snapshot, also returning the sequence number of the last
// journal record the snapshot includes.
func (e *Exchange) Checkpoint() ([]byte, int64, error) {
	st, dec, minutes, hours, days := e.copyState()
	for i := range st.Markets {
		st.Markets[i].Minutes = candleStates(minutes[i], dec[i])
		st.Markets[i].Hours = candleStates(hours[i], dec[i])
		st.Markets[i].Days = candleStates(days[i], dec[i])
	}
	b, err := json.Marshal(&st)
	if err != nil {
		e.mu.Lock()
		e.dirty = true
		e.mu.Unlock()
	}
	return b, st.JournalSeq, err
}

func (e *Exchange) copyState() (st stateFile, dec []int, minutes, hours, days [][]candle) {
	e.mu.Lock()
	defer e.mu.Unlock()
	st = stateFile{
		Version: stateVersion, SavedMs: e.nowMs(), counters: e.counters(),
		Transfers: slices.Clone(e.transfers), JournalSeq: e.jseq,
	}
	for _, a := range e.accounts {
		if a.internal {
			continue
		}
		as := accountCore(a)
		as.Assets, as.Interest, as.Funding = slices.Clone(a.assets), slices.Clone(a.interest), slices.Clone(a.funding)
		for _, o := range a.orders {
			as.Orders = append(as.Orders, recordOf(o))
		}
		for _, t := range a.trades {
			as.Trades = append(as.Trades, *t)
		}
		st.Accounts = append(st.Accounts, as)
	}
	for _, m := range e.marketList {
		st.Markets = append(st.Markets, marketState{Symbol: m.spec.Symbol, Last: m.last, Trades: slices.Clone(m.trades),
			FundHist: slices.Clone(m.fundHist), LastRate: m.lastRate, LastRateMs: m.lastRateMs})
		mins := m.candles.minutes
		dec = append(dec, m.pd+m.qd)
		minutes = append(minutes, slices.Clone(mins[max(0, len(mins)-persistMinutes):]))
		hours = append(hours, slices.Clone(m.candles.hours))
		days = append(days, slices.Clone(m.candles.days))
	}
	e.dirty, e.marketDirty = false, false
	return st, dec, minutes, hours, days
}

func candleStates(cs []candle, dec int) []candleState {
	out := make([]candleState, len(cs))
	for i, c := range cs {
		out[i] = candleState{Start: c.start, Open: c.open, High: c.high, Low: c.low, Close: c.close, Volume: c.volume, Amount: c.amount.decimal(dec), Count: c.count}
	}
	return out
}

func candlesFrom(cs []candleState, dec int) []candle {
	out := make([]candle, len(cs))
	for i, c := range cs {
		out[i] = candle{start: c.Start, open: c.Open, high: c.High, low: c.Low, close: c.Close, volume: c.Volume, amount: u128From(c.Amount, dec), count: c.Count}
	}
	return out
}

// NewFromState builds the venue from its universe and then applies a
// saved state: balances, orders (open ones rest again, in time priority),
// trades and histories. The seed liquidity is added after the restored
// orders and never crosses them. Journal records newer than the state are
// replayed over it first.
func NewFromState(opts Options, state []byte, records ...journal.Record) (*Exchange, error) {
	var st stateFile
	if err := json.Unmarshal(state, &st); err != nil {
		return nil, fmt.Errorf("state: %w", err)
	}
	if st.Version != stateVersion {
		return nil, fmt.Errorf("state: version %d, want %d", st.Version, stateVersion)
	}
	if err := replayJournal(&st, records); err != nil {
		return nil, err
	}
	seed, history := !opts.NoSeedLiquidity, !opts.NoHistory
	opts.NoSeedLiquidity, opts.NoHistory = true, true
	e, err := New(opts)
	if err != nil {
		return nil, err
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	e.setCounters(st.counters)
	e.transfers = st.Transfers
	e.jseq = st.JournalSeq
	for _, ms := range st.Markets {
		m, ok := e.markets[ms.Symbol]
		if !ok {
			continue
		}
		m.last, m.trades, m.fundHist, m.lastRate, m.lastRateMs = ms.Last, ms.Trades, ms.FundHist, ms.LastRate, ms.LastRateMs
		m.candles = candleSeries{minutes: candlesFrom(ms.Minutes, m.pd+m.qd), hours: candlesFrom(ms.Hours, m.pd+m.qd), days: candlesFrom(ms.Days, m.pd+m.qd)}
		if len(ms.Hours) == 0 {
			m.candles.hours = aggregate(nil, m.candles.minutes, 3_600_000)
		}
	}
	var resting []*orderState
	for _, as := range st.Accounts {
		resting = append(resting, e.restoreAccount(as)...)
	}
	for _, o := range resting {
		o.acc.open[o.ID] = o
		rem := o.remainingFx()
		vis, _ := fixed.FromDecimal(o.Visible, o.m.qd)
		res, _ := o.m.book.Submit(engine.Order{ID: engine.OrderID(o.ID), Owner: o.acc.idx, Side: engineSide(o.Side),
			Kind: engine.PostOnly, Price: o.priceFx, Qty: rem, Visible: min(vis, rem)}, nil)
		if !res.Rested {
			e.finish(o, StatusCancelled, "could not be restored on the book")
		}
	}
	if history {
		// markets the saved state knew keep its history (the past drawn by the
		// first run, then what traded); only the ones without any get a past now
		e.backfillAll(opts.Seed)
	}
	if seed {
		e.seedLiquidity()
	}
	e.dirty, e.marketDirty = false, false
	e.markJournaled()
	return e, nil
}

// restoreAccount applies a saved account to its account of the universe
// and returns its open orders, to be put back on the books.
func (e *Exchange) restoreAccount(as accountState) []*orderState {
	var resting []*orderState
	a, ok := e.byName[as.Name]
	if !ok || a.internal {
		return nil
	}
	a.mode, a.leverage, a.futLeverage = as.Mode, as.Leverage, as.FutLeverage
	a.balances = map[string]*balance{}
	for t, b := range as.Balances {
		a.balances[t] = &balance{holding: b.Holding, frozen: b.Frozen, interest: b.Interest, updated: b.Updated}
	}
	for s, p := range as.Positions {
		a.positions[s] = &position{qty: p.Qty, avgOpen: p.AvgOpen, realised: p.Realised, pnl24: p.PnL24, fee24: p.Fee24, settle: p.Settle, updated: p.Updated}
	}
	for _, ks := range as.Keys {
		if k, ok := e.byKey[ks.Key]; ok && k.Account == a {
			k.Revoked, k.IPs, k.UpdatedMs = ks.Revoked, ks.IPs, ks.UpdatedMs
		}
	}
	a.assets, a.interest, a.funding = as.Assets, as.Interest, as.Funding
	a.trades = nil
	for i := range as.Trades {
		t := as.Trades[i]
		a.trades = append(a.trades, &t)
	}
	for _, r := range as.Orders {
		m, ok := e.markets[r.Symbol]
		if !ok {
			continue
		}
		o := &orderState{Order: r.Order, acc: a, m: m, priceFx: r.PriceFx, qtyFx: r.QtyFx, execFx: r.ExecFx, frozen: r.Frozen, frozenTok: r.FrozenTok}
		e.orders[o.ID] = o
		a.orders = append(a.orders, o)
		if o.Status.Open() {
			resting = append(resting, o)
		}
	}
	return resting
}
