package accountpane

import (
	"sort"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"tradedeck/feed"
)

// Fees adds up fees per asset: a spot buy pays in the base asset, a sell
// in the quote, so one symbol's fees may be in two assets and are never
// converted (that would need a price the venue did not charge at).
type Fees []AssetAmount

// AssetAmount is an amount of one asset.
type AssetAmount struct {
	Asset  string
	Amount decimal.Decimal
}

// Add adds an amount of an asset, keeping the assets sorted.
func (f Fees) Add(asset string, amount decimal.Decimal) Fees {
	i := sort.Search(len(f), func(i int) bool { return f[i].Asset >= asset })
	if i < len(f) && f[i].Asset == asset {
		f[i].Amount = f[i].Amount.Add(amount)
		return f
	}
	f = append(f, AssetAmount{})
	copy(f[i+1:], f[i:])
	f[i] = AssetAmount{asset, amount}
	return f
}

// Of is the amount paid in one asset.
func (f Fees) Of(asset string) decimal.Decimal {
	for _, a := range f {
		if a.Asset == asset {
			return a.Amount
		}
	}
	return decimal.Zero
}

func (f Fees) String() string {
	if len(f) == 0 {
		return "0"
	}
	parts := make([]string, len(f))
	for i, a := range f {
		parts[i] = a.Amount.String() + " " + a.Asset
	}
	return strings.Join(parts, " + ")
}

// LedgerRow is the realised PnL and fees of one UTC day, for one symbol,
// or for all symbols of the day when Symbol is "".
type LedgerRow struct {
	Day      time.Time // midnight UTC
	Symbol   string
	Fills    int
	Realised decimal.Decimal // the venue's realized_pnl of the fills, quote asset
	Fees     Fees
}

// Ledger sums the account's fills per UTC day and per symbol: each day
// newest first, its total row, then its symbols by name. Only the fills
// the feed keeps (the most recent ones) are counted.
func Ledger(fills []feed.Fill) []LedgerRow {
	type key struct {
		day    int64
		symbol string
	}
	rows := map[key]*LedgerRow{}
	add := func(k key, day time.Time, f feed.Fill) {
		r := rows[k]
		if r == nil {
			r = &LedgerRow{Day: day, Symbol: k.symbol}
			rows[k] = r
		}
		r.Fills++
		r.Realised = r.Realised.Add(f.RealizedPnL)
		r.Fees = r.Fees.Add(f.FeeAsset, f.Fee)
	}
	for _, f := range fills {
		day := f.Time.UTC().Truncate(24 * time.Hour)
		add(key{day.Unix(), ""}, day, f)
		add(key{day.Unix(), f.Symbol}, day, f)
	}
	out := make([]LedgerRow, 0, len(rows))
	for _, r := range rows {
		out = append(out, *r)
	}
	sort.Slice(out, func(i, j int) bool {
		if !out[i].Day.Equal(out[j].Day) {
			return out[i].Day.After(out[j].Day)
		}
		return out[i].Symbol < out[j].Symbol // "" (the day's total) first
	})
	return out
}

// Today is the ledger row of all symbols on now's UTC day (zero if none).
func Today(rows []LedgerRow, now time.Time) LedgerRow {
	day := now.UTC().Truncate(24 * time.Hour)
	for _, r := range rows {
		if r.Symbol == "" && r.Day.Equal(day) {
			return r
		}
	}
	return LedgerRow{Day: day}
}
