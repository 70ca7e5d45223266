package ws

import (
	"context"
	"time"

	"github.com/shopspring/decimal"

	"tradedeck/fixed"
	"tradedeck/sim/exchange"
)

// runBBO pushes @bbo every BBOInterval for symbols whose best levels changed since their last push.
func (s *Server) runBBO(ctx context.Context) {
	t := time.NewTicker(s.opts.BBOInterval)
	defer t.Stop()
	last := map[string][2]exchange.FixedLevel{}
	var asks, bids []exchange.FixedLevel
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		for _, sym := range s.symbols {
			topic := sym + "@bbo"
			if !s.hub.has(topic) {
				delete(last, sym)
				continue
			}
			var ts int64
			var err *exchange.Error
			asks, bids, ts, err = s.ex.DepthFixed(sym, 1, asks[:0], bids[:0])
			if err != nil {
				continue
			}
			top := [2]exchange.FixedLevel{first(bids), first(asks)}
			if prev, ok := last[sym]; ok && prev == top {
				continue
			}
			last[sym] = top
			buf := appendPushHead(make([]byte, 0, 160), topic, max(ts, s.nowMs()))
			buf = appendBBO(buf, s.markets[sym], top[0], top[1])
			s.hub.publish(topic, append(buf, '}'))
		}
	}
}

func first(l []exchange.FixedLevel) exchange.FixedLevel {
	if len(l) == 0 {
		return exchange.FixedLevel{}
	}
	return l[0]
}

// appendBBO writes {symbol, ask, askSize, bid, bidSize}.
func appendBBO(dst []byte, m marketInfo, bid, ask exchange.FixedLevel) []byte {
	dst = append(dst, `{"symbol":"`...)
	dst = append(dst, m.symbol...)
	dst = append(dst, `","ask":`...)
	dst = fixed.Append(dst, ask.Price, m.pd)
	dst = append(dst, `,"askSize":`...)
	dst = fixed.Append(dst, ask.Qty, m.qd)
	dst = append(dst, `,"bid":`...)
	dst = fixed.Append(dst, bid.Price, m.pd)
	dst = append(dst, `,"bidSize":`...)
	dst = fixed.Append(dst, bid.Qty, m.qd)
	return append(dst, '}')
}

// runStats pushes the 1 s topics: tickers, bbos, klines, prices, open interest, funding and
// positioninfo.
func (s *Server) runStats(ctx context.Context) {
	t := time.NewTicker(s.opts.StatsInterval)
	defer t.Stop()
	pace := pacer{every: s.opts.StatsInterval}
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			pace.push(s.publishStats)
		}
	}
}

// ohlcv is a candle's prices and volumes as the ticker and kline pushes
// write them, in this order.
type ohlcv struct {
	Open   num `json:"open"`
	Close  num `json:"close"`
	High   num `json:"high"`
	Low    num `json:"low"`
	Volume num `json:"volume"`
	Amount num `json:"amount"`
}

type tickerData struct {
	Symbol string `json:"symbol"`
	ohlcv
	Count int `json:"count"`
}

type klineData struct {
	Symbol string `json:"symbol"`
	Type   string `json:"type"`
	ohlcv
	StartTime int64 `json:"startTime"`
	EndTime   int64 `json:"endTime"`
}

type priceData struct {
	Symbol string `json:"symbol"`
	Price  num    `json:"price"`
}

type bboData struct {
	Symbol  string `json:"symbol"`
	Ask     num    `json:"ask"`
	AskSize num    `json:"askSize"`
	Bid     num    `json:"bid"`
	BidSize num    `json:"bidSize"`
}

func (s *Server) publishStats() {
	now := s.nowMs()
	wantTickers, wantBBOs, wantMarks := s.hub.has("tickers"), s.hub.has("bbos"), s.hub.has("markprices")
	var tickers []tickerData
	var bbos []bboData
	var marks []priceData
	for _, sym := range s.symbols {
		m := s.markets[sym]
		if topic := sym + "@ticker"; wantTickers || s.hub.has(topic) {
			if st, err := s.ex.Ticker24h(sym); err == nil {
				td := tickerData{Symbol: sym, ohlcv: ohlcv{Open: num(st.Open), Close: num(st.Close), High: num(st.High), Low: num(st.Low),
					Volume: num(st.Volume), Amount: num(st.Amount)}, Count: st.Count}
				tickers = append(tickers, td)
				if s.hub.has(topic) {
					s.publishJSON(topic, topic, now, td)
				}
			}
		}
		if wantBBOs {
			if b, err := s.ex.BestBidAsk(sym); err == nil {
				bbos = append(bbos, bboData{Symbol: sym, Ask: num(b.Ask), AskSize: num(b.AskSize), Bid: num(b.Bid), BidSize: num(b.BidSize)})
			}
		}
		s.publishKlines(sym, now)
		markTopic, indexTopic := sym+"@markprice", sym+"@indexprice"
		if wantMarks || s.hub.has(markTopic) || s.hub.has(indexTopic) {
			if mark, index, err := s.ex.MarkIndex(sym); err == nil {
				marks = append(marks, priceData{Symbol: sym, Price: num(mark)})
				if s.hub.has(markTopic) {
					s.publishJSON(markTopic, markTopic, now, priceData{Symbol: sym, Price: num(mark)})
				}
				if s.hub.has(indexTopic) {
					s.publishJSON(indexTopic, indexTopic, now, priceData{Symbol: sym, Price: num(index)})
				}
			}
		}
		if !m.perp {
			continue
		}
		oiTopic, frTopic := sym+"@openinterest", sym+"@estfundingrate"
		if s.hub.has(oiTopic) {
			if fi, err := s.ex.FuturesInfoOf(sym); err == nil {
				s.publishJSON(oiTopic, oiTopic, now, struct {
					Symbol       string `json:"symbol"`
					OpenInterest num    `json:"openInterest"`
				}{sym, num(fi.OpenInterest)})
			}
		}
		if s.hub.has(frTopic) {
			if fr, err := s.ex.FundingRateOf(sym); err == nil {
				s.publishJSON(frTopic, frTopic, now, struct {
					Symbol      string `json:"symbol"`
					FundingRate num    `json:"fundingRate"`
					FundingTs   int64  `json:"fundingTs"`
				}{sym, num(fr.EstRate), fr.NextFundingTime})
			}
		}
	}
	if wantTickers {
		s.publishJSON("tickers", "tickers", now, tickers)
	}
	if wantBBOs {
		s.publishJSON("bbos", "bbos", now, bbos)
	}
	if wantMarks {
		s.publishJSON("markprices", "markprices", now, marks)
	}
	s.publishPositionInfo(now)
}

// positionInfoToken is one token of positioninfo's positions map.
type positionInfoToken struct {
	Holding            num `json:"holding"`
	OutstandingHolding num `json:"outstandingHolding"`
	PendingExposure    num `json:"pendingExposure"`
	Interest           num `json:"interest"`
	AvgOpenPrice       num `json:"avgOpenPrice"`
	BreakEvenPrice     num `json:"breakEvenPrice"`
	RealisedPnl        num `json:"realisedPnl"`
	SettledPnl         num `json:"settledPnl"`
	MarkPx             num `json:"markPx"`
	LiquidPx           num `json:"liquidPx"`
	PnL24H             num `json:"pnl24H"`
	Fee24H             num `json:"fee24H"`
	Frozen             num `json:"frozen"`
}

type positionInfo struct {
	MarginRate             num                          `json:"marginRate"`
	MarginMode             string                       `json:"marginMode"`
	Leverage               int                          `json:"leverage"`
	TakerFeeRate           num                          `json:"takerFeeRate"`
	MakerFeeRate           num                          `json:"makerFeeRate"`
	InterestRate           num                          `json:"interestRate"`
	GUITakerFeeRate        num                          `json:"guiTakerFeeRate"`
	GUIMakerFeeRate        num                          `json:"guiMakerFeeRate"`
	LiquidationMarginRate  num                          `json:"liquidationMarginRate"`
	FuturesLeverage        int                          `json:"futuresLeverage"`
	FuturesAPITakerFeeRate num                          `json:"futuresApiTakerFeeRate"`
	FuturesAPIMakerFeeRate num                          `json:"futuresApiMakerFeeRate"`
	FuturesGUITakerFeeRate num                          `json:"futuresGuiTakerFeeRate"`
	FuturesGUIMakerFeeRate num                          `json:"futuresGuiMakerFeeRate"`
	Positions              map[string]positionInfoToken `json:"positions"`
}

// publishPositionInfo pushes positioninfo to every authenticated account subscribed to it.
func (s *Server) publishPositionInfo(now int64) {
	for _, a := range s.accountsSubscribed("positioninfo") {
		info := s.ex.Info(a)
		pi := positionInfo{
			MarginRate: num(info.MarginRate), MarginMode: info.Mode, Leverage: info.Leverage,
			TakerFeeRate: num(info.TakerFeeRate), MakerFeeRate: num(info.MakerFeeRate), InterestRate: num(info.InterestRate),
			GUITakerFeeRate: num(info.TakerFeeRate), GUIMakerFeeRate: num(info.MakerFeeRate),
			LiquidationMarginRate:  num(s.ex.Positions(a).MaintenanceMarginRatio.Shift(2)),
			FuturesLeverage:        info.FuturesLeverage,
			FuturesAPITakerFeeRate: num(info.FuturesTakerFeeRate), FuturesAPIMakerFeeRate: num(info.FuturesMakerFeeRate),
			FuturesGUITakerFeeRate: num(info.FuturesTakerFeeRate), FuturesGUIMakerFeeRate: num(info.FuturesMakerFeeRate),
			Positions: map[string]positionInfoToken{},
		}
		zero := num(decimal.Zero)
		for _, h := range s.ex.Holdings(a, false) {
			pi.Positions[h.Token] = positionInfoToken{
				Holding: num(h.Holding), OutstandingHolding: num(h.OutstandingHolding), PendingExposure: num(h.PendingExposure),
				Interest: num(h.Interest), AvgOpenPrice: zero, BreakEvenPrice: zero, RealisedPnl: zero, SettledPnl: zero,
				MarkPx: num(s.tokenPrice(h.Token)), LiquidPx: zero, PnL24H: zero, Fee24H: zero, Frozen: num(h.Frozen),
			}
		}
		key := privateKey("positioninfo", a.ApplicationID())
		s.publishPrivate(key, "positioninfo", now, pi)
	}
}

// accountsSubscribed lists the distinct authenticated accounts holding a private topic.
func (s *Server) accountsSubscribed(topicName string) []*exchange.Account {
	s.mu.Lock()
	defer s.mu.Unlock()
	seen := map[string]bool{}
	var out []*exchange.Account
	for c := range s.conns {
		a := c.authAccount()
		if a == nil || seen[a.ApplicationID()] {
			continue
		}
		if c.subscribed(privateKey(topicName, a.ApplicationID())) {
			seen[a.ApplicationID()] = true
			out = append(out, a)
		}
	}
	return out
}

// publishKlines pushes the current kline of every subscribed interval of sym.
func (s *Server) publishKlines(sym string, now int64) {
	for iv, typ := range klineTypes {
		topic := sym + "@kline_" + iv
		if !s.hub.has(topic) {
			continue
		}
		ks, err := s.ex.Klines(sym, typ, 1)
		if err != nil || len(ks) == 0 {
			continue
		}
		k := ks[0]
		s.publishJSON(topic, topic, now, klineData{Symbol: sym, Type: iv, ohlcv: ohlcv{Open: num(k.Open), Close: num(k.Close),
			High: num(k.High), Low: num(k.Low), Volume: num(k.Volume), Amount: num(k.Amount)}, StartTime: k.StartMs, EndTime: k.EndMs})
	}
}
