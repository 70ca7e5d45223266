// Package stats is the client of the swap statistics service (GET /stat and
// GET /source_stat, see docs/stats.md): exact decoding of both record shapes,
// a client-side rate limit, a per-(network, period) cache, and the series
// helpers the charts draw from.
package stats

import (
	"slices"
	"time"

	"github.com/shopspring/decimal"
)

// DefaultNetworks are the networks the service documents. The real service
// adds networks over time, so callers take the list from configuration and
// the client accepts any well-formed name.
var DefaultNetworks = []string{"bsc", "avax", "fantom", "polygon", "arbitrum", "optimism"}

// Periods the service accepts, shortest first. "1d" has hourly rows, the
// others daily rows.
var Periods = []string{"1d", "1w", "1m", "3m", "1y", "all"}

// ValidPeriod reports whether p is one of Periods.
func ValidPeriod(p string) bool { return slices.Contains(Periods, p) }

// Hourly reports whether a period's rows are hourly.
func Hourly(period string) bool { return period == "1d" }

// Row is one /stat record. Volume is exact USD (the wire's USD x 10^18
// scaled back); Turnover is in percent and only daily rows carry it.
type Row struct {
	ID          int64
	Time        time.Time // start of the hour or UTC day
	VolumeUSD   decimal.Decimal
	Traders     int64
	Trades      int64
	Turnover    decimal.Decimal
	HasTurnover bool
}

// Series is the answer of /stat for one network and period, rows in time
// order.
type Series struct {
	Network string
	Period  string
	Hourly  bool
	Rows    []Row
}

// Step is the length of one row: an hour or a day.
func (s Series) Step() time.Duration {
	if s.Hourly {
		return time.Hour
	}
	return 24 * time.Hour
}

// Source is one /source_stat record: how much volume came through one route.
type Source struct {
	ID         string
	Name       string
	VolumeUSD  decimal.Decimal
	Trades     int64
	Percentage decimal.Decimal // share of the volume, in percent
}
