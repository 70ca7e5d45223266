package account

import (
	"context"
	"fmt"
	"strings"
	"time"

	"tradedeck/venue"
)

// fetcher loads one page of a tab (with its filter values) into rows, in a
// command goroutine.
type fetcher func(ctx context.Context, api API, page int, f []string) loadedMsg

// fetchers has one per tab.
var fetchers = [nTabs]fetcher{
	TabInfo: fetchInfo, TabTokens: fetchTokens, TabInterest: fetchInterest,
	TabInterestHistory: fetchInterestHistory, TabFunding: fetchFunding, TabAssets: fetchAssets,
	TabDeposit: fetchDeposit, TabSubaccounts: fetchSubaccounts, TabSubAssets: fetchSubAssets,
	TabTransfers: fetchTransfers, TabIP: fetchIP,
}

// fetch runs in a command goroutine: one venue call, rendered into rows.
func fetch(ctx context.Context, api API, t Tab, page int, f []string) loadedMsg {
	return fetchers[t](ctx, api, page, f)
}

func values(fs []Field) []string {
	out := make([]string, len(fs))
	for i, f := range fs {
		out[i] = f.Value
	}
	return out
}

// day parses an optional YYYY-MM-DD filter (UTC); end dates are inclusive.
func day(s string, end bool) (time.Time, error) {
	if s == "" {
		return time.Time{}, nil
	}
	t, err := time.Parse("2006-01-02", s)
	if err != nil {
		return time.Time{}, fmt.Errorf("date %q is not YYYY-MM-DD", s)
	}
	if end {
		t = t.Add(24*time.Hour - time.Millisecond)
	}
	return t, nil
}

func dates(from, to string) (time.Time, time.Time, error) {
	a, err := day(from, false)
	if err != nil {
		return a, a, err
	}
	b, err := day(to, true)
	return a, b, err
}

func ts(t venue.SecTime) string {
	if t.IsZero() {
		return "-"
	}
	return t.UTC().Format("2006-01-02 15:04:05")
}

// add appends a row and the key actions on it use.
func (msg *loadedMsg) add(key string, cells ...string) {
	msg.rows = append(msg.rows, cells)
	msg.keys = append(msg.keys, key)
}

func fetchInfo(ctx context.Context, api API, _ int, _ []string) loadedMsg {
	var msg loadedMsg
	info, err := api.AccountInfo(ctx)
	msg.err = err
	if err != nil {
		return msg
	}
	a := info.Application
	msg.info = &info
	msg.header = []string{"field", "value"}
	msg.rows = [][]string{
		{"account", a.Account}, {"alias", a.Alias}, {"application id", a.ApplicationID},
		{"account mode", string(a.AccountMode)},
		{"leverage (margin)", a.Leverage.String()}, {"leverage (futures)", a.FuturesLeverage.String()},
		{"taker fee rate", a.TakerFeeRate.String() + " bps"}, {"maker fee rate", a.MakerFeeRate.String() + " bps"},
		{"futures taker fee rate", a.FuturesTakerFeeRate.String() + " bps"},
		{"futures maker fee rate", a.FuturesMakerFeeRate.String() + " bps"},
		{"interest rate", a.InterestRate.String()}, {"margin rate", info.MarginRate.String()},
		{"two-factor (otpauth)", fmt.Sprint(bool(a.OTPAuth))},
	}
	return msg
}

func fetchTokens(ctx context.Context, api API, _ int, _ []string) loadedMsg {
	rows, err := api.TokenConfig(ctx)
	msg := loadedMsg{err: err, header: []string{"token", "collateral ratio", "margin factor", "futures margin factor", "collateral", "can collateral", "can short", "stable"}}
	for _, r := range rows {
		msg.add(r.Token, r.Token, r.CollateralRatio.String(), r.MarginFactor.String(),
			r.FuturesMarginFactor.String(), yes(bool(r.Collateral)), yes(bool(r.CanCollateral)), yes(bool(r.CanShort)), yes(bool(r.Stable)))
	}
	return msg
}

func fetchInterest(ctx context.Context, api API, _ int, _ []string) loadedMsg {
	rows, err := api.InterestRates(ctx)
	msg := loadedMsg{err: err, header: []string{"token", "hourly now", "hourly est.", "annual now", "annual est.", "est. time"}}
	for _, r := range rows {
		msg.add(r.Token, r.Token, r.CurrentHourlyBaseRate.String(), r.EstHourlyBaseRate.String(),
			r.CurrentAnnualBaseRate.String(), r.EstAnnualBaseRate.String(), ts(r.EstTime))
	}
	return msg
}

func fetchInterestHistory(ctx context.Context, api API, page int, f []string) loadedMsg {
	from, to, err := dates(f[2], f[3])
	if err != nil {
		return loadedMsg{err: err}
	}
	rows, meta, err := api.InterestHistory(ctx, venue.InterestHistoryFilter{Token: f[0], Side: f[1], Start: from, End: to, Page: page})
	msg := loadedMsg{err: err, meta: meta, paged: true, header: []string{"time", "token", "side", "interest"}}
	for _, r := range rows {
		msg.add(r.Token, ts(r.CreatedTime), r.Token, r.Side, r.Interest.String())
	}
	return msg
}

func fetchFunding(ctx context.Context, api API, page int, f []string) loadedMsg {
	from, to, err := dates(f[1], f[2])
	if err != nil {
		return loadedMsg{err: err}
	}
	rows, meta, err := api.FundingFeeHistory(ctx, venue.FundingFeeFilter{Symbol: strings.ToUpper(f[0]), Start: from, End: to, Page: page})
	msg := loadedMsg{err: err, meta: meta, paged: true, header: []string{"time", "symbol", "funding rate", "mark price", "funding fee", "type", "status"}}
	for _, r := range rows {
		msg.add(r.Symbol, ts(r.CreatedTime), r.Symbol, r.FundingRate.String(), r.MarkPrice.String(),
			r.FundingFee.String(), r.PaymentType, r.Status)
	}
	return msg
}

func fetchAssets(ctx context.Context, api API, page int, f []string) loadedMsg {
	from, to, err := dates(f[5], f[6])
	if err != nil {
		return loadedMsg{err: err}
	}
	rows, meta, err := api.AssetHistory(ctx, venue.AssetHistoryFilter{Token: f[0], BalanceToken: f[1], Type: f[2],
		TokenSide: f[3], Status: f[4], Start: from, End: to, Page: page})
	msg := loadedMsg{err: err, meta: meta, paged: true, header: []string{"time", "token", "side", "type", "amount", "status", "fee", "tx id", "address"}}
	for _, r := range rows {
		fee := "-"
		if r.FeeAmount.Valid {
			fee = r.FeeAmount.Decimal.String() + " " + r.FeeToken
		}
		addr := r.TargetAddress
		if r.TokenSide == "DEPOSIT" {
			addr = r.SourceAddress
		}
		msg.add(r.Token, ts(r.CreatedTime), r.Token, r.TokenSide, r.Type, r.Amount.String(), r.Status, fee, r.TxID, addr)
	}
	return msg
}

func fetchDeposit(ctx context.Context, api API, _ int, _ []string) loadedMsg {
	rows, err := api.Tokens(ctx)
	msg := loadedMsg{err: err, header: []string{"token", "balance token", "name", "decimals"}}
	for _, r := range rows {
		msg.add(r.Token, r.Token, r.BalanceToken, r.Fullname, r.Decimals.String())
	}
	return msg
}

func fetchSubaccounts(ctx context.Context, api API, _ int, _ []string) loadedMsg {
	rows, err := api.SubAccounts(ctx)
	msg := loadedMsg{err: err, subs: rows, subsErr: err != nil, header: []string{"application id", "account", "created"}}
	for _, r := range rows {
		msg.add(r.ApplicationID, r.ApplicationID, r.Account, ts(r.CreatedTime))
	}
	return msg
}

// fetchSubAssets lists each account's usdt_balance: the venue's value of
// all the account's holdings in USDT (not its USDT holding), so the column
// says so.
func fetchSubAssets(ctx context.Context, api API, _ int, _ []string) loadedMsg {
	rows, err := api.SubAccountAssets(ctx)
	msg := loadedMsg{err: err, header: []string{"application id", "account", "total value (USDT)"}}
	for _, r := range rows {
		msg.add(r.ApplicationID, r.ApplicationID, r.Account, r.USDTBalance.String())
	}
	return msg
}

func fetchTransfers(ctx context.Context, api API, page int, f []string) loadedMsg {
	from, to, err := dates(f[0], f[1])
	if err != nil {
		return loadedMsg{err: err}
	}
	rows, meta, err := api.TransferHistory(ctx, venue.TransferFilter{Start: from, End: to, Page: page})
	msg := loadedMsg{err: err, meta: meta, paged: true, header: []string{"id", "time", "token", "amount", "status", "from", "to"}}
	for _, r := range rows {
		msg.add(r.ID.String(), r.ID.String(), ts(r.CreatedTime), r.Token, r.Amount.String(), r.Status,
			nonEmpty(r.FromUser, r.FromApplicationID), nonEmpty(r.ToUser, r.ToApplicationID))
	}
	return msg
}

func fetchIP(ctx context.Context, api API, _ int, f []string) loadedMsg {
	rows, _, err := api.IPRestrictions(ctx, venue.IPRestrictionFilter{ApplicationID: f[0], APIKey: f[1]})
	msg := loadedMsg{err: err, header: []string{"api key", "restricted", "ip list", "updated"}}
	for _, r := range rows {
		msg.add(r.APIKey, r.APIKey, yes(bool(r.Restrict)), r.IPList, ts(r.UpdateTime))
	}
	return msg
}

func yes(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

func nonEmpty(a, b string) string {
	if a != "" {
		return a
	}
	return b
}
