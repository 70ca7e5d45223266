package ws

import (
	"encoding/json"
	"strconv"

	"github.com/shopspring/decimal"

	"tradedeck/sim/exchange"
)

// num writes a decimal as a bare JSON number, as the venue's Websocket does.
type num decimal.Decimal

func (n num) MarshalJSON() ([]byte, error) { return []byte(decimal.Decimal(n).String()), nil }

// push is a pushed frame.
type push struct {
	Topic string `json:"topic"`
	Ts    int64  `json:"ts"`
	Data  any    `json:"data"`
}

func (s *Server) publishJSON(key, topic string, ts int64, data any) {
	b, err := json.Marshal(push{Topic: topic, Ts: ts, Data: data})
	if err != nil {
		return
	}
	s.hub.publish(key, b)
}

// handleEvent turns one exchange event into frames. It runs on the publisher's goroutine, in the
// order the exchange published the events.
func (s *Server) handleEvent(ev exchange.Event) {
	switch ev := ev.(type) {
	case exchange.BooksCaptured:
		s.books.handleCapture(ev)
	case exchange.TradeEvent:
		s.publishTrade(ev.PublicTrade)
	case exchange.OrderEvent:
		s.publishExecutionReport(ev)
	case exchange.BalanceEvent:
		s.publishBalance(ev)
	case exchange.PositionEvent:
		s.publishPosition(ev)
	}
}

func (s *Server) publishTrade(t exchange.PublicTrade) {
	topic := t.Symbol + "@trade"
	if !s.hub.has(topic) {
		return
	}
	buf := appendPushHead(make([]byte, 0, 160), topic, t.Timestamp)
	buf = append(buf, `{"symbol":"`...)
	buf = append(buf, t.Symbol...)
	buf = append(buf, `","price":`...)
	buf = append(buf, t.Price.String()...)
	buf = append(buf, `,"size":`...)
	buf = append(buf, t.Size.String()...)
	buf = append(buf, `,"side":"`...)
	buf = append(buf, t.Side...)
	buf = append(buf, `","source":0}}`...)
	s.hub.publish(topic, buf)
}

// executionReport is the data of `executionreport`.
type executionReport struct {
	Symbol                string `json:"symbol"`
	ClientOrderID         int64  `json:"clientOrderId"`
	OrderID               int64  `json:"orderId"`
	Type                  string `json:"type"`
	Side                  string `json:"side"`
	Quantity              num    `json:"quantity"`
	Price                 num    `json:"price"`
	TradeID               int64  `json:"tradeId"`
	ExecutedPrice         num    `json:"executedPrice"`
	ExecutedQuantity      num    `json:"executedQuantity"`
	Fee                   num    `json:"fee"`
	FeeAsset              string `json:"feeAsset"`
	TotalExecutedQuantity num    `json:"totalExecutedQuantity"`
	AvgPrice              num    `json:"avgPrice"`
	Status                string `json:"status"`
	Reason                string `json:"reason"`
	OrderTag              string `json:"orderTag"`
	TotalFee              num    `json:"totalFee"`
	Visible               num    `json:"visible"`
	Timestamp             int64  `json:"timestamp"`
	ReduceOnly            bool   `json:"reduceOnly"`
	Maker                 bool   `json:"maker"`
}

func (s *Server) publishExecutionReport(ev exchange.OrderEvent) {
	key := privateKey("executionreport", ev.ApplicationID)
	if !s.hub.has(key) {
		return
	}
	// The order's display quantity and reduce-only flag, which the event does not carry.
	visible, reduceOnly := decimal.Zero, false
	if a, ok := s.ex.AccountByApplicationID(ev.ApplicationID); ok {
		if o, _, err := s.ex.OrderByID(a, ev.OrderID); err == nil {
			visible, reduceOnly = o.Visible, o.ReduceOnly
		}
	}
	s.publishPrivate(key, "executionreport", ev.Timestamp, executionReport{
		Symbol: ev.Symbol, ClientOrderID: ev.ClientOrderID, OrderID: ev.OrderID,
		Type: string(ev.Type), Side: string(ev.Side), Quantity: num(ev.Quantity), Price: num(ev.Price),
		TradeID: ev.TradeID, ExecutedPrice: num(ev.ExecutedPrice), ExecutedQuantity: num(ev.ExecutedQuantity),
		Fee: num(ev.Fee), FeeAsset: ev.FeeAsset, TotalExecutedQuantity: num(ev.TotalExecutedQuantity),
		AvgPrice: num(ev.AvgPrice), Status: string(ev.Status), Reason: ev.Reason, OrderTag: ev.OrderTag,
		TotalFee: num(ev.TotalFee), Visible: num(visible), Timestamp: ev.Timestamp, ReduceOnly: reduceOnly, Maker: ev.Maker,
	})
}

// balanceData is one token of the `balance` topic (shape of the venue's documented sample).
type balanceData struct {
	Holding          num   `json:"holding"`
	Frozen           num   `json:"frozen"`
	Interest         num   `json:"interest"`
	PendingShortQty  num   `json:"pendingShortQty"`
	PendingLongQty   num   `json:"pendingLongQty"`
	Version          int64 `json:"version"`
	Staked           num   `json:"staked"`
	Unbonding        num   `json:"unbonding"`
	Vault            num   `json:"vault"`
	AverageOpenPrice num   `json:"averageOpenPrice"`
	PnL24H           num   `json:"pnl24H"`
	Fee24H           num   `json:"fee24H"`
	MarkPrice        num   `json:"markPrice"`
}

// privateSubscriber returns the hub key of an account's private topic and
// the account, with ok false when nobody is subscribed to it or the account
// is unknown (nothing to publish then).
func (s *Server) privateSubscriber(topic, applicationID string) (string, *exchange.Account, bool) {
	key := privateKey(topic, applicationID)
	if !s.hub.has(key) {
		return "", nil, false
	}
	a, ok := s.ex.AccountByApplicationID(applicationID)
	return key, a, ok
}

func (s *Server) publishBalance(ev exchange.BalanceEvent) {
	key, a, ok := s.privateSubscriber("balance", ev.ApplicationID)
	if !ok {
		return
	}
	h := s.ex.Balance(a, ev.Token)
	vk := ev.ApplicationID + "|" + ev.Token
	s.versions[vk]++
	zero := num(decimal.Zero)
	long, short := decimal.Max(h.OutstandingHolding, decimal.Zero), decimal.Max(h.OutstandingHolding.Neg(), decimal.Zero)
	s.publishPrivate(key, "balance", ev.Timestamp, map[string]any{"balances": map[string]balanceData{ev.Token: {
		Holding: num(h.Holding), Frozen: num(h.Frozen), Interest: num(h.Interest),
		PendingShortQty: num(short), PendingLongQty: num(long), Version: s.versions[vk],
		Staked: zero, Unbonding: zero, Vault: zero, AverageOpenPrice: zero, PnL24H: zero, Fee24H: zero,
		MarkPrice: num(s.tokenPrice(ev.Token)),
	}}})
}

// positionData is one position of the `position` topic.
type positionData struct {
	Symbol          string `json:"symbol"`
	Holding         num    `json:"holding"`
	PendingLongQty  num    `json:"pendingLongQty"`
	PendingShortQty num    `json:"pendingShortQty"`
	PnL24H          num    `json:"pnl24H"`
	Fee24H          num    `json:"fee24H"`
	AvgOpenPrice    num    `json:"avgOpenPrice"`
	SettlePrice     num    `json:"settlePrice"`
	MarkPrice       num    `json:"markPrice"`
}

// publishPosition pushes the changed position as the spec's array of positions.
func (s *Server) publishPosition(ev exchange.PositionEvent) {
	key, a, ok := s.privateSubscriber("position", ev.ApplicationID)
	if !ok {
		return
	}
	p, err := s.ex.Position(a, ev.Symbol)
	if err != nil {
		return
	}
	s.publishPrivate(key, "position", ev.Timestamp, []positionData{{
		Symbol: p.Symbol, Holding: num(p.Holding), PendingLongQty: num(p.PendingLongQty), PendingShortQty: num(p.PendingShortQty),
		PnL24H: num(p.PnL24h), Fee24H: num(p.Fee24h), AvgOpenPrice: num(p.AverageOpen), SettlePrice: num(p.SettlePrice),
		MarkPrice: num(p.MarkPrice),
	}})
}

// tokenPrice is a token's price in USDT: 1 for stable coins, else the mark of its USDT spot
// market (0 when there is none).
func (s *Server) tokenPrice(token string) decimal.Decimal {
	if token == "USDT" || token == "USDC" {
		return decimal.NewFromInt(1)
	}
	mark, _, err := s.ex.MarkIndex("SPOT_" + token + "_USDT")
	if err != nil {
		return decimal.Zero
	}
	return mark
}

func itoa(v int64) string { return strconv.FormatInt(v, 10) }
