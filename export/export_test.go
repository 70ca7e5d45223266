package export_test

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"tradedeck/export"
	"tradedeck/sim"
	"tradedeck/sim/simtest"
	"tradedeck/venue"
)

// venueWithHistory starts the simulated venue and trades on the demo
// account until it has at least fills fills, plus deposits and transfers.
func venueWithHistory(t *testing.T, stringNumbers bool, fills int) (*sim.Instance, *venue.Client) {
	t.Helper()
	inst := simtest.Start(t, sim.Options{Seed: 3, NoRateLimits: true, StringNumbers: stringNumbers, Living: sim.LivingOptions{NoMarket: true}})
	ctx := context.Background()
	setup := venue.NewClient(inst.Endpoints, inst.Credentials, venue.WithLimiter(nil))
	qty := map[string]decimal.Decimal{"SPOT_ETH_USDT": decimal.RequireFromString("0.01"), "PERP_BTC_USDT": decimal.RequireFromString("0.001")}
	for n := 0; ; n++ {
		trades, meta, err := setup.ListTrades(ctx, venue.TradeFilter{})
		if err != nil {
			t.Fatal(err)
		}
		if meta.Total != nil && int(*meta.Total) >= fills {
			break
		}
		if n > 4*fills {
			t.Fatalf("only %d fills after %d orders (%d on the first page)", *meta.Total, n, len(trades))
		}
		sym := "SPOT_ETH_USDT"
		if n%3 == 2 {
			sym = "PERP_BTC_USDT"
		}
		side := venue.Buy
		if n%2 == 1 {
			side = venue.Sell
		}
		if _, err := setup.SendOrder(ctx, venue.OrderRequest{Symbol: sym, Type: venue.Market, Side: side, Quantity: qty[sym], ClientOrderID: int64(n + 1)}); err != nil {
			t.Fatalf("order %d: %v", n, err)
		}
	}
	main, _ := inst.Exchange.AccountByApplicationID(inst.Credentials.ApplicationID)
	for i := 0; i < 30; i++ {
		if _, xerr := inst.Exchange.Deposit(main, "TRON_USDT", decimal.New(int64(1000+i), -2)); xerr != nil {
			t.Fatal(xerr)
		}
		if _, err := setup.Transfer(ctx, venue.TransferRequest{Token: "USDT", Amount: decimal.New(int64(1+i), -1),
			FromApplicationID: inst.Credentials.ApplicationID, ToApplicationID: inst.SubCredentials.ApplicationID}); err != nil {
			t.Fatal(err)
		}
	}
	// The export's own client keeps the venue's rate limits.
	return inst, venue.NewClient(inst.Endpoints, inst.Credentials)
}

// allPages reads a listing through the venue client, the reference the
// export must equal.
func allPages[T any](t *testing.T, list func(p int) ([]T, venue.Meta, error)) []T {
	t.Helper()
	var out []T
	for p := 1; ; p++ {
		rows, meta, err := list(p)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, rows...)
		if !meta.HasNext(len(rows)) {
			return out
		}
	}
}

func runExport(t *testing.T, c *venue.Client, q export.Query, f export.Format) ([]byte, int) {
	t.Helper()
	var buf bytes.Buffer
	w, err := export.NewWriter(f, &buf)
	if err != nil {
		t.Fatal(err)
	}
	pages := 0
	n, err := export.Run(context.Background(), c, q, w, func(_ export.Kind, p, _ int, _ int64) { pages = p })
	if err != nil {
		t.Fatal(err)
	}
	if n == 0 {
		t.Fatalf("export %s wrote no rows", q.Kind)
	}
	return buf.Bytes(), pages
}

func readCSV(t *testing.T, b []byte) []map[string]string {
	t.Helper()
	recs, err := csv.NewReader(bytes.NewReader(b)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	var out []map[string]string
	for _, r := range recs[1:] {
		m := map[string]string{}
		for i, name := range recs[0] {
			m[name] = r[i]
		}
		out = append(out, m)
	}
	return out
}

// readJSON reads json or jsonl into maps of raw values, so a decimal
// written as a number (a float to most readers) would be caught.
func readJSON(t *testing.T, b []byte, lines bool) []map[string]json.RawMessage {
	t.Helper()
	var out []map[string]json.RawMessage
	if lines {
		for _, l := range bytes.Split(bytes.TrimSpace(b), []byte("\n")) {
			var m map[string]json.RawMessage
			if err := json.Unmarshal(l, &m); err != nil {
				t.Fatalf("line %s: %v", l, err)
			}
			out = append(out, m)
		}
		return out
	}
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

func ms(t venue.SecTime) string { return t.UTC().Format("2006-01-02T15:04:05.000Z") }

// fillFields is what a fill must read as in every export: the venue's
// values, decimals exactly, times in UTC with milliseconds.
func fillFields(tr venue.Trade) map[string]string {
	return map[string]string{
		"id": strconv.FormatInt(int64(tr.ID), 10), "time": ms(tr.ExecutedTimestamp), "symbol": tr.Symbol,
		"side": string(tr.Side), "price": tr.ExecutedPrice.String(), "quantity": tr.ExecutedQuantity.String(),
		"fee": tr.Fee.String(), "fee_asset": tr.FeeAsset, "maker": strconv.FormatBool(bool(tr.IsMaker)),
		"order_id": strconv.FormatInt(int64(tr.OrderID), 10),
	}
}

func TestFillsEqualVenueRowByRow(t *testing.T) {
	for _, strs := range []bool{false, true} {
		t.Run(fmt.Sprintf("string_numbers=%v", strs), func(t *testing.T) {
			_, c := venueWithHistory(t, strs, 300)
			ctx := context.Background()
			until := time.Now()
			want := allPages(t, func(p int) ([]venue.Trade, venue.Meta, error) {
				return c.ListTrades(ctx, venue.TradeFilter{End: until, Page: p})
			})
			if len(want) < 300 {
				t.Fatalf("venue lists %d fills", len(want))
			}
			q := export.Query{Kind: export.Fills, Until: until}
			b, pages := runExport(t, c, q, export.CSV)
			if pages < 10 {
				t.Fatalf("%d pages for %d fills", pages, len(want))
			}
			rows := readCSV(t, b)
			if len(rows) != len(want) {
				t.Fatalf("csv: %d rows, venue %d", len(rows), len(want))
			}
			for i, tr := range want {
				for k, v := range fillFields(tr) {
					if rows[i][k] != v {
						t.Fatalf("csv row %d %s: %q, venue %q", i, k, rows[i][k], v)
					}
				}
			}
			for _, f := range []export.Format{export.JSON, export.JSONL} {
				b, _ := runExport(t, c, q, f)
				objs := readJSON(t, b, f == export.JSONL)
				if len(objs) != len(want) {
					t.Fatalf("%s: %d rows, venue %d", f, len(objs), len(want))
				}
				for i, tr := range want {
					for k, v := range fillFields(tr) {
						raw := string(objs[i][k])
						if k == "id" || k == "order_id" || k == "maker" {
							if raw != v {
								t.Fatalf("%s row %d %s: %s, venue %s", f, i, k, raw, v)
							}
							continue
						}
						if raw != strconv.Quote(v) {
							t.Fatalf("%s row %d %s: %s, venue %q (decimals and times are strings)", f, i, k, raw, v)
						}
					}
				}
			}
		})
	}
}

func TestEveryKindEqualsVenue(t *testing.T) {
	_, c := venueWithHistory(t, true, 40)
	ctx := context.Background()
	until := time.Now()
	orders := allPages(t, func(p int) ([]venue.Order, venue.Meta, error) {
		return c.ListOrders(ctx, venue.OrderFilter{End: until, Page: p})
	})
	assets := allPages(t, func(p int) ([]venue.AssetHistory, venue.Meta, error) {
		return c.AssetHistory(ctx, venue.AssetHistoryFilter{End: until, Page: p})
	})
	transfers := allPages(t, func(p int) ([]venue.Transfer, venue.Meta, error) {
		return c.TransferHistory(ctx, venue.TransferFilter{End: until, Page: p})
	})
	hold, err := c.HoldingV2(ctx, false)
	if err != nil {
		t.Fatal(err)
	}
	pos, err := c.Positions(ctx)
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		kind  export.Kind
		until time.Time
		want  [][]export.Cell
	}{
		{export.Orders, until, cells(orders, export.OrderRow)},
		{export.Assets, until, cells(assets, export.AssetRow)},
		{export.Transfers, until, cells(transfers, export.TransferRow)},
		{export.Balances, time.Time{}, cells(hold, export.BalanceRow)},
		{export.Positions, time.Time{}, cells(pos.Positions, export.PositionRow)},
	}
	for _, tc := range cases {
		if len(tc.want) == 0 {
			t.Fatalf("%s: the venue lists nothing to compare", tc.kind)
		}
		b, _ := runExport(t, c, export.Query{Kind: tc.kind, Until: tc.until}, export.CSV)
		rows := readCSV(t, b)
		if len(rows) != len(tc.want) {
			t.Fatalf("%s: %d rows, venue %d", tc.kind, len(rows), len(tc.want))
		}
		cols := export.Columns(tc.kind)
		for i, w := range tc.want {
			for j, col := range cols {
				if rows[i][col.Name] != w[j].Text {
					t.Fatalf("%s row %d %s: %q, venue %q", tc.kind, i, col.Name, rows[i][col.Name], w[j].Text)
				}
			}
		}
	}
	if len(orders) < 40 || len(transfers) < 30 || len(assets) < 30 {
		t.Fatalf("too little history: %d orders, %d transfers, %d deposits", len(orders), len(transfers), len(assets))
	}
}

func cells[T any](rows []T, row func(T) []export.Cell) [][]export.Cell {
	out := make([][]export.Cell, len(rows))
	for i, r := range rows {
		out[i] = row(r)
	}
	return out
}

func TestSymbolAndWindow(t *testing.T) {
	_, c := venueWithHistory(t, false, 30)
	b, _ := runExport(t, c, export.Query{Kind: export.Fills, Symbol: "PERP_BTC_USDT"}, export.CSV)
	for _, r := range readCSV(t, b) {
		if r["symbol"] != "PERP_BTC_USDT" {
			t.Fatalf("symbol filter let %s through", r["symbol"])
		}
	}
	var buf bytes.Buffer
	w, _ := export.NewWriter(export.CSV, &buf)
	n, err := export.Run(context.Background(), c, export.Query{Kind: export.Fills, Since: time.Now().Add(time.Hour)}, w, nil)
	if err == nil || n != 0 || !strings.Contains(err.Error(), "before --since") {
		t.Fatalf("a window ending before it starts: %d rows, %v", n, err)
	}
	_, err = export.Run(context.Background(), c, export.Query{Kind: export.Balances, Since: time.Now()}, w, nil)
	if err == nil || !strings.Contains(err.Error(), "snapshot") {
		t.Fatalf("--since on balances: %v", err)
	}
}

func TestParseWhen(t *testing.T) {
	now := time.Date(2026, 3, 10, 12, 0, 0, 0, time.UTC)
	for in, want := range map[string]time.Time{
		"7d":                        now.Add(-7 * 24 * time.Hour),
		"12h":                       now.Add(-12 * time.Hour),
		"2w":                        now.Add(-14 * 24 * time.Hour),
		"2026-01-31":                time.Date(2026, 1, 31, 0, 0, 0, 0, time.UTC),
		"2026-01-31T15:04":          time.Date(2026, 1, 31, 15, 4, 0, 0, time.UTC),
		"2026-01-31 15:04:05":       time.Date(2026, 1, 31, 15, 4, 5, 0, time.UTC),
		"2026-01-31T15:04:05+01:00": time.Date(2026, 1, 31, 14, 4, 5, 0, time.UTC),
	} {
		got, err := export.ParseWhen(in, now, false)
		if err != nil || !got.Equal(want) {
			t.Errorf("%s: %v %v, want %v", in, got, err, want)
		}
	}
	if got, _ := export.ParseWhen("2026-01-31", now, true); !got.Equal(time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC)) {
		t.Errorf("until a date: %v, want the end of that day", got)
	}
	for _, bad := range []string{"yesterday", "-3d", "2026-13-01", "7x"} {
		if _, err := export.ParseWhen(bad, now, false); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}
