package exchange

import (
	"slices"
	"sort"
	"time"

	"github.com/shopspring/decimal"

	"tradedeck/sim/engine"
	"tradedeck/venue"
)

// FixedLevel is a price level in the book's fixed-point scales.
type FixedLevel = engine.Level

const (
	maxPublicTrades  = 1000
	maxMinuteCandles = 30 * 1440 // a month of minutes with trades
)

// candle aggregates trades of one interval; prices and volume are in the
// market's fixed-point scales, the quote amount is exact.
type candle struct {
	start                  int64
	open, high, low, close int64
	volume                 int64
	amount                 u128 // sum of price*quantity at pd+qd decimals
	count                  int
}

func (c *candle) add(price, qty int64) {
	if c.count == 0 {
		c.open, c.high, c.low = price, price, price
	}
	c.high, c.low, c.close = max(c.high, price), min(c.low, price), price
	c.volume += qty
	c.amount.addProduct(price, qty)
	c.count++
}

func (c *candle) merge(o *candle) {
	if c.count == 0 {
		c.open, c.high, c.low = o.open, o.high, o.low
	}
	c.high, c.low, c.close = max(c.high, o.high), min(c.low, o.low), o.close
	c.volume += o.volume
	c.amount.add(o.amount)
	c.count += o.count
}

// candleSeries keeps minute candles for a month, hour candles for 400 days
// and day candles forever; every kline interval aggregates one of them.
type candleSeries struct {
	minutes []candle
	hours   []candle
	days    []candle
}

func appendCandle(s []candle, start, price, qty int64) []candle {
	if n := len(s); n > 0 && s[n-1].start == start {
		s[n-1].add(price, qty)
		return s
	}
	c := candle{start: start}
	c.add(price, qty)
	return append(s, c)
}

func (m *market) recordTrade(t PublicTrade, priceFx, qtyFx int64) {
	if len(m.trades) >= maxPublicTrades {
		m.trades = append(m.trades[:0], m.trades[len(m.trades)-maxPublicTrades/2:]...)
	}
	m.trades = append(m.trades, t)
	m.candles.minutes = appendCandle(m.candles.minutes, t.Timestamp/60_000*60_000, priceFx, qtyFx)
	if len(m.candles.minutes) > maxMinuteCandles {
		m.candles.minutes = append(m.candles.minutes[:0], m.candles.minutes[len(m.candles.minutes)-maxMinuteCandles*9/10:]...)
	}
	m.candles.hours = appendCandle(m.candles.hours, t.Timestamp/3600_000*3600_000, priceFx, qtyFx)
	if len(m.candles.hours) > maxHourCandles {
		m.candles.hours = append(m.candles.hours[:0], m.candles.hours[len(m.candles.hours)-maxHourCandles*9/10:]...)
	}
	m.candles.days = appendCandle(m.candles.days, t.Timestamp/86400_000*86400_000, priceFx, qtyFx)
}

// KlineTypes are the kline intervals the venue serves.
var KlineTypes = []string{"1m", "5m", "15m", "30m", "1h", "4h", "12h", "1d", "1w", "1mon", "1y"}

var fixedIntervals = map[string]int64{
	"1m": 60_000, "5m": 300_000, "15m": 900_000, "30m": 1_800_000, "1h": 3_600_000,
	"4h": 14_400_000, "12h": 43_200_000, "1d": 86_400_000,
}

// ValidKlineType reports whether typ is a kline interval.
func ValidKlineType(typ string) bool {
	_, ok := fixedIntervals[typ]
	return ok || typ == "1w" || typ == "1mon" || typ == "1y"
}

// bucket returns the interval of typ holding ms: weeks start on Monday,
// months and years on the calendar, all in UTC.
func bucket(typ string, ms int64) (start, end int64) {
	if d, ok := fixedIntervals[typ]; ok {
		start = ms - ms%d
		if ms < 0 && ms%d != 0 {
			start -= d
		}
		return start, start + d
	}
	t := time.UnixMilli(ms).UTC()
	var s, e time.Time
	switch typ {
	case "1w":
		day := time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC)
		s = day.AddDate(0, 0, -((int(day.Weekday()) + 6) % 7))
		e = s.AddDate(0, 0, 7)
	case "1mon":
		s = time.Date(t.Year(), t.Month(), 1, 0, 0, 0, 0, time.UTC)
		e = s.AddDate(0, 1, 0)
	default: // 1y
		s = time.Date(t.Year(), 1, 1, 0, 0, 0, 0, time.UTC)
		e = s.AddDate(1, 0, 0)
	}
	return s.UnixMilli(), e.UnixMilli()
}

// Kline is one candle of an interval.
type Kline struct {
	Symbol                 string
	Type                   string
	Open, Close, Low, High decimal.Decimal
	Volume, Amount         decimal.Decimal
	StartMs, EndMs         int64
	Count                  int
}

// advance returns the start of the bucket n intervals after the bucket
// starting at start (n may be negative).
func advance(typ string, start int64, n int) int64 {
	if d, ok := fixedIntervals[typ]; ok {
		return start + int64(n)*d
	}
	t := time.UnixMilli(start).UTC()
	switch typ {
	case "1w":
		return start + int64(n)*7*86_400_000
	case "1mon":
		return t.AddDate(0, n, 0).UnixMilli()
	}
	return t.AddDate(n, 0, 0).UnixMilli()
}

// countBuckets is how many buckets start in [a, b], both bucket starts.
func countBuckets(typ string, a, b int64) int {
	if b < a {
		return 0
	}
	if d, ok := fixedIntervals[typ]; ok {
		return int((b-a)/d) + 1
	}
	if typ == "1w" {
		return int((b-a)/(7*86_400_000)) + 1
	}
	ta, tb := time.UnixMilli(a).UTC(), time.UnixMilli(b).UTC()
	if typ == "1mon" {
		return (tb.Year()-ta.Year())*12 + int(tb.Month()) - int(ta.Month()) + 1
	}
	return tb.Year() - ta.Year() + 1
}

// base returns the candles a kline type aggregates: minutes below an hour,
// hours below a day, days from a day up.
func (m *market) baseCandles(typ string) []candle {
	d, ok := fixedIntervals[typ]
	switch {
	case ok && d < 3_600_000:
		return m.candles.minutes
	case ok && d < 86_400_000:
		return m.candles.hours
	}
	return m.candles.days
}

// firstBucket is the start of the first bucket with a trade (false: no trade yet).
func (m *market) firstBucket(typ string) (int64, bool) {
	base := m.baseCandles(typ)
	if len(base) == 0 {
		return 0, false
	}
	start, _ := bucket(typ, base[0].start)
	return start, true
}

// klines returns n consecutive buckets of typ from the one starting at
// from, oldest first, intervals without trades carried flat at the
// previous close. Only the base candles in range are visited.
func (m *market) klines(typ string, from int64, n int) []Kline {
	base := m.baseCandles(typ)
	j := sort.Search(len(base), func(i int) bool { return base[i].start >= from })
	var prevClose int64
	switch {
	case j > 0:
		prevClose = base[j-1].close
	case j < len(base):
		prevClose = base[j].open
	}
	out := make([]Kline, 0, n)
	for start := from; len(out) < n; {
		end := advance(typ, start, 1)
		var c candle
		for ; j < len(base) && base[j].start < end; j++ {
			c.merge(&base[j])
		}
		k := Kline{Symbol: m.spec.Symbol, Type: typ, StartMs: start, EndMs: end}
		if c.count > 0 {
			k.Open, k.Close, k.High, k.Low = m.price(c.open), m.price(c.close), m.price(c.high), m.price(c.low)
			k.Volume, k.Amount, k.Count = m.qty(c.volume), c.amount.decimal(m.pd+m.qd), c.count
			prevClose = c.close
		} else {
			p := m.price(prevClose)
			k.Open, k.Close, k.High, k.Low, k.Volume, k.Amount = p, p, p, p, decimal.Zero, decimal.Zero
		}
		out = append(out, k)
		start = end
	}
	return out
}

// Klines returns the latest limit klines of typ, newest first, as
// GET /v1/kline does: the current interval included, intervals without
// trades carried flat at the previous close, nothing before the first trade.
func (e *Exchange) Klines(symbol, typ string, limit int) ([]Kline, *Error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	m, err := e.market(symbol)
	if err != nil {
		return nil, err
	}
	if !ValidKlineType(typ) {
		return nil, errf(venue.CodeInvalidParam, "type must be one of 1m, 5m, 15m, 30m, 1h, 4h, 12h, 1d, 1w, 1mon, 1y")
	}
	first, ok := m.firstBucket(typ)
	if !ok || limit <= 0 {
		return nil, nil
	}
	last, _ := bucket(typ, e.nowMs())
	from := max(advance(typ, last, -(limit-1)), first)
	ks := m.klines(typ, from, countBuckets(typ, from, last))
	slices.Reverse(ks)
	return ks, nil
}

// HistKlines returns one page of klines of typ starting at or after
// startMs, oldest first, and how many there are in all (the historical
// kline endpoint).
func (e *Exchange) HistKlines(symbol, typ string, startMs int64, page, perPage int) ([]Kline, int, *Error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	m, err := e.market(symbol)
	if err != nil {
		return nil, 0, err
	}
	if !ValidKlineType(typ) {
		return nil, 0, errf(venue.CodeInvalidParam, "type must be one of 1m, 5m, 15m, 30m, 1h, 4h, 12h, 1d, 1w, 1mon, 1y")
	}
	first, ok := m.firstBucket(typ)
	if !ok || page < 1 || perPage < 1 {
		return nil, 0, nil
	}
	from, end := bucket(typ, startMs)
	if from < startMs {
		from = end
	}
	from = max(from, first)
	last, _ := bucket(typ, e.nowMs())
	total := countBuckets(typ, from, last)
	skip := (page - 1) * perPage
	if skip >= total {
		return nil, total, nil
	}
	return m.klines(typ, advance(typ, from, skip), min(perPage, total-skip)), total, nil
}

// Stats24h are the statistics of the last 24 hours.
type Stats24h struct {
	Open, Close, High, Low, Volume, Amount decimal.Decimal
	Count                                  int
}

func (m *market) stats24h(now int64) Stats24h {
	from := now - 86_400_000
	var c candle
	for i := len(m.candles.minutes) - 1; i >= 0 && m.candles.minutes[i].start >= from; i-- {
		mc := m.candles.minutes[i]
		if c.count == 0 {
			c = candle{open: mc.open, high: mc.high, low: mc.low, close: mc.close, volume: mc.volume, amount: mc.amount, count: mc.count}
			continue
		}
		c.open = mc.open
		c.high, c.low = max(c.high, mc.high), min(c.low, mc.low)
		c.volume += mc.volume
		c.amount.add(mc.amount)
		c.count += mc.count
	}
	if c.count == 0 {
		p := m.price(m.last)
		return Stats24h{Open: p, Close: p, High: p, Low: p, Volume: decimal.Zero, Amount: decimal.Zero}
	}
	return Stats24h{Open: m.price(c.open), Close: m.price(c.close), High: m.price(c.high), Low: m.price(c.low),
		Volume: m.qty(c.volume), Amount: c.amount.decimal(m.pd + m.qd), Count: c.count}
}
