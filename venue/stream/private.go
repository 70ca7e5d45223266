package stream

import (
	"github.com/shopspring/decimal"
)

// ExecutionReport is the data of `executionreport`: one order's new state,
// and when TradeID is not 0 the trade that moved it.
type ExecutionReport struct {
	Symbol                string
	ClientOrderID         int64
	OrderID               int64
	Type                  string
	Side                  string
	Quantity              decimal.Decimal
	Price                 decimal.Decimal
	Amount                decimal.Decimal
	Visible               decimal.Decimal
	TradeID               int64
	ExecutedPrice         decimal.Decimal
	ExecutedQuantity      decimal.Decimal
	Fee                   decimal.Decimal
	FeeAsset              string
	TotalExecutedQuantity decimal.Decimal
	AvgPrice              decimal.Decimal
	Status                string
	Reason                string
	OrderTag              string
	TotalFee              decimal.Decimal
	Timestamp             int64 // ms
	Maker                 bool
	ReduceOnly            bool
}

// DecodeExecutionReport reads executionreport data.
func DecodeExecutionReport(data []byte, r *ExecutionReport) error {
	*r = ExecutionReport{}
	err := walk(data, func(s *scanner, k []byte) {
		switch string(k) {
		case "symbol":
			r.Symbol = s.text()
		case "clientOrderId":
			r.ClientOrderID = s.intVal()
		case "orderId":
			r.OrderID = s.intVal()
		case "type":
			r.Type = s.text()
		case "side":
			r.Side = s.text()
		case "quantity":
			r.Quantity = s.decimalVal()
		case "price":
			r.Price = s.decimalVal()
		case "amount":
			r.Amount = s.decimalVal()
		case "visible":
			r.Visible = s.decimalVal()
		case "tradeId":
			r.TradeID = s.intVal()
		case "executedPrice":
			r.ExecutedPrice = s.decimalVal()
		case "executedQuantity":
			r.ExecutedQuantity = s.decimalVal()
		case "fee":
			r.Fee = s.decimalVal()
		case "feeAsset":
			r.FeeAsset = s.text()
		case "totalExecutedQuantity":
			r.TotalExecutedQuantity = s.decimalVal()
		case "avgPrice":
			r.AvgPrice = s.decimalVal()
		case "status":
			r.Status = s.text()
		case "reason":
			r.Reason = s.text()
		case "orderTag":
			r.OrderTag = s.text()
		case "totalFee":
			r.TotalFee = s.decimalVal()
		case "timestamp":
			r.Timestamp = s.intVal()
		case "maker":
			r.Maker = s.boolVal()
		case "reduceOnly":
			r.ReduceOnly = s.boolVal()
		default:
			s.skip()
		}
	})
	if err == nil && r.OrderID == 0 {
		return &SyntaxError{What: "executionreport without orderId"}
	}
	return err
}

// TokenBalance is one token of the `balance` topic (and of `positioninfo`'s
// positions map, which has the same idea with other names).
type TokenBalance struct {
	Token              string
	Holding            decimal.Decimal
	Frozen             decimal.Decimal
	Interest           decimal.Decimal
	OutstandingHolding decimal.Decimal
	PendingExposure    decimal.Decimal
	AvgOpenPrice       decimal.Decimal
	MarkPrice          decimal.Decimal
	PnL24h             decimal.Decimal
	Fee24h             decimal.Decimal
	Version            int64
}

func (s *scanner) tokenBalance(tb *TokenBalance) {
	if !s.expect('{') {
		return
	}
	for k, ok := s.firstKey(); ok; k, ok = s.nextKey() {
		switch string(k) {
		case "holding":
			tb.Holding = s.decimalVal()
		case "frozen":
			tb.Frozen = s.decimalVal()
		case "interest":
			tb.Interest = s.decimalVal()
		case "outstandingHolding":
			tb.OutstandingHolding = s.decimalVal()
		case "pendingExposure":
			tb.PendingExposure = s.decimalVal()
		case "averageOpenPrice", "avgOpenPrice":
			tb.AvgOpenPrice = s.decimalVal()
		case "markPrice", "markPx":
			tb.MarkPrice = s.decimalVal()
		case "pnl24H":
			tb.PnL24h = s.decimalVal()
		case "fee24H":
			tb.Fee24h = s.decimalVal()
		case "version":
			tb.Version = s.intVal()
		default:
			s.skip()
		}
	}
}

// tokenMap reads `{"TOKEN": {...}, ...}` appending to dst.
func (s *scanner) tokenMap(dst []TokenBalance) []TokenBalance {
	if !s.expect('{') {
		return dst
	}
	for k, ok := s.firstKey(); ok; k, ok = s.nextKey() {
		tb := TokenBalance{Token: string(k)}
		s.tokenBalance(&tb)
		if s.err != nil {
			break
		}
		dst = append(dst, tb)
	}
	return dst
}

// DecodeBalance reads the data of the `balance` topic: `{"balances":{TOKEN:{...}}}`.
func DecodeBalance(data []byte) ([]TokenBalance, error) {
	var out []TokenBalance
	err := walk(data, func(s *scanner, k []byte) {
		if string(k) == "balances" {
			out = s.tokenMap(out)
			return
		}
		s.skip()
	})
	return out, err
}

// PositionInfo is the data of `positioninfo`: account-level margin data and
// per-token holdings.
type PositionInfo struct {
	MarginRate      decimal.Decimal
	MarginMode      string
	Leverage        decimal.Decimal
	TakerFeeRate    decimal.Decimal
	MakerFeeRate    decimal.Decimal
	FuturesLeverage decimal.Decimal
	// The perpetuals' own fee rates (futuresApi*: the rates of orders
	// sent through the API, which is how this terminal trades).
	FuturesTakerFeeRate decimal.Decimal
	FuturesMakerFeeRate decimal.Decimal
	Tokens              []TokenBalance
}

// DecodePositionInfo reads positioninfo data.
func DecodePositionInfo(data []byte, p *PositionInfo) error {
	*p = PositionInfo{}
	return walk(data, func(s *scanner, k []byte) {
		switch string(k) {
		case "marginRate":
			p.MarginRate = s.decimalVal()
		case "marginMode":
			p.MarginMode = s.text()
		case "leverage":
			p.Leverage = s.decimalVal()
		case "takerFeeRate":
			p.TakerFeeRate = s.decimalVal()
		case "makerFeeRate":
			p.MakerFeeRate = s.decimalVal()
		case "futuresLeverage":
			p.FuturesLeverage = s.decimalVal()
		case "futuresApiTakerFeeRate":
			p.FuturesTakerFeeRate = s.decimalVal()
		case "futuresApiMakerFeeRate":
			p.FuturesMakerFeeRate = s.decimalVal()
		case "positions":
			p.Tokens = s.tokenMap(p.Tokens)
		default:
			s.skip()
		}
	})
}

// Position is one perpetual position of the `position` topic.
type Position struct {
	Symbol          string
	Holding         decimal.Decimal
	PendingLongQty  decimal.Decimal
	PendingShortQty decimal.Decimal
	AvgOpenPrice    decimal.Decimal
	SettlePrice     decimal.Decimal
	MarkPrice       decimal.Decimal
	PnL24h          decimal.Decimal
	Fee24h          decimal.Decimal
}

func (s *scanner) position(p *Position) {
	if !s.expect('{') {
		return
	}
	for k, ok := s.firstKey(); ok; k, ok = s.nextKey() {
		switch string(k) {
		case "symbol":
			p.Symbol = s.text()
		case "holding":
			p.Holding = s.decimalVal()
		case "pendingLongQty":
			p.PendingLongQty = s.decimalVal()
		case "pendingShortQty":
			p.PendingShortQty = s.decimalVal()
		case "averageOpenPrice", "avgOpenPrice":
			p.AvgOpenPrice = s.decimalVal()
		case "settlePrice":
			p.SettlePrice = s.decimalVal()
		case "markPrice":
			p.MarkPrice = s.decimalVal()
		case "pnl24H":
			p.PnL24h = s.decimalVal()
		case "fee24H":
			p.Fee24h = s.decimalVal()
		default:
			s.skip()
		}
	}
}

// DecodePositions reads the data of the `position` topic, which the spec
// shows as an array of positions and the venue sends as
// `{"positions":{SYMBOL:{...}}}`; both are accepted.
func DecodePositions(data []byte) ([]Position, error) {
	var out []Position
	s := scanner{b: data}
	switch s.peek() {
	case '[':
		s.i++
		for ok := s.firstElem(); ok; ok = s.nextElem() {
			var p Position
			s.position(&p)
			if s.err != nil {
				break
			}
			out = append(out, p)
		}
		return out, s.err
	case '{':
		err := walk(data, func(s *scanner, k []byte) {
			if string(k) != "positions" {
				s.skip()
				return
			}
			if !s.expect('{') {
				return
			}
			for sym, ok := s.firstKey(); ok; sym, ok = s.nextKey() {
				p := Position{Symbol: string(sym)}
				s.position(&p)
				if s.err != nil {
					return
				}
				out = append(out, p)
			}
		})
		return out, err
	}
	return nil, &SyntaxError{What: "position data is neither an array nor an object"}
}
