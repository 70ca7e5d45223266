package stream

import (
	"github.com/shopspring/decimal"
)

// The topics below arrive at most about once a second per symbol, so their
// values are exact decimals (shopspring) rather than fixed point: they feed
// tickers, charts and the account, where exactness matters more than speed.

// decimalVal reads a number (bare or quoted; null and "" read as zero).
func (s *scanner) decimalVal() decimal.Decimal {
	raw := s.scalar()
	if s.err != nil || isNull(raw) {
		return decimal.Zero
	}
	d, err := decimal.NewFromString(string(unquote(raw)))
	if err != nil {
		s.fail("expected a decimal number")
		return decimal.Zero
	}
	return d
}

// text reads a string (or a bare scalar) as a Go string; null reads as "".
func (s *scanner) text() string {
	raw := s.scalar()
	if s.err != nil || string(raw) == "null" {
		return ""
	}
	return string(unquote(raw))
}

// Ticker is the data of `@ticker` and each element of `tickers` (24 h).
type Ticker struct {
	Symbol                                 string
	Open, Close, High, Low, Volume, Amount decimal.Decimal
	Count                                  int64
}

// DecodeTicker reads ticker data.
func DecodeTicker(data []byte, t *Ticker) error {
	*t = Ticker{}
	return walk(data, func(s *scanner, k []byte) {
		switch string(k) {
		case "symbol":
			t.Symbol = s.text()
		case "open":
			t.Open = s.decimalVal()
		case "close":
			t.Close = s.decimalVal()
		case "high":
			t.High = s.decimalVal()
		case "low":
			t.Low = s.decimalVal()
		case "volume":
			t.Volume = s.decimalVal()
		case "amount":
			t.Amount = s.decimalVal()
		case "count":
			t.Count = s.intVal()
		default:
			s.skip()
		}
	})
}

// Kline is the data of `@kline_{interval}`.
type Kline struct {
	Symbol                                 string
	Type                                   string // interval: 1m 5m 15m 30m 1h 1d 1w 1M
	Open, Close, High, Low, Volume, Amount decimal.Decimal
	StartTime, EndTime                     int64 // ms
}

// DecodeKline reads kline data.
func DecodeKline(data []byte, c *Kline) error {
	*c = Kline{}
	return walk(data, func(s *scanner, k []byte) {
		switch string(k) {
		case "symbol":
			c.Symbol = s.text()
		case "type":
			c.Type = s.text()
		case "open":
			c.Open = s.decimalVal()
		case "close":
			c.Close = s.decimalVal()
		case "high":
			c.High = s.decimalVal()
		case "low":
			c.Low = s.decimalVal()
		case "volume":
			c.Volume = s.decimalVal()
		case "amount":
			c.Amount = s.decimalVal()
		case "startTime":
			c.StartTime = s.intVal()
		case "endTime":
			c.EndTime = s.intVal()
		default:
			s.skip()
		}
	})
}

// FuturesValue is the data of `@markprice`, `@indexprice` (Price),
// `@openinterest` (OpenInterest) and `@estfundingrate` (FundingRate,
// FundingTS), and of each element of `markprices`.
type FuturesValue struct {
	Symbol       string
	Price        decimal.Decimal
	OpenInterest decimal.Decimal
	FundingRate  decimal.Decimal
	FundingTS    int64 // ms
}

// DecodeFuturesValue reads the data of one of the perpetual-swap topics.
func DecodeFuturesValue(data []byte, v *FuturesValue) error {
	*v = FuturesValue{}
	return walk(data, func(s *scanner, k []byte) {
		switch string(k) {
		case "symbol":
			v.Symbol = s.text()
		case "price":
			v.Price = s.decimalVal()
		case "openInterest":
			v.OpenInterest = s.decimalVal()
		case "fundingRate":
			v.FundingRate = s.decimalVal()
		case "fundingTs":
			v.FundingTS = s.intVal()
		default:
			s.skip()
		}
	})
}
