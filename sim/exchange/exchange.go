// Package exchange is the simulated venue's state: the universe of tokens
// and symbols, one matching engine book per symbol, accounts with balances,
// frozen amounts, fees, margin and perpetual positions, funding, interest,
// subaccounts, transfers, and the event stream the Websocket layer pushes.
//
// An *Exchange is safe for concurrent use: one mutex serialises every
// operation, which keeps balances and books consistent with each other (a
// fill moves both at once) and is far from being the bottleneck of an HTTP
// server. Amounts are exact: int64 fixed-point inside the books, decimals
// for balances and fees.
package exchange

import (
	"math/rand/v2"
	"sort"
	"time"

	"github.com/shopspring/decimal"

	"tradedeck/fixed"
	"tradedeck/sim/engine"
	"tradedeck/sim/journal"
	"tradedeck/venue"
)

// Clock tells the venue's time; tests inject a settable one.
type Clock func() time.Time

// Options configure a new Exchange.
type Options struct {
	Universe        *Universe // nil: the embedded default
	Seed            int64     // seeds the initial liquidity; same seed, same venue
	Clock           Clock     // nil: time.Now
	NoSeedLiquidity bool      // start with empty books
	// NoHistory starts without the synthetic past (backfill.go): no candles
	// and no public trades before the first live trade.
	NoHistory bool
}

// Exchange is the whole venue state.
type Exchange struct {
	mu    stateLock // journals user changes as it is released (journal.go)
	clock Clock
	u     *Universe
	rng   *rand.Rand

	markets    map[string]*market
	marketList []*market
	tokens     map[string]*TokenSpec
	networks   map[string]networkRef // network-qualified token -> its network

	accounts []*Account // index = engine owner
	byKey    map[string]*APIKey
	byApp    map[string]*Account
	byName   map[string]*Account

	orders      map[int64]*orderState // every known order by id
	nextOrderID int64
	nextTradeID int64
	nextXferID  int64
	nextAssetID int64
	transfers   []Transfer

	fundingNext  int64 // ms of the next funding settlement
	interestNext int64 // ms of the next hourly interest accrual
	dayStart     int64 // ms of the UTC day the 24h counters belong to

	subs        map[int]*subscriber
	nextSub     int
	droppedSubs int64
	dirty       bool // user state changed since the last snapshot
	marketDirty bool // only market data (books, public trades, candles) changed

	fills []engine.Fill // scratch for Submit

	capturing bool // CaptureBooks has run: markets record the levels they change

	journal    *journal.Journal // nil: changes are only saved by snapshots
	jseq       int64            // sequence number of the last record appended
	jdirty     bool             // user state changed since the last record
	jorders    []*orderState    // user orders changed since the last record
	jtransfers int              // transfers already recorded
	jreset     bool             // ResetAccounts ran since the last record
}

type networkRef struct {
	spec  NetworkSpec
	token string // the balance token
}

// New builds the venue: books for every symbol, the demo accounts funded
// (recorded as completed deposits) and, unless disabled, resting liquidity
// around each symbol's initial price.
func New(opts Options) (*Exchange, error) {
	u := opts.Universe
	if u == nil {
		var err error
		if u, err = DefaultUniverse(); err != nil {
			return nil, err
		}
	}
	clock := opts.Clock
	if clock == nil {
		clock = time.Now
	}
	e := &Exchange{
		clock:       clock,
		u:           u,
		rng:         rand.New(rand.NewPCG(uint64(opts.Seed), 0x7261646564656b)),
		markets:     map[string]*market{},
		tokens:      map[string]*TokenSpec{},
		networks:    map[string]networkRef{},
		byKey:       map[string]*APIKey{},
		byApp:       map[string]*Account{},
		byName:      map[string]*Account{},
		orders:      map[int64]*orderState{},
		subs:        map[int]*subscriber{},
		nextOrderID: 1_000_000 + opts.Seed%1000*1000,
		nextTradeID: 5_000_000,
		nextXferID:  100,
		nextAssetID: 1,
	}
	e.mu.e = e
	for i := range u.Tokens {
		t := &u.Tokens[i]
		e.tokens[t.Token] = t
		for _, n := range t.Networks {
			e.networks[n.Token] = networkRef{spec: n, token: t.Token}
		}
		if len(t.Networks) == 0 {
			e.networks[t.Token] = networkRef{spec: NetworkSpec{Protocol: t.Token, Token: t.Token, Name: t.Fullname}, token: t.Token}
		}
	}
	now := e.nowMs()
	for _, s := range u.Symbols {
		m := newMarket(s, u.CreatedTime)
		m.ts = now
		e.markets[s.Symbol] = m
		e.marketList = append(e.marketList, m)
	}
	sort.Slice(e.marketList, func(i, j int) bool { return e.marketList[i].spec.Symbol < e.marketList[j].spec.Symbol })
	for _, spec := range u.Accounts {
		if spec.Main == "" {
			e.addAccount(spec, nil)
		}
	}
	for _, spec := range u.Accounts {
		if spec.Main != "" {
			e.addAccount(spec, e.byName[spec.Main])
		}
	}
	for _, spec := range u.Accounts {
		a := e.byName[spec.Name]
		for _, tok := range sortedKeys(spec.Balances) {
			e.creditDeposit(a, tok, spec.Balances[tok], now)
		}
	}
	interval := int64(u.FundingIntervalHours) * 3600_000
	e.fundingNext = (now/interval + 1) * interval
	e.interestNext = (now/3600_000 + 1) * 3600_000
	e.dayStart = now / 86400_000 * 86400_000
	e.backfillFunding(interval)
	if !opts.NoHistory {
		e.backfillAll(opts.Seed)
	}
	if !opts.NoSeedLiquidity {
		e.seedLiquidity()
	}
	e.dirty, e.marketDirty = false, false
	e.markJournaled()
	return e, nil
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func (e *Exchange) nowMs() int64 { return e.clock().UnixMilli() }

// Now is the venue's time in ms.
func (e *Exchange) Now() int64 { return e.nowMs() }

// market is one symbol: its rule, book and public history.
type market struct {
	spec       SymbolSpec
	kind       string // SPOT or PERP
	base       string
	quote      string
	pd, qd     int // price and quantity decimals
	quoteMin   int64
	quoteMax   int64
	quoteTick  int64
	baseMin    int64
	baseMax    int64
	baseTick   int64
	createdSec int64 // ms
	// price_range as rangeFx/rangeOne and min_notional in price*quantity
	// units, so the filters compare exact integer products
	rangeFx, rangeOne int64
	minNotionalFx     int64 // at pd+qd decimals, when minNotionalOK
	minNotionalOK     bool
	book              *engine.Book
	ts                int64          // ms of the last book change, or the label of the last capture
	captured          bool           // ts is a capture's label: the next change must be stamped after it
	touched           []TouchedLevel // levels changed since the last capture, see noteLevel
	touchedLimit      int            // len of touched that triggers a compaction

	last       int64 // last trade price (fixed), initial price before any trade
	trades     []PublicTrade
	candles    candleSeries
	mark       decimal.Decimal
	index      decimal.Decimal
	markSet    bool
	funding    decimal.Decimal // the estimated funding rate another venue publishes (SetFundingRate)
	fundingSet bool
	indexSet   bool
	fundHist   []FundingRateRecord
	lastRate   decimal.Decimal
	lastRateMs int64
}

func newMarket(s SymbolSpec, created int64) *market {
	kind, base, quote, _ := SplitSymbol(s.Symbol)
	pd, qd := fixed.DecimalsOf(s.QuoteTick), fixed.DecimalsOf(s.BaseTick)
	fx := func(d decimal.Decimal, dec int) int64 { v, _ := toFixed(d, dec); return v }
	rd := fixed.DecimalsOf(s.PriceRange)
	minFx, minOK := toFixed(s.MinNotional, pd+qd)
	m := &market{
		spec: s, kind: kind, base: base, quote: quote, pd: pd, qd: qd,
		quoteMin: fx(s.QuoteMin, pd), quoteMax: fx(s.QuoteMax, pd), quoteTick: fx(s.QuoteTick, pd),
		baseMin: fx(s.BaseMin, qd), baseMax: fx(s.BaseMax, qd), baseTick: fx(s.BaseTick, qd),
		createdSec: created,
		book:       engine.New(pd, qd),
		rangeFx:    fx(s.PriceRange, rd), rangeOne: fixed.Pow10(rd),
		minNotionalFx: minFx, minNotionalOK: minOK,
		last: fx(s.InitialPrice, pd),
	}
	return m
}

func (m *market) perp() bool { return m.kind == "PERP" }

func (m *market) price(v int64) decimal.Decimal { return fixed.ToDecimal(v, m.pd) }
func (m *market) qty(v int64) decimal.Decimal   { return fixed.ToDecimal(v, m.qd) }

// markPrice is the mark of a perpetual: set by the market generator, else
// the last trade price.
func (m *market) markPrice() decimal.Decimal {
	if m.markSet {
		return m.mark
	}
	return m.price(m.last)
}

func (m *market) indexPrice() decimal.Decimal {
	if m.indexSet {
		return m.index
	}
	return m.markPrice()
}

// touch records a book change at the venue time, never going backwards, and always after the
// label of the last capture: a snapshot stamped with a capture's label is that capture's book, so
// a client knows exactly which pushes its snapshot already holds.
func (e *Exchange) touch(m *market) {
	now := e.nowMs()
	if m.captured {
		now = max(now, m.ts+1)
		m.captured = false
	}
	if now > m.ts {
		m.ts = now
	}
	e.marketDirty = true
}

func (e *Exchange) market(symbol string) (*market, *Error) {
	m, ok := e.markets[symbol]
	if !ok {
		return nil, errf(venue.CodeInvalidParam, "symbol %s not found", symbol)
	}
	return m, nil
}

// fundingBackfill is how many past settlements each perpetual starts with.
const fundingBackfill = 90

// backfillFunding gives every perpetual a month of past funding rates
// (around the 0.01 % baseline, drawn from the seed) so rate history and
// charts are not empty at start. No account held a position then, so no
// fees are booked for them.
func (e *Exchange) backfillFunding(interval int64) {
	for _, m := range e.marketList {
		if !m.perp() {
			continue
		}
		for k := fundingBackfill; k >= 1; k-- {
			ts := e.fundingNext - int64(k)*interval
			rate := fundingBaseline.Add(decimal.New(int64(e.rng.IntN(401)-200), -6))
			m.fundHist = append(m.fundHist, FundingRateRecord{Symbol: m.spec.Symbol, Rate: rate, TimestampMs: ts, NextFundingTime: ts + interval})
			m.lastRate, m.lastRateMs = rate, ts
		}
	}
}
