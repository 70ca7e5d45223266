package rest

import (
	"math"
	"time"

	"tradedeck/sim/exchange"
	"tradedeck/venue"
)

var (
	orderTypes  = []string{"LIMIT", "MARKET", "IOC", "FOK", "POST_ONLY", "ASK", "BID"}
	sides       = []string{"BUY", "SELL"}
	statusNames = []string{"NEW", "CANCELLED", "PARTIAL_FILLED", "FILLED", "REJECTED", "INCOMPLETE", "COMPLETED"}
)

// sendOrder is POST /v1/order. Giving both order_amount and
// order_quantity is refused with -1005.
func (s *Server) sendOrder(c *call) (obj, error) {
	var req exchange.OrderRequest
	var err error
	if req.Symbol, err = c.symbol("symbol"); err != nil {
		return nil, err
	}
	typ, err := c.enum("order_type", true, orderTypes...)
	if err != nil {
		return nil, err
	}
	side, err := c.enum("side", true, sides...)
	if err != nil {
		return nil, err
	}
	req.Type, req.Side = exchange.OrderType(typ), exchange.Side(side)
	if req.ClientOrderID, err = c.integer("client_order_id", false, 0, 0, math.MaxInt64); err != nil {
		return nil, err
	}
	req.Tag = c.params.Get("order_tag")
	if len(req.Tag) > 64 {
		return nil, invalid("order_tag is longer than 64 characters")
	}
	ro, err := c.enum("reduce_only", false, "true", "false")
	if err != nil {
		return nil, err
	}
	req.ReduceOnly = ro == "true"
	if req.Price, req.HasPrice, err = c.number("order_price"); err != nil {
		return nil, err
	}
	if req.Quantity, req.HasQuantity, err = c.number("order_quantity"); err != nil {
		return nil, err
	}
	if req.Amount, req.HasAmount, err = c.number("order_amount"); err != nil {
		return nil, err
	}
	if req.Visible, req.HasVisible, err = c.number("visible_quantity"); err != nil {
		return nil, err
	}
	if req.Type == exchange.Market {
		req.HasPrice = false // clients send a price with MARKET orders; the venue ignores it
	}
	if d := s.opts.OrderLatency; d > 0 {
		s.held.Add(1)
		t := time.NewTimer(d)
		select {
		case <-t.C:
			s.held.Add(-1)
		case <-c.r.Context().Done():
			t.Stop()
			s.held.Add(-1)
			return nil, &exchange.Error{Code: venue.CodeUnknown, Message: "request cancelled before it reached the book"}
		}
	}
	o, xerr := s.ex.PlaceOrder(c.account, req)
	if xerr != nil {
		return nil, xerr
	}
	return obj{{"order_id", o.ID}, {"client_order_id", o.ClientOrderID}, {"order_type", string(o.Type)},
		{"order_price", nullable(o.Price, o.HasPrice)}, {"order_quantity", nullable(o.Quantity, o.HasQuantity)},
		{"order_amount", nullable(o.Amount, o.HasAmount)}, {"reduce_only", o.ReduceOnly}, {"timestamp", secs(o.CreatedMs)}}, nil
}

func (s *Server) cancelOrder(c *call) (obj, error) { return s.cancelBy(c, "order_id", s.ex.Cancel) }

func (s *Server) cancelClientOrder(c *call) (obj, error) {
	return s.cancelBy(c, "client_order_id", s.ex.CancelByClientID)
}

// cancelBy cancels the symbol's order whose id is the parameter idParam.
func (s *Server) cancelBy(c *call, idParam string, cancel func(*exchange.Account, string, int64) *exchange.Error) (obj, error) {
	sym, err := c.symbol("symbol")
	if err != nil {
		return nil, err
	}
	id, err := c.integer(idParam, true, 0, 0, math.MaxInt64)
	if err != nil {
		return nil, err
	}
	if xerr := cancel(c.account, sym, id); xerr != nil {
		return nil, xerr
	}
	return obj{{"status", venue.CancelSent}}, nil
}

func (s *Server) cancelOrders(c *call) (obj, error) {
	sym, err := c.symbol("symbol")
	if err != nil {
		return nil, err
	}
	if _, xerr := s.ex.CancelAll(c.account, sym); xerr != nil {
		return nil, xerr
	}
	return obj{{"status", venue.CancelAllSent}}, nil
}

// orderObj renders an order; withTrades adds Transactions (single reads).
func orderObj(o exchange.Order, trades []exchange.Trade, withTrades bool) obj {
	avg, hasAvg := o.AvgPrice()
	var feeAsset any
	if o.FeeAsset != "" {
		feeAsset = o.FeeAsset
	}
	out := obj{
		{"symbol", o.Symbol}, {"status", string(o.Status)}, {"side", string(o.Side)},
		{"created_time", secs(o.CreatedMs)}, {"updated_time", secs(o.UpdatedMs)},
		{"order_id", o.ID}, {"order_tag", o.Tag}, {"price", nullable(o.Price, o.HasPrice)}, {"type", string(o.Type)},
		{"quantity", dec(o.Quantity)}, {"amount", nullable(o.Amount, o.HasAmount)}, {"visible", dec(o.Visible)},
		{"executed", dec(o.Executed)}, {"total_fee", dec(o.TotalFee)}, {"fee_asset", feeAsset},
		{"client_order_id", o.ClientOrderID}, {"reduce_only", o.ReduceOnly}, {"realized_pnl", nil},
		{"average_executed_price", nullable(avg, hasAvg)}, {"position_side", "BOTH"}, {"reason", o.Reason},
	}
	if withTrades {
		out = append(out, kv{"Transactions", objs(trades, singleTradeObj)})
	}
	return out
}

func singleTradeObj(t exchange.Trade) obj { return tradeObj(t, false) }
func listedTradeObj(t exchange.Trade) obj { return tradeObj(t, true) }

// tradeObj renders a trade; listings also carry order_tag.
func tradeObj(t exchange.Trade, listing bool) obj {
	maker := 0
	if t.Maker {
		maker = 1
	}
	out := obj{{"id", t.ID}, {"symbol", t.Symbol}, {"fee", dec(t.Fee)}, {"side", string(t.Side)},
		{"executed_timestamp", secs(t.TimeMs)}, {"order_id", t.OrderID}}
	if listing {
		out = append(out, kv{"order_tag", t.Tag})
	}
	return append(out, kv{"executed_price", dec(t.Price)}, kv{"executed_quantity", dec(t.Quantity)},
		kv{"fee_asset", t.FeeAsset}, kv{"is_maker", maker}, kv{"realized_pnl", nullable(t.RealPnL, !t.RealPnL.IsZero())})
}

func (s *Server) getOrder(c *call) (obj, error) { return s.getOrderBy(c, "oid", s.ex.OrderByID) }

func (s *Server) getClientOrder(c *call) (obj, error) {
	return s.getOrderBy(c, "cid", s.ex.OrderByClientID)
}

// getOrderBy reads one order, with its trades, by the id in path segment seg.
func (s *Server) getOrderBy(c *call, seg string, lookup func(*exchange.Account, int64) (exchange.Order, []exchange.Trade, *exchange.Error)) (obj, error) {
	id, err := c.pathInt(seg)
	if err != nil {
		return nil, err
	}
	o, trades, xerr := lookup(c.account, id)
	if xerr != nil {
		return nil, xerr
	}
	return orderObj(o, trades, true), nil
}

func (s *Server) getOrders(c *call) (obj, error) {
	var f exchange.OrderFilter
	var err error
	if f.Symbol, err = c.str("symbol", false); err != nil {
		return nil, err
	}
	side, err := c.enum("side", false, sides...)
	if err != nil {
		return nil, err
	}
	typ, err := c.enum("order_type", false, append(orderTypes, "LIQUIDATE")...)
	if err != nil {
		return nil, err
	}
	f.Side, f.Type = exchange.Side(side), exchange.OrderType(typ)
	f.Tag = c.params.Get("order_tag")
	if f.Status, err = c.enum("status", false, statusNames...); err != nil {
		return nil, err
	}
	var page int
	if f.Start, f.End, page, err = c.listing(); err != nil {
		return nil, err
	}
	rows, meta := pagedObjs(s.ex.Orders(c.account, f), page, true, func(o exchange.Order) obj { return orderObj(o, nil, false) })
	return obj{{"meta", meta}, {"rows", rows}}, nil
}

func (s *Server) getTrade(c *call) (obj, error) {
	id, err := c.pathInt("tid")
	if err != nil {
		return nil, err
	}
	t, xerr := s.ex.TradeByID(c.account, id)
	if xerr != nil {
		return nil, xerr
	}
	return tradeObj(t, false), nil
}

func (s *Server) getOrderTrades(c *call) (obj, error) {
	id, err := c.pathInt("oid")
	if err != nil {
		return nil, err
	}
	trades, xerr := s.ex.OrderTrades(c.account, id)
	if xerr != nil {
		return nil, xerr
	}
	return obj{{"rows", objs(trades, listedTradeObj)}}, nil
}

func (s *Server) getTrades(c *call) (obj, error) {
	start, end, page, err := c.listing()
	if err != nil {
		return nil, err
	}
	trades := s.ex.Trades(c.account, c.params.Get("symbol"), c.params.Get("order_tag"), start, end)
	rows, meta := pagedObjs(trades, page, true, listedTradeObj)
	return obj{{"meta", meta}, {"rows", rows}}, nil
}
