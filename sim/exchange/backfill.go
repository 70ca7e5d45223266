package exchange

// A synthetic past, so the venue looks like one that has been trading for a long time: candles
// and a short public trade tape per symbol, generated at start from the seed and ending exactly
// at the symbol's opening price.
//
// The path is generated backward: the last candle closes at the opening price, each candle's
// open is drawn from its close, and that open is the previous candle's close, so there is no
// jump between the past and live trading and no gap between candles. Three resolutions feed the
// same series live trades aggregate into: minutes for the last backfillMinuteHours, hours for
// backfillHourDays before that, days for backfillDays in all. Coarser series over the span of a
// finer one are aggregates of it (candle.merge), so every kline type agrees with every other.
//
// Prices stay int64 on the symbol's tick: float64 only draws the random returns and shapes
// (volatility, seasonality), which are turned into parts per billion and applied with
// fixed.MulDiv.

import (
	"hash/fnv"
	"math"
	"math/rand/v2"
	"slices"

	"tradedeck/fixed"
)

const (
	backfillMinuteHours = 72  // minute candles: 1m..30m klines get 300+ buckets (30m: 144)
	backfillHourDays    = 100 // hour candles before the minutes: 1h, 4h, 12h (200 buckets)
	backfillDays        = 400 // day candles in all: 1d, 1w (57), 1mon (14), 1y
	backfillTapeTrades  = 50  // public trades seeded from the last minutes
	maxHourCandles      = 400 * 24
	ppb                 = 1_000_000_000
)

// pastProfile is how a base token trades: daily volatility (fraction) and daily spot volume in
// quote units. Perpetuals trade the same path with three times the volume.
type pastProfile struct {
	vol      float64
	notional float64
}

var pastProfiles = map[string]pastProfile{
	"BTC":  {0.025, 120e6},
	"ETH":  {0.035, 60e6},
	"BNB":  {0.03, 6e6},
	"SOL":  {0.05, 25e6},
	"XRP":  {0.05, 15e6},
	"DOGE": {0.055, 12e6},
	"WOO":  {0.065, 2.5e6},
}

var defaultPastProfile = pastProfile{0.05, 1e6}

// pastGen draws one symbol's past. Price draws come from a source keyed by the base token, so a
// spot symbol and its perpetual share the shape of their history; volumes and trades from one
// keyed by the symbol.
type pastGen struct {
	m             *market
	px, vx        *rand.Rand
	vol           float64 // daily volatility
	notional      float64 // daily volume in quote units
	tradeNotional float64 // typical trade in quote units
	anchor        int64   // the opening price the past ends at
	minPrice      int64
}

func newPastGen(m *market, seed int64) *pastGen {
	p, ok := pastProfiles[m.base]
	if !ok {
		p = defaultPastProfile
	}
	if m.perp() {
		p.notional *= 3
	}
	g := &pastGen{m: m, vol: p.vol, notional: p.notional, anchor: m.last,
		px: rand.New(rand.NewPCG(uint64(seed), keyOf("price:"+m.base))),
		vx: rand.New(rand.NewPCG(uint64(seed), keyOf("volume:"+m.spec.Symbol))),
	}
	g.tradeNotional = min(max(p.notional/40000, 50), 10000)
	g.minPrice = max(m.quoteMin, m.quoteTick)
	g.minPrice += (m.quoteTick - g.minPrice%m.quoteTick) % m.quoteTick
	return g
}

func keyOf(s string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(s))
	return h.Sum64()
}

// season is the relative activity at ms: a daily cycle peaking in the afternoon UTC (Europe
// and America both open), quieter weekends.
func season(ms int64) float64 {
	h := float64(ms%86_400_000) / 3_600_000
	s := 1 + 0.45*math.Cos(2*math.Pi*(h-15)/24)
	if wd := (ms/86_400_000 + 4) % 7; wd == 0 || wd == 6 { // 1970-01-01 was a Thursday
		s *= 0.7
	}
	return s
}

// move returns p changed by the fraction r, on the tick, within the symbol's bounds; up rounds
// toward higher prices.
func (g *pastGen) move(p int64, r float64, up bool) int64 {
	d, _ := fixed.MulDiv(p, int64(r*ppb), ppb)
	v := p + d
	t := g.m.quoteTick
	if rem := v % t; rem != 0 {
		v -= rem
		if up {
			v += t
		}
	}
	return min(max(v, g.minPrice), g.m.quoteMax-g.m.quoteMax%t)
}

// openOf draws the open of an interval of frac days closing at closeFx: a random return scaled
// by the interval's volatility, pulled gently toward the anchor so a year of walking stays
// plausible.
func (g *pastGen) openOf(closeFx int64, sigma, frac float64) int64 {
	pull := 0.02 * frac * float64(closeFx-g.anchor) / float64(g.anchor)
	return g.move(closeFx, -sigma*g.px.NormFloat64()-pull, false)
}

// synthetic is one candle of [start, start+d) closing at closeFx; its open is the previous
// candle's close.
func (g *pastGen) synthetic(start, d, closeFx int64) candle {
	frac := float64(d) / 86_400_000
	s := 1.0
	if d < 86_400_000 {
		s = season(start + d/2)
	}
	sigma := g.vol * math.Sqrt(frac*s)
	c := candle{start: start, close: closeFx, open: g.openOf(closeFx, sigma, frac)}
	hiExt, loExt := math.Abs(g.px.NormFloat64())*sigma*0.5, math.Abs(g.px.NormFloat64())*sigma*0.5
	c.high = g.move(max(c.open, c.close), hiExt, true)
	c.low = g.move(min(c.open, c.close), -loExt, false)
	mid := (c.open + c.high + c.low + c.close) / 4
	vwap := min(max(mid-mid%g.m.quoteTick, c.low), c.high)
	// volume follows activity and the size of the move
	move := math.Abs(float64(c.close-c.open)) / float64(c.close) / max(sigma, 1e-9)
	notional := g.notional * frac * s * (0.5 + g.vx.Float64()) * (0.7 + 0.3*move)
	c.volume = g.qtyFor(notional, vwap)
	c.count = int(max(1, min(notional/g.tradeNotional, float64(c.volume/g.m.baseTick))))
	c.amount.addProduct(vwap, c.volume)
	return c
}

// qtyFor converts a quote notional to a quantity at price, on the step, at least one step
// (a candle's volume: no order size limit applies).
func (g *pastGen) qtyFor(notional float64, price int64) int64 {
	q, _ := fixed.MulDiv(int64(notional), fixed.Pow10(g.m.pd+g.m.qd), price)
	q -= q % g.m.baseTick
	return max(q, g.m.baseTick, g.m.baseMin)
}

// traded is a minute of explicit trades closing at closeFx: a short walk of trade prices ending
// there, sizes around the typical trade. The candle is built from the trades, so the tape and
// the candle agree exactly. Trades are returned oldest first.
func (g *pastGen) traded(start, closeFx int64, out []PublicTrade) (candle, []PublicTrade) {
	sigma := g.vol * math.Sqrt(season(start)/1440)
	n := 3 + g.vx.IntN(10)
	prices := make([]int64, n)
	prices[n-1] = closeFx
	for j := n - 1; j > 0; j-- {
		prices[j-1] = g.move(prices[j], sigma/math.Sqrt(float64(n))*g.vx.NormFloat64(), false)
	}
	offsets := make([]int64, n)
	for j := range offsets {
		offsets[j] = g.vx.Int64N(60_000)
	}
	slices.Sort(offsets)
	c := candle{start: start}
	for j, p := range prices {
		q := min(g.qtyFor(g.tradeNotional*math.Exp(0.8*g.vx.NormFloat64()-0.32), p), g.m.baseMax)
		side := Buy
		if (j > 0 && p < prices[j-1]) || (j == 0 && g.vx.IntN(2) == 0) {
			side = Sell
		}
		c.add(p, q)
		out = append(out, PublicTrade{Symbol: g.m.spec.Symbol, Price: g.m.price(p), Size: g.m.qty(q), Side: side, Timestamp: start + offsets[j]})
	}
	return c, out
}

// backfill gives m a synthetic past ending at nowMs at its current last price: minute candles
// up to the minute before now, hour and day candles aggregated over them and drawn before them,
// and the last few minutes as an explicit public trade tape.
func (m *market) backfill(seed, nowMs int64) {
	g := newPastGen(m, seed)
	curMin := nowMs - nowMs%60_000
	minStart := curMin - curMin%3_600_000 - backfillMinuteHours*3_600_000
	hourStart := minStart - minStart%86_400_000 - backfillHourDays*86_400_000
	dayStart := curMin - curMin%86_400_000 - (backfillDays-1)*86_400_000

	minutes := make([]candle, (curMin-minStart)/60_000)
	var tape [][]PublicTrade
	closeFx, taped := m.last, 0
	for i := len(minutes) - 1; i >= 0; i-- {
		start := minStart + int64(i)*60_000
		if taped < backfillTapeTrades {
			var ts []PublicTrade
			minutes[i], ts = g.traded(start, closeFx, nil)
			tape = append(tape, ts)
			taped += len(ts)
		} else {
			minutes[i] = g.synthetic(start, 60_000, closeFx)
		}
		closeFx = minutes[i].open
	}
	hours := make([]candle, (minStart-hourStart)/3_600_000, (minStart-hourStart)/3_600_000+backfillMinuteHours+1)
	for i := len(hours) - 1; i >= 0; i-- {
		hours[i] = g.synthetic(hourStart+int64(i)*3_600_000, 3_600_000, closeFx)
		closeFx = hours[i].open
	}
	days := make([]candle, max(0, (hourStart-dayStart)/86_400_000), backfillDays)
	for i := len(days) - 1; i >= 0; i-- {
		days[i] = g.synthetic(dayStart+int64(i)*86_400_000, 86_400_000, closeFx)
		closeFx = days[i].open
	}
	hours = aggregate(hours, minutes, 3_600_000)
	days = aggregate(days, hours, 86_400_000)

	// live trades recorded before the backfill (none at start) stay after it
	m.candles.minutes = append(minutes, m.candles.minutes...)
	m.candles.hours = append(hours, m.candles.hours...)
	m.candles.days = append(days, m.candles.days...)
	var trades []PublicTrade
	for i := len(tape) - 1; i >= 0; i-- {
		trades = append(trades, tape[i]...)
	}
	m.trades = append(trades, m.trades...)
}

// aggregate appends to dst the candles of width d merging the finer candles of src.
func aggregate(dst, src []candle, d int64) []candle {
	for i := range src {
		start := src[i].start - src[i].start%d
		if n := len(dst); n == 0 || dst[n-1].start != start {
			dst = append(dst, candle{start: start})
		}
		dst[len(dst)-1].merge(&src[i])
	}
	return dst
}

// backfillAll gives every market without any history a synthetic past.
func (e *Exchange) backfillAll(seed int64) {
	now := e.nowMs()
	for _, m := range e.marketList {
		if len(m.candles.minutes) == 0 && len(m.candles.days) == 0 {
			m.backfill(seed, now)
		}
	}
}
