package account

import (
	"context"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"tradedeck/panes/common"
	"tradedeck/panes/confirm/cmdtest"
	"tradedeck/panes/panetest"
	"tradedeck/venue"
)

// fixtureAPI serves a fixed, realistic account: the calls a golden needs
// answer from memory, the rest are never made (the embedded nil API
// would panic, failing the test loudly).
type fixtureAPI struct {
	API
	assets  []venue.AssetHistory
	perPage int
	noTotal bool  // like the endpoints that omit meta.total
	err     error // AssetHistory fails with it
}

func (f *fixtureAPI) AccountInfo(context.Context) (venue.AccountInfo, error) {
	return venue.AccountInfo{MarginRate: decimal.RequireFromString("12.4837"), Application: venue.Application{
		ApplicationID: "8f3c2a1e-5b7d-4c9a-a1f0-3e6d9b2c7a54", Account: "desk@example.com", Alias: "desk",
		AccountMode: venue.Futures, Leverage: decimal.NewFromInt(5), FuturesLeverage: decimal.NewFromInt(10),
		TakerFeeRate: decimal.NewFromInt(5), MakerFeeRate: decimal.NewFromInt(2),
		FuturesTakerFeeRate: decimal.NewFromInt(4), FuturesMakerFeeRate: decimal.NewFromInt(1),
		InterestRate: decimal.RequireFromString("0.0001"), OTPAuth: true,
	}}, nil
}

// SubAccounts: Init asks it to tell a main account from a subaccount.
func (f *fixtureAPI) SubAccounts(context.Context) ([]venue.SubAccount, error) {
	return []venue.SubAccount{{ApplicationID: "0b4e7d21-9c3a-4f58-b6e2-1d8a5c9f3e70", Account: "hedge@example.com",
		CreatedTime: venue.SecTime{Time: panetest.Now.Add(-90 * 24 * time.Hour)}}}, nil
}

func (f *fixtureAPI) AssetHistory(_ context.Context, q venue.AssetHistoryFilter) ([]venue.AssetHistory, venue.Meta, error) {
	if f.err != nil {
		return nil, venue.Meta{}, f.err
	}
	page := max(q.Page, 1)
	lo := min((page-1)*f.perPage, len(f.assets))
	hi := min(lo+f.perPage, len(f.assets))
	meta := venue.Meta{RecordsPerPage: venue.Int(f.perPage), CurrentPage: venue.Int(page)}
	if !f.noTotal {
		total := venue.Int(len(f.assets))
		meta.Total = &total
	}
	return f.assets[lo:hi], meta, nil
}

// assetRows are 23 deposits and withdrawals an hour apart, newest first.
func assetRows() []venue.AssetHistory {
	var rows []venue.AssetHistory
	t0 := panetest.Now.Add(-time.Hour)
	for i := 0; i < 23; i++ {
		r := venue.AssetHistory{CreatedTime: venue.SecTime{Time: t0.Add(-time.Duration(i) * time.Hour)},
			ID: fmt.Sprintf("2603%06d", 900-i), Token: "USDT", Type: "BALANCE", Status: "COMPLETED",
			Amount: decimal.New(int64(2500+i*125), -1), TxID: fmt.Sprintf("0x%08x", 0x5eed0000+i*7919)}
		switch i % 4 {
		case 1:
			r.Token, r.Amount = "BTC", decimal.New(int64(1250+i), -5)
		case 3:
			r.Token, r.Amount = "ETH", decimal.New(int64(4200+i*3), -4)
		}
		if i%3 == 2 {
			r.TokenSide, r.TargetAddress = "WITHDRAW", fmt.Sprintf("0x9a1c%04x", i)
			r.FeeToken, r.FeeAmount = r.Token, decimal.NewNullDecimal(decimal.New(1, -2))
		} else {
			r.TokenSide, r.SourceAddress = "DEPOSIT", fmt.Sprintf("0x71b2%04x", i)
		}
		if i == 0 {
			r.Status = "PROCESSING"
		}
		rows = append(rows, r)
	}
	return rows
}

func openFixture(t *testing.T, api *fixtureAPI) (*cmdtest.Stack, *Model) {
	t.Helper()
	c := panetest.Common(common.NewStore(), nil, false)
	st := &cmdtest.Stack{W: 120, H: 24}
	m := New(c, Options{API: api})
	st.Run(common.Open(m))
	st.Run(m.Init())
	return st, m
}

// The info tab, exactly: every fee rate with its unit.
func TestGoldenInfo(t *testing.T) {
	_, m := openFixture(t, &fixtureAPI{})
	panetest.Golden(t, "account_info_120x24", m.View())
}

// Asset history pages: the total is the venue's record count (not the
// page size), "] next" shows while a next page exists and "[ previous"
// from page 2 on; the last page has the remainder.
func TestGoldenAssetPages(t *testing.T) {
	st, m := openFixture(t, &fixtureAPI{assets: assetRows(), perPage: 10})
	st.Press("6")
	if m.Tab() != TabAssets {
		t.Fatalf("tab %v", m.Tab())
	}
	panetest.Golden(t, "account_assets_p1_120x24", m.View())
	st.Press("]")
	panetest.Golden(t, "account_assets_p2_120x24", m.View())
	st.Press("]")
	panetest.Golden(t, "account_assets_p3_120x24", m.View())
	st.Press("]") // no fourth page: stays, and says so
	if m.Page(TabAssets) != 3 {
		t.Fatalf("paged past the end: page %d", m.Page(TabAssets))
	}
	panetest.Golden(t, "account_assets_p3_end_120x24", m.View())
}

// Without meta.total a full page means there may be a next one.
func TestGoldenAssetPagesWithoutTotal(t *testing.T) {
	st, m := openFixture(t, &fixtureAPI{assets: assetRows(), perPage: 10, noTotal: true})
	st.Press("6", "]")
	panetest.Golden(t, "account_assets_nototal_p2_120x24", m.View())
}

// A venue error is shown in place of the table.
func TestGoldenAssetError(t *testing.T) {
	api := &fixtureAPI{err: &venue.APIError{HTTPStatus: http.StatusTooManyRequests, Code: -1003, Name: "TOO_MANY_REQUEST",
		Message: "too many requests", Method: "GET", Path: "/v1/asset/history"}}
	st, m := openFixture(t, api)
	st.Press("6")
	panetest.Golden(t, "account_assets_error_120x24", m.View())
}
