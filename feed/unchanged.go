package feed

import (
	"math"

	"github.com/shopspring/decimal"
)

// A push that repeats what the feed already holds changes nothing a
// consumer shows: the venue repeats its 1 s topics (tickers, bbos,
// klines, prices, positioninfo) and pushes empty book deltas every 200 ms
// whether or not anything moved. Such a push is kept (its time stamp, the
// observer sees it) but marks nothing, so it wakes no consumer: an idle
// market costs the reading of its frames, not a chain of hand-offs and a
// redraw each (docs/performance.md, issue 28 "idle"). The comparisons
// leave out only the push's own time stamp.

// sameDec: equal values written alike ("1.0" and "1.00" print apart).
func sameDec(a, b decimal.Decimal) bool {
	return a.Exponent() == b.Exponent() && a.Equal(b)
}

// sameQuote: b quotes what o does (its ts aside).
func (b BBO) sameQuote(o BBO) bool {
	return b.Symbol == o.Symbol && b.Scale == o.Scale && b.Bid == o.Bid && b.BidSize == o.BidSize &&
		b.Ask == o.Ask && b.AskSize == o.AskSize
}

// sameStats: t says what o does (its ts aside).
func (t Ticker) sameStats(o Ticker) bool {
	return t.Symbol == o.Symbol && t.Count == o.Count && sameDec(t.Open, o.Open) && sameDec(t.Close, o.Close) &&
		sameDec(t.High, o.High) && sameDec(t.Low, o.Low) && sameDec(t.Volume, o.Volume) && sameDec(t.Amount, o.Amount)
}

// same: c is o, to the digit.
func (c Candle) same(o Candle) bool {
	return c.Start == o.Start && c.End == o.End && sameDec(c.Open, o.Open) && sameDec(c.High, o.High) &&
		sameDec(c.Low, o.Low) && sameDec(c.Close, o.Close) && sameDec(c.Volume, o.Volume) && sameDec(c.Amount, o.Amount)
}

// sameHolding: b holds what o does (when it was updated aside).
func (b Balance) sameHolding(o Balance) bool {
	return b.Token == o.Token && sameDec(b.Holding, o.Holding) && sameDec(b.Frozen, o.Frozen) &&
		sameDec(b.Interest, o.Interest) && sameDec(b.OutstandingHolding, o.OutstandingHolding) &&
		sameDec(b.PendingExposure, o.PendingExposure)
}

// same: m is o, to the digit.
func (m Margin) same(o Margin) bool {
	return m.Mode == o.Mode && sameDec(m.MarginRate, o.MarginRate) && sameDec(m.Leverage, o.Leverage) &&
		sameDec(m.FuturesLeverage, o.FuturesLeverage) && sameDec(m.TakerFeeRate, o.TakerFeeRate) &&
		sameDec(m.MakerFeeRate, o.MakerFeeRate) && sameDec(m.FuturesTakerFeeRate, o.FuturesTakerFeeRate) &&
		sameDec(m.FuturesMakerFeeRate, o.FuturesMakerFeeRate)
}

// healthShown is what of a stream's Health the once-a-second refresh
// moves that a consumer shows: the rate to a whole message a second and
// the latency to a millisecond (the status bar's figures; `watch` prints
// them too). The time of the last frame is not among them: a stream that
// goes quiet is told by its state (stale), which is sent when it changes.
type healthShown struct {
	msgs       int64
	latencyMS  int64
	gaps       uint64
	resyncs    uint64
	reconnects uint64
}

func shownOf(h *Health) healthShown {
	// Rounded as the status bar prints it (strconv's 'f', 0).
	return healthShown{msgs: int64(math.RoundToEven(h.MsgsPerSec)), latencyMS: h.Latency.Milliseconds(),
		gaps: h.Gaps, resyncs: h.Resyncs, reconnects: h.Reconnects}
}
