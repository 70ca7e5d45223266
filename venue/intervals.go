package venue

import "slices"

// Intervals are the venue's kline (candle) intervals, shortest first: the
// kline stream topics and the kline REST endpoints take exactly these.
var Intervals = []string{"1m", "5m", "15m", "30m", "1h", "1d", "1w", "1M"}

// ValidInterval reports whether iv is one of Intervals.
func ValidInterval(iv string) bool { return slices.Contains(Intervals, iv) }
