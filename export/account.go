package export

import (
	"strconv"

	"github.com/shopspring/decimal"

	"tradedeck/feed"
)

// Tables of the dashboard's account pane, written as they are held (the
// feed's view of the account: recent, bounded), for `:export`.

// AccountTable is one table of the account pane, ready for a Writer.
type AccountTable struct {
	Name    string // fills, open-orders, history, balances, positions
	Columns []Column
	Rows    [][]Cell
}

// Write writes the table to w.
func (t AccountTable) Write(w Writer) error {
	if err := w.Begin(t.Columns); err != nil {
		return err
	}
	for _, r := range t.Rows {
		if err := w.Row(r); err != nil {
			return err
		}
	}
	return w.End()
}

var feedOrderColumns = []Column{{"order_id", Integer}, {"client_order_id", Integer}, {"created_time", Time},
	{"updated_time", Time}, {"symbol", Text}, {"side", Text}, {"type", Text}, {"status", Text},
	{"price", Decimal}, {"quantity", Decimal}, {"amount", Decimal}, {"visible", Decimal},
	{"executed", Decimal}, {"average_price", Decimal}, {"total_fee", Decimal}, {"fee_asset", Text},
	{"order_tag", Text}, {"reason", Text}}

// OrdersTable is the open orders or the order history as the feed holds them.
func OrdersTable(name string, orders []feed.Order) AccountTable {
	t := AccountTable{Name: name, Columns: feedOrderColumns}
	for _, o := range orders {
		t.Rows = append(t.Rows, []Cell{int64Cell(o.OrderID), int64Cell(o.ClientOrderID), FormatTime(o.Created),
			FormatTime(o.Updated), text(o.Symbol), text(o.Side), text(o.Type), text(o.Status),
			zeroNull(o.Price), zeroNull(o.Quantity), zeroNull(o.Amount), dec(o.Visible), dec(o.Executed),
			zeroNull(o.AvgPrice), dec(o.TotalFee), optional(o.FeeAsset), optional(o.Tag), optional(o.Reason)})
	}
	return t
}

// FillsTable is the recent fills as the feed holds them.
func FillsTable(fills []feed.Fill) AccountTable {
	t := AccountTable{Name: "fills", Columns: fillColumns[:10]}
	for _, f := range fills {
		t.Rows = append(t.Rows, []Cell{int64Cell(f.TradeID), FormatTime(f.Time), text(f.Symbol), text(f.Side),
			dec(f.Price), dec(f.Qty), dec(f.Fee), text(f.FeeAsset), boolean(f.Maker), int64Cell(f.OrderID)})
	}
	return t
}

// BalancesTable is the balances as the feed holds them.
func BalancesTable(bs []feed.Balance) AccountTable {
	t := AccountTable{Name: "balances", Columns: balanceColumns}
	for _, b := range bs {
		t.Rows = append(t.Rows, []Cell{text(b.Token), dec(b.Holding), dec(b.Frozen), dec(b.OutstandingHolding),
			dec(b.PendingExposure), dec(b.Interest), FormatTime(b.Updated)})
	}
	return t
}

var feedPositionColumns = []Column{{"symbol", Text}, {"holding", Decimal}, {"pending_long_qty", Decimal},
	{"pending_short_qty", Decimal}, {"average_open_price", Decimal}, {"settle_price", Decimal},
	{"mark_price", Decimal}, {"pnl_24h", Decimal}, {"fee_24h", Decimal}, {"time", Time}}

// PositionsTable is the positions as the feed holds them.
func PositionsTable(ps []feed.Position) AccountTable {
	t := AccountTable{Name: "positions", Columns: feedPositionColumns}
	for _, p := range ps {
		t.Rows = append(t.Rows, []Cell{text(p.Symbol), dec(p.Holding), dec(p.PendingLong), dec(p.PendingShort),
			dec(p.AvgOpenPrice), dec(p.SettlePrice), dec(p.MarkPrice), dec(p.PnL24h), dec(p.Fee24h), FormatTime(p.Updated)})
	}
	return t
}

func int64Cell(i int64) Cell { return Cell{Text: strconv.FormatInt(i, 10)} }

// zeroNull: the feed keeps an absent price (a MARKET order's) as zero.
func zeroNull(d decimal.Decimal) Cell {
	if d.IsZero() {
		return Cell{Null: true}
	}
	return dec(d)
}
