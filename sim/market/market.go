// Package market is the simulated venue's living market: per symbol, synthetic participants
// trade through the same exchange as users (internal accounts, no rate limits), so the book,
// trades, tickers, klines, mark/index prices and funding all move together.
//
// Per symbol: a fair price takes a random walk; market makers quote several levels around it,
// skewed against their inventory; takers cross the spread leaning toward the fair price; now and
// then a sweep eats several levels. The index is the fair price with a little noise, the mark a
// smoothed mid. Each symbol has its own random source seeded from the seed, so Step (the
// deterministic, clock-free mode tests use) reproduces the same market for the same seed.
package market

import (
	"context"
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/shopspring/decimal"

	"tradedeck/fixed"
	"tradedeck/sim/exchange"
)

// Named rates: participant actions per second per symbol. An action is a requote (a cancel and
// a new order: two book changes), a take or a sweep.
const (
	RateCalm   = 3.0    // a few book changes per second per symbol, like a quiet real venue
	RateBusy   = 60.0   // a lively market
	RateStress = 2500.0 // tens of thousands of book changes a second over all symbols
)

// ParseRate reads calm, busy, stress, off or a number of actions per second per symbol.
func ParseRate(s string) (float64, error) {
	switch s {
	case "calm", "":
		return RateCalm, nil
	case "busy":
		return RateBusy, nil
	case "stress":
		return RateStress, nil
	case "off", "0":
		return 0, nil
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || v < 0 || math.IsInf(v, 0) || math.IsNaN(v) {
		return 0, fmt.Errorf("rate %q: want calm, busy, stress, off or actions per second per symbol", s)
	}
	return v, nil
}

// Options configure a Market.
type Options struct {
	Seed    uint64
	Rate    float64  // actions per second per symbol in Run (0: Run idles until SetRate)
	Symbols []string // nil: every symbol
}

// Market drives the participants of every symbol.
type Market struct {
	ex      *exchange.Exchange
	opts    Options
	symbols []*symbolSim
	rate    atomic.Uint64 // float64 bits
	actions atomic.Int64
}

// New prepares the participants; nothing trades before Run or Step.
func New(ex *exchange.Exchange, opts Options) (*Market, error) {
	m := &Market{ex: ex, opts: opts}
	m.SetRate(opts.Rate)
	want := map[string]bool{}
	for _, s := range opts.Symbols {
		want[s] = true
	}
	for _, r := range ex.Rules() {
		if len(want) > 0 && !want[r.Symbol] {
			continue
		}
		s, err := newSymbolSim(m, r)
		if err != nil {
			return nil, err
		}
		m.symbols = append(m.symbols, s)
	}
	return m, nil
}

// SetRate changes the actions per second per symbol of Run (0 pauses it).
func (m *Market) SetRate(r float64) { m.rate.Store(math.Float64bits(max(r, 0))) }

// Rate returns the current rate.
func (m *Market) Rate() float64 { return math.Float64frombits(m.rate.Load()) }

// Actions counts the participant actions so far.
func (m *Market) Actions() int64 { return m.actions.Load() }

// Step runs n actions of every symbol, symbol after symbol, on the caller's goroutine: with the
// same seed and a fixed exchange clock the resulting market is the same every time.
func (m *Market) Step(n int) {
	for _, s := range m.symbols {
		for range n {
			s.step()
		}
	}
}

// Run trades at the current rate until ctx ends, one goroutine per symbol.
func (m *Market) Run(ctx context.Context) {
	var wg sync.WaitGroup
	for _, s := range m.symbols {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s.run(ctx)
		}()
	}
	wg.Wait()
}

// Participants per symbol.
const (
	makers       = 3
	levelsPerMM  = 8
	markEvery    = time.Second
	volPerSecond = 2e-4 // the fair price's relative volatility per second
)

// symbolSim is one symbol's participants. It is used by one goroutine at a time.
type symbolSim struct {
	mk                                  *Market
	rule                                exchange.Rule
	pd                                  int
	qd                                  int
	tick, qmin, qmax, bmin, btick, bmax int64
	rng                                 *rand.Rand

	fair     int64   // fair price, price scale
	bp       int64   // one basis point of the initial price in ticks' units (>= one tick)
	quoteQty int64   // typical quote size, quantity scale
	mmInv    []int64 // maker inventories (estimated from the takers' flow)
	accounts []*exchange.Account
	taker    *exchange.Account
	slots    []slot // makers*2*levelsPerMM quotes
	mark     int64  // smoothed mid, price scale
	steps    int64
	lastMark int64 // step of the last mark/index update
}

type slot struct {
	mm    int
	buy   bool
	level int
	id    int64 // resting order (0: none)
}

func newSymbolSim(m *Market, r exchange.Rule) (*symbolSim, error) {
	pd, qd := r.PriceDecimals, r.QtyDecimals
	fx := func(d decimal.Decimal, dec int) int64 { v, _ := fixed.FromDecimal(d, dec); return v }
	h := fnv.New64a()
	h.Write([]byte(r.Symbol))
	s := &symbolSim{
		mk: m, rule: r, pd: pd, qd: qd,
		tick: max(fx(r.QuoteTick, pd), 1), qmin: fx(r.QuoteMin, pd), qmax: fx(r.QuoteMax, pd),
		bmin: fx(r.BaseMin, qd), btick: max(fx(r.BaseTick, qd), 1), bmax: fx(r.BaseMax, qd),
		rng:  rand.New(rand.NewPCG(m.opts.Seed, h.Sum64())),
		fair: fx(r.InitialPrice, pd),
	}
	if s.fair <= 0 {
		return nil, fmt.Errorf("market %s: no initial price", r.Symbol)
	}
	s.bp = max(s.fair/10000/s.tick*s.tick, s.tick)
	// a quote is worth about 2000 quote units
	q, _ := fixed.MulDiv(2000*fixed.Pow10(pd), fixed.Pow10(qd), s.fair)
	s.quoteQty = s.gridQty(q)
	for i := range makers {
		s.accounts = append(s.accounts, m.ex.InternalAccount(fmt.Sprintf("MM%d_%s", i+1, r.Symbol)))
		for l := range levelsPerMM {
			s.slots = append(s.slots, slot{mm: i, buy: true, level: l}, slot{mm: i, buy: false, level: l})
		}
	}
	s.mmInv = make([]int64, makers)
	s.taker = m.ex.InternalAccount("TAKER_" + r.Symbol)
	s.mark = s.fair
	return s, nil
}

// gridQty puts a quantity on the step grid within the symbol's bounds.
func (s *symbolSim) gridQty(q int64) int64 {
	q = max(q, s.bmin)
	q -= (q - s.bmin) % s.btick
	return min(q, s.bmax)
}

// gridPrice puts a price on the tick grid (down for bids, up for asks) within the bounds.
func (s *symbolSim) gridPrice(p int64, up bool) int64 {
	off := (p - s.qmin) % s.tick
	p -= off
	if up && off != 0 {
		p += s.tick
	}
	return min(max(p, s.qmin+s.tick), s.qmax-s.tick)
}

func (s *symbolSim) run(ctx context.Context) {
	last := time.Now()
	credit := 0.0
	lastMark := time.Now()
	for {
		rate := s.mk.Rate()
		wait := 100 * time.Millisecond
		if rate > 0 {
			// Poisson arrivals at low rates, batches every 10 ms at high ones.
			wait = time.Duration(s.rng.ExpFloat64() / rate * float64(time.Second))
			wait = max(wait, 10*time.Millisecond)
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C:
		}
		now := time.Now()
		if rate > 0 {
			credit += rate * now.Sub(last).Seconds()
			credit = min(credit, rate) // never catch up more than a second of backlog
			for credit >= 1 {
				credit--
				s.act(rate)
			}
		}
		last = now
		if now.Sub(lastMark) >= markEvery {
			lastMark = now
			s.updatePrices()
		}
	}
}

// step is one action in Step mode: the walk is scaled as if RateCalm actions were a second, and
// prices are refreshed every RateCalm steps.
func (s *symbolSim) step() {
	s.act(RateCalm)
	s.steps++
	if s.steps-s.lastMark >= int64(RateCalm) {
		s.lastMark = s.steps
		s.updatePrices()
	}
}

// act moves the fair price and lets one participant act.
func (s *symbolSim) act(rate float64) {
	s.mk.actions.Add(1)
	sigma := float64(s.bp) * volPerSecond * 1e4 / math.Sqrt(rate) // in price units: bp * bp-per-second
	s.fair += int64(math.Round(s.rng.NormFloat64() * sigma))
	s.fair = min(max(s.fair, s.qmin+100*s.tick), s.qmax/2)
	switch x := s.rng.Float64(); {
	case x < 0.70:
		s.requote()
	case x < 0.99:
		s.take(false)
	default:
		s.take(true)
	}
}

// requote moves one maker quote to where its maker wants it now.
func (s *symbolSim) requote() {
	sl := &s.slots[s.rng.IntN(len(s.slots))]
	acct := s.accounts[sl.mm]
	sym := s.rule.Symbol
	if sl.id != 0 {
		_ = s.mk.ex.Cancel(acct, sym, sl.id) // already filled: nothing to cancel
		sl.id = 0
	}
	// inventory skew: a long maker lowers its prices to sell, a short one raises them
	skew := s.mmInv[sl.mm] * s.bp / max(s.quoteQty, 1)
	skew = min(max(skew, -20*s.bp), 20*s.bp)
	half := s.bp * int64(1+sl.mm)
	dist := half + int64(sl.level)*s.bp*int64(1+sl.mm)
	res := s.fair - skew
	price := res - dist
	if !sl.buy {
		price = res + dist
	}
	price = s.gridPrice(price, !sl.buy)
	qty := s.gridQty(s.quoteQty/2 + s.rng.Int64N(s.quoteQty+1))
	side := exchange.Sell
	if sl.buy {
		side = exchange.Buy
	}
	o, err := s.mk.ex.PlaceOrder(acct, exchange.OrderRequest{
		Symbol: sym, Type: exchange.PostOnly, Side: side, Tag: "mm",
		Price: fixed.ToDecimal(price, s.pd), HasPrice: true, Quantity: fixed.ToDecimal(qty, s.qd), HasQuantity: true,
	})
	if err != nil {
		return
	}
	sl.id = o.ID
}

// take crosses the spread, leaning toward the fair price; a sweep is a MARKET order several
// quotes deep.
func (s *symbolSim) take(sweep bool) {
	sym := s.rule.Symbol
	asks, bids, _, err := s.mk.ex.DepthFixed(sym, 1, nil, nil)
	if err != nil || len(asks) == 0 || len(bids) == 0 {
		return
	}
	mid := (asks[0].Price + bids[0].Price) / 2
	lean := float64(s.fair-mid) / float64(4*s.bp)
	pBuy := 0.5 + max(min(lean, 0.4), -0.4)
	buy := s.rng.Float64() < pBuy
	qty := int64(s.rng.ExpFloat64() * float64(s.quoteQty) * 0.6)
	req := exchange.OrderRequest{Symbol: sym, Side: exchange.Sell, Tag: "taker", HasQuantity: true}
	if buy {
		req.Side = exchange.Buy
	}
	if sweep {
		qty = s.quoteQty * int64(3+s.rng.IntN(6))
		req.Type = exchange.Market
	} else {
		req.Type = exchange.IOC
		limit := s.gridPrice(asks[0].Price+2*s.bp, true)
		if !buy {
			limit = s.gridPrice(bids[0].Price-2*s.bp, false)
		}
		req.Price, req.HasPrice = fixed.ToDecimal(limit, s.pd), true
	}
	qty = s.gridQty(qty)
	req.Quantity = fixed.ToDecimal(qty, s.qd)
	if _, err := s.mk.ex.PlaceOrder(s.taker, req); err != nil {
		return
	}
	// The makers took the other side (most of it, in proportion): their inventory moves.
	share := qty / makers
	for i := range s.mmInv {
		if buy {
			s.mmInv[i] -= share
		} else {
			s.mmInv[i] += share
		}
		s.mmInv[i] -= s.mmInv[i] / 50 // makers hedge elsewhere over time
	}
}

// updatePrices sets the index (fair price with a little noise) and the mark (a smoothed mid).
func (s *symbolSim) updatePrices() {
	sym := s.rule.Symbol
	asks, bids, _, err := s.mk.ex.DepthFixed(sym, 1, nil, nil)
	if err == nil && len(asks) > 0 && len(bids) > 0 {
		mid := (asks[0].Price + bids[0].Price) / 2
		s.mark += (mid - s.mark) * 3 / 10
	}
	index := s.fair + int64(math.Round(s.rng.NormFloat64()*float64(s.bp)/2))
	mark := s.mark
	if index > 0 {
		_ = s.mk.ex.SetIndexPrice(sym, fixed.ToDecimal(index, s.pd))
	}
	if mark > 0 {
		_ = s.mk.ex.SetMarkPrice(sym, fixed.ToDecimal(mark, s.pd))
	}
}
