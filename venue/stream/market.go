package stream

// Level is one price level in fixed point (the symbol's price and quantity
// decimals). A quantity of 0 in a delta removes the level.
type Level struct {
	Price int64
	Qty   int64
}

// BookData is the data of `@orderbook`, `@orderbook100`,
// `@orderbookupdate` and of the reply to a `request` orderbook. Decoding
// reuses the Asks and Bids slices, so a steady stream allocates nothing.
type BookData struct {
	Symbol []byte
	PrevTs int64 // orderbookupdate only
	TS     int64 // request reply only (the snapshot's time)
	Asks   []Level
	Bids   []Level
}

// DecodeBook reads book data with the given price and quantity decimals.
func DecodeBook(data []byte, priceDec, qtyDec int, d *BookData) error {
	d.Symbol, d.PrevTs, d.TS = nil, 0, 0
	d.Asks, d.Bids = d.Asks[:0], d.Bids[:0]
	s := scanner{b: data}
	s.object()
	for k, ok := s.firstKey(); ok; k, ok = s.nextKey() {
		switch string(k) {
		case "symbol":
			d.Symbol = s.str()
		case "prevTs":
			d.PrevTs = s.intVal()
		case "ts", "timestamp":
			d.TS = s.intVal()
		case "asks":
			d.Asks = s.levels(d.Asks, priceDec, qtyDec)
		case "bids":
			d.Bids = s.levels(d.Bids, priceDec, qtyDec)
		default:
			s.skip()
		}
	}
	return s.err
}

// levels reads `[[price, qty], ...]` (or `[{"price":..,"quantity":..}]`,
// the REST shape) appending to dst.
func (s *scanner) levels(dst []Level, priceDec, qtyDec int) []Level {
	if !s.expect('[') {
		return dst
	}
	for ok := s.firstElem(); ok; ok = s.nextElem() {
		var l Level
		switch s.peek() {
		case '[':
			s.i++
			l.Price = s.fixedVal(priceDec)
			if s.i < len(s.b) && s.b[s.i] == ',' {
				s.i++
			} else if !s.expect(',') {
				return dst
			}
			l.Qty = s.fixedVal(qtyDec)
			if s.i < len(s.b) && s.b[s.i] == ']' {
				s.i++ // the common case
				break
			}
			for s.peek() == ',' { // tolerate extra members such as an order count
				s.i++
				s.skip()
			}
			s.expect(']')
		case '{':
			s.i++
			for k, ok := s.firstKey(); ok; k, ok = s.nextKey() {
				switch string(k) {
				case "price":
					l.Price = s.fixedVal(priceDec)
				case "quantity", "size":
					l.Qty = s.fixedVal(qtyDec)
				default:
					s.skip()
				}
			}
		default:
			s.fail("expected a price level")
		}
		if s.err != nil {
			return dst
		}
		if l.Qty < 0 || l.Price < 0 {
			s.fail("negative price or quantity")
			return dst
		}
		dst = append(dst, l)
	}
	return dst
}

// BBO is the data of `@bbo` and of each element of `bbos`.
type BBO struct {
	Symbol  []byte
	Ask     int64
	AskSize int64
	Bid     int64
	BidSize int64
}

// DecodeBBO reads bbo data with the given decimals.
func DecodeBBO(data []byte, priceDec, qtyDec int, b *BBO) error {
	*b = BBO{}
	s := scanner{b: data}
	s.object()
	for k, ok := s.firstKey(); ok; k, ok = s.nextKey() {
		switch string(k) {
		case "symbol":
			b.Symbol = s.str()
		case "ask":
			b.Ask = s.fixedVal(priceDec)
		case "askSize":
			b.AskSize = s.fixedVal(qtyDec)
		case "bid":
			b.Bid = s.fixedVal(priceDec)
		case "bidSize":
			b.BidSize = s.fixedVal(qtyDec)
		default:
			s.skip()
		}
	}
	return s.err
}

// Side of a public trade (the taker's).
const (
	SideBuy  = 1
	SideSell = 2
)

// Trade is the data of `@trade`.
type Trade struct {
	Symbol []byte
	Price  int64
	Size   int64
	Side   uint8 // SideBuy or SideSell
}

// DecodeTrade reads trade data with the given decimals.
func DecodeTrade(data []byte, priceDec, qtyDec int, t *Trade) error {
	*t = Trade{}
	s := scanner{b: data}
	s.object()
	for k, ok := s.firstKey(); ok; k, ok = s.nextKey() {
		switch string(k) {
		case "symbol":
			t.Symbol = s.str()
		case "price":
			t.Price = s.fixedVal(priceDec)
		case "size":
			t.Size = s.fixedVal(qtyDec)
		case "side":
			switch string(s.str()) {
			case "BUY":
				t.Side = SideBuy
			case "SELL":
				t.Side = SideSell
			default:
				s.fail("unknown side")
			}
		default:
			s.skip()
		}
	}
	if s.err == nil && t.Side == 0 {
		return &SyntaxError{What: "trade without side"}
	}
	return s.err
}

// SymbolOf returns the "symbol" member of an object (used to route the
// elements of the array topics bbos, tickers and markprices).
func SymbolOf(data []byte) []byte {
	var sym []byte
	// A malformed element keeps the symbol read before the bad byte, if
	// any: it routes the element, whose decoder then refuses it.
	_ = walk(data, func(s *scanner, k []byte) {
		if string(k) == "symbol" {
			sym = s.str()
			return
		}
		s.skip()
	})
	return sym
}

// EachElem calls fn with the raw text of each element of a JSON array (the
// data of bbos, tickers, markprices, position).
func EachElem(data []byte, fn func(elem []byte) error) error { return eachElem(data, fn) }
