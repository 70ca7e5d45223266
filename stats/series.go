package stats

import (
	"time"

	"github.com/shopspring/decimal"
)

// Totals sums a run of rows.
type Totals struct {
	Rows        int
	From, To    time.Time // start of the first row, end of the last
	VolumeUSD   decimal.Decimal
	Trades      int64
	TraderSum   int64 // sum over rows: addresses are counted once per row, not once per period
	TraderPeak  int64
	Turnover    decimal.Decimal // average turnover rate of the rows that carry one, %
	HasTurnover bool
}

// AvgTraders is the average number of traders per row (per hour or day).
func (t Totals) AvgTraders() int64 {
	if t.Rows == 0 {
		return 0
	}
	return (t.TraderSum + int64(t.Rows)/2) / int64(t.Rows)
}

// Totals of the whole series.
func (s Series) Totals() Totals { return totalsOf(s.Rows, s.Step()) }

func totalsOf(rows []Row, step time.Duration) Totals {
	t := Totals{Rows: len(rows)}
	if len(rows) == 0 {
		return t
	}
	t.From, t.To = rows[0].Time, rows[len(rows)-1].Time.Add(step)
	turnovers := 0
	for _, r := range rows {
		t.VolumeUSD = t.VolumeUSD.Add(r.VolumeUSD)
		t.Trades += r.Trades
		t.TraderSum += r.Traders
		t.TraderPeak = max(t.TraderPeak, r.Traders)
		if r.HasTurnover {
			t.Turnover = t.Turnover.Add(r.Turnover)
			turnovers++
		}
	}
	if turnovers > 0 {
		t.Turnover = t.Turnover.Div(decimal.NewFromInt(int64(turnovers)))
		t.HasTurnover = true
	}
	return t
}

// PreviousPeriodSource names the longer period whose rows hold the period
// before p: 1w's previous week is in 1m, 1m's previous month in 3m, 3m's in
// 1y, 1y's in all. For 1d (hourly) the previous 24 hours are approximated by
// the last complete UTC day before the window, taken from 1w. "all" has no
// previous period.
func PreviousPeriodSource(p string) (string, bool) {
	longer := map[string]string{"1d": "1w", "1w": "1m", "1m": "3m", "3m": "1y", "1y": "all"}
	l, ok := longer[p]
	return l, ok
}

// PreviousTotals returns the totals of the period just before cur, cut from
// longer (the series PreviousPeriodSource names). ok is false when longer
// does not reach back a whole period (a young network, say).
func PreviousTotals(cur, longer Series) (Totals, bool) {
	if len(cur.Rows) == 0 || longer.Hourly {
		return Totals{}, false
	}
	start := cur.Rows[0].Time
	want := len(cur.Rows)
	if cur.Hourly {
		want = 1 // one day of daily rows stands for the previous 24 hours
	}
	end := len(longer.Rows)
	for end > 0 && longer.Rows[end-1].Time.Add(longer.Step()).After(start) {
		end--
	}
	if end < want {
		return Totals{}, false
	}
	return totalsOf(longer.Rows[end-want:end], longer.Step()), true
}

// Change is (cur - prev) / prev in percent, rounded to 2 decimals; ok is
// false when prev is zero.
func Change(cur, prev decimal.Decimal) (decimal.Decimal, bool) {
	if prev.IsZero() {
		return decimal.Decimal{}, false
	}
	return cur.Sub(prev).Mul(decimal.NewFromInt(100)).DivRound(prev, 2), true
}

// Bucket is several consecutive rows drawn as one chart column.
type Bucket struct {
	Start, End  time.Time
	Rows        int
	VolumeUSD   decimal.Decimal
	Trades      int64
	Traders     int64 // average per row: unique addresses do not add up
	Turnover    decimal.Decimal
	HasTurnover bool
}

// Buckets groups the rows into at most n columns of equal row counts (the
// last one may be shorter), so a year of days fits a narrow chart. With
// n >= len(rows) every row is its own bucket.
func (s Series) Buckets(n int) []Bucket {
	if n <= 0 || len(s.Rows) == 0 {
		return nil
	}
	per := (len(s.Rows) + n - 1) / n
	out := make([]Bucket, 0, (len(s.Rows)+per-1)/per)
	for i := 0; i < len(s.Rows); i += per {
		t := totalsOf(s.Rows[i:min(i+per, len(s.Rows))], s.Step())
		out = append(out, Bucket{
			Start: t.From, End: t.To, Rows: t.Rows,
			VolumeUSD: t.VolumeUSD, Trades: t.Trades, Traders: t.AvgTraders(),
			Turnover: t.Turnover, HasTurnover: t.HasTurnover,
		})
	}
	return out
}
