package export

import (
	"context"
	"time"

	"tradedeck/venue"
)

// Kind is what to export.
type Kind string

// The kinds of export.
const (
	Fills     Kind = "fills"     // own trades (GET /v1/client/trades)
	Orders    Kind = "orders"    // orders (GET /v1/orders)
	Funding   Kind = "funding"   // funding fee history (GET /v1/funding_fee/history)
	Interest  Kind = "interest"  // interest history (GET /v1/interest/history)
	Transfers Kind = "transfers" // main/sub transfers (GET /v1/asset/main_sub_transfer_history)
	Assets    Kind = "assets"    // deposits and withdrawals (GET /v1/asset/history)
	Positions Kind = "positions" // perpetual positions now (GET /v1/positions)
	Balances  Kind = "balances"  // balances now (GET /v2/client/holding)
)

// Kinds lists every kind, in the order of `tradedeck export -h`.
var Kinds = []Kind{Fills, Orders, Funding, Interest, Transfers, Assets, Positions, Balances}

// Snapshot reports a kind that is a state now, not a history: --since
// and --until do not apply.
func (k Kind) Snapshot() bool { return k == Positions || k == Balances }

// Query selects what to export.
type Query struct {
	Kind Kind
	// Symbol filters by symbol (fills, orders, funding, positions) or by
	// token (interest, assets, balances, transfers).
	Symbol string
	Since  time.Time // zero: from the venue's beginning
	Until  time.Time // zero: now (fixed when the export starts, so pages do not shift)
}

// page is one page of rows from the venue.
type page struct {
	rows    [][]Cell
	meta    venue.Meta
	n       int // rows on the venue's page (before any local filter)
	hasMeta bool
}

// source is how one kind is read: its columns and a page fetcher.
type source struct {
	columns []Column
	fetch   func(ctx context.Context, c *venue.Client, q Query, p int) (page, error)
}

var sources = map[Kind]source{
	Fills:     {fillColumns, fetchFills},
	Orders:    {orderColumns, fetchOrders},
	Funding:   {fundingColumns, fetchFunding},
	Interest:  {interestColumns, fetchInterest},
	Transfers: {transferColumns, fetchTransfers},
	Assets:    {assetColumns, fetchAssets},
	Positions: {positionColumns, fetchPositions},
	Balances:  {balanceColumns, fetchBalances},
}

// Columns are the fields of a kind, in output order.
func Columns(k Kind) []Column { return sources[k].columns }

var fillColumns = []Column{{"id", Integer}, {"time", Time}, {"symbol", Text}, {"side", Text},
	{"price", Decimal}, {"quantity", Decimal}, {"fee", Decimal}, {"fee_asset", Text},
	{"maker", Bool}, {"order_id", Integer}, {"order_tag", Text}}

// FillRow is a fill's cells.
func FillRow(t venue.Trade) []Cell {
	return []Cell{integer(t.ID), secTime(t.ExecutedTimestamp), text(t.Symbol), text(string(t.Side)),
		dec(t.ExecutedPrice), dec(t.ExecutedQuantity), dec(t.Fee), text(t.FeeAsset),
		boolean(bool(t.IsMaker)), integer(t.OrderID), optional(t.OrderTag)}
}

func fetchFills(ctx context.Context, c *venue.Client, q Query, p int) (page, error) {
	rows, meta, err := c.ListTrades(ctx, venue.TradeFilter{Symbol: q.Symbol, Start: q.Since, End: q.Until, Page: p})
	return rowsOf(rows, meta, err, FillRow)
}

var orderColumns = []Column{{"order_id", Integer}, {"client_order_id", Integer}, {"created_time", Time},
	{"updated_time", Time}, {"symbol", Text}, {"side", Text}, {"type", Text}, {"status", Text},
	{"price", Decimal}, {"quantity", Decimal}, {"amount", Decimal}, {"visible", Decimal},
	{"executed", Decimal}, {"average_price", Decimal}, {"total_fee", Decimal}, {"fee_asset", Text},
	{"reduce_only", Bool}, {"order_tag", Text}}

// OrderRow is an order's cells.
func OrderRow(o venue.Order) []Cell {
	return []Cell{integer(o.OrderID), integer(o.ClientOrderID), secTime(o.CreatedTime), secTime(o.UpdatedTime),
		text(o.Symbol), text(string(o.Side)), text(string(o.Type)), text(string(o.Status)),
		nullDec(o.Price), nullDec(o.Quantity), nullDec(o.Amount), dec(o.Visible),
		dec(o.Executed), nullDec(o.AverageExecutedPrice), dec(o.TotalFee), optional(o.FeeAsset),
		boolean(bool(o.ReduceOnly)), optional(o.OrderTag)}
}

func fetchOrders(ctx context.Context, c *venue.Client, q Query, p int) (page, error) {
	rows, meta, err := c.ListOrders(ctx, venue.OrderFilter{Symbol: q.Symbol, Start: q.Since, End: q.Until, Page: p})
	return rowsOf(rows, meta, err, OrderRow)
}

var fundingColumns = []Column{{"id", Integer}, {"created_time", Time}, {"updated_time", Time},
	{"symbol", Text}, {"funding_rate", Decimal}, {"mark_price", Decimal}, {"funding_fee", Decimal},
	{"payment_type", Text}, {"status", Text}}

// FundingRow is a funding fee's cells.
func FundingRow(f venue.FundingFee) []Cell {
	return []Cell{integer(f.ID), secTime(f.CreatedTime), secTime(f.UpdatedTime), text(f.Symbol),
		dec(f.FundingRate), dec(f.MarkPrice), dec(f.FundingFee), text(f.PaymentType), text(f.Status)}
}

func fetchFunding(ctx context.Context, c *venue.Client, q Query, p int) (page, error) {
	rows, meta, err := c.FundingFeeHistory(ctx, venue.FundingFeeFilter{Symbol: q.Symbol, Start: q.Since, End: q.Until, Page: p})
	return rowsOf(rows, meta, err, FundingRow)
}

var interestColumns = []Column{{"created_time", Time}, {"updated_time", Time}, {"token", Text},
	{"side", Text}, {"interest", Decimal}, {"application_id", Text}}

// InterestRow is an interest record's cells.
func InterestRow(r venue.InterestHistory) []Cell {
	return []Cell{secTime(r.CreatedTime), secTime(r.UpdatedTime), text(r.Token), text(r.Side),
		dec(r.Interest), optional(r.ApplicationID)}
}

func fetchInterest(ctx context.Context, c *venue.Client, q Query, p int) (page, error) {
	rows, meta, err := c.InterestHistory(ctx, venue.InterestHistoryFilter{Token: q.Symbol, Start: q.Since, End: q.Until, Page: p})
	return rowsOf(rows, meta, err, InterestRow)
}

var transferColumns = []Column{{"id", Integer}, {"created_time", Time}, {"updated_time", Time},
	{"token", Text}, {"amount", Decimal}, {"status", Text}, {"from_application_id", Text},
	{"to_application_id", Text}, {"from_user", Text}, {"to_user", Text}}

// TransferRow is a transfer's cells.
func TransferRow(t venue.Transfer) []Cell {
	return []Cell{integer(t.ID), secTime(t.CreatedTime), secTime(t.UpdatedTime), text(t.Token),
		dec(t.Amount), text(t.Status), text(t.FromApplicationID), text(t.ToApplicationID),
		text(t.FromUser), text(t.ToUser)}
}

func fetchTransfers(ctx context.Context, c *venue.Client, q Query, p int) (page, error) {
	rows, meta, err := c.TransferHistory(ctx, venue.TransferFilter{Start: q.Since, End: q.Until, Page: p})
	pg, err := rowsOf(rows, meta, err, TransferRow)
	if q.Symbol != "" { // the venue has no token filter here
		kept := pg.rows[:0]
		for i, t := range rows {
			if t.Token == q.Symbol {
				kept = append(kept, pg.rows[i])
			}
		}
		pg.rows = kept
	}
	return pg, err
}

var assetColumns = []Column{{"id", Text}, {"created_time", Time}, {"updated_time", Time},
	{"token", Text}, {"token_side", Text}, {"type", Text}, {"amount", Decimal}, {"fee_token", Text},
	{"fee_amount", Decimal}, {"status", Text}, {"tx_id", Text}, {"external_id", Text},
	{"target_address", Text}, {"source_address", Text}, {"extra", Text}, {"application_id", Text}}

// AssetRow is a deposit's or withdrawal's cells.
func AssetRow(a venue.AssetHistory) []Cell {
	return []Cell{text(a.ID), secTime(a.CreatedTime), secTime(a.UpdatedTime), text(a.Token),
		text(a.TokenSide), text(a.Type), dec(a.Amount), optional(a.FeeToken), nullDec(a.FeeAmount),
		text(a.Status), text(a.TxID), text(a.ExternalID), text(a.TargetAddress), text(a.SourceAddress),
		text(a.Extra), optional(a.ApplicationID)}
}

func fetchAssets(ctx context.Context, c *venue.Client, q Query, p int) (page, error) {
	rows, meta, err := c.AssetHistory(ctx, venue.AssetHistoryFilter{Token: q.Symbol, Start: q.Since, End: q.Until, Page: p})
	return rowsOf(rows, meta, err, AssetRow)
}

var positionColumns = []Column{{"symbol", Text}, {"holding", Decimal}, {"pending_long_qty", Decimal},
	{"pending_short_qty", Decimal}, {"average_open_price", Decimal}, {"settle_price", Decimal},
	{"mark_price", Decimal}, {"est_liq_price", Decimal}, {"pnl_24h", Decimal}, {"fee_24h", Decimal},
	{"time", Time}}

// PositionRow is a position's cells.
func PositionRow(p venue.Position) []Cell {
	return []Cell{text(p.Symbol), dec(p.Holding), dec(p.PendingLongQty), dec(p.PendingShortQty),
		dec(p.AverageOpenPrice), dec(p.SettlePrice), dec(p.MarkPrice), dec(p.EstLiqPrice),
		dec(p.PnL24h), dec(p.Fee24h), secTime(p.Timestamp)}
}

func fetchPositions(ctx context.Context, c *venue.Client, q Query, _ int) (page, error) {
	ps, err := c.Positions(ctx)
	if err != nil {
		return page{}, err
	}
	var pg page
	for _, p := range ps.Positions {
		if q.Symbol == "" || p.Symbol == q.Symbol {
			pg.rows = append(pg.rows, PositionRow(p))
		}
	}
	pg.n = len(ps.Positions)
	return pg, nil
}

var balanceColumns = []Column{{"token", Text}, {"holding", Decimal}, {"frozen", Decimal},
	{"outstanding_holding", Decimal}, {"pending_exposure", Decimal}, {"interest", Decimal},
	{"updated_time", Time}}

// BalanceRow is a balance's cells.
func BalanceRow(h venue.HoldingV2) []Cell {
	return []Cell{text(h.Token), dec(h.Holding), dec(h.Frozen), dec(h.OutstandingHolding),
		dec(h.PendingExposure), dec(h.Interest), secTime(h.UpdatedTime)}
}

func fetchBalances(ctx context.Context, c *venue.Client, q Query, _ int) (page, error) {
	hs, err := c.HoldingV2(ctx, false)
	if err != nil {
		return page{}, err
	}
	var pg page
	for _, h := range hs {
		if q.Symbol == "" || h.Token == q.Symbol {
			pg.rows = append(pg.rows, BalanceRow(h))
		}
	}
	pg.n = len(hs)
	return pg, nil
}

func rowsOf[T any](rows []T, meta venue.Meta, err error, row func(T) []Cell) (page, error) {
	if err != nil {
		return page{}, err
	}
	pg := page{meta: meta, n: len(rows), hasMeta: true, rows: make([][]Cell, len(rows))}
	for i, r := range rows {
		pg.rows[i] = row(r)
	}
	return pg, nil
}
