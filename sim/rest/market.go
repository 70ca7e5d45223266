package rest

import (
	"tradedeck/sim/exchange"
)

func (s *Server) nowMs() int64 { return s.now().UnixMilli() }

func ruleObj(r exchange.Rule) obj {
	return obj{
		{"symbol", r.Symbol}, {"quote_min", dec(r.QuoteMin)}, {"quote_max", dec(r.QuoteMax)}, {"quote_tick", dec(r.QuoteTick)},
		{"base_min", dec(r.BaseMin)}, {"base_max", dec(r.BaseMax)}, {"base_tick", dec(r.BaseTick)},
		{"min_notional", dec(r.MinNotional)}, {"price_range", dec(r.PriceRange)}, {"price_scope", dec(r.PriceRange)},
		{"created_time", secs(r.CreatedMs)}, {"updated_time", secs(r.CreatedMs)},
	}
}

func (s *Server) symbolInfo(c *call) (obj, error) {
	r, err := s.ex.RuleOf(c.r.PathValue("symbol"))
	if err != nil {
		return nil, err
	}
	return obj{{"info", ruleObj(r)}}, nil
}

func (s *Server) allSymbolInfo(c *call) (obj, error) {
	return obj{{"rows", objs(s.ex.Rules(), ruleObj)}}, nil
}

func (s *Server) marketTrades(c *call) (obj, error) {
	sym, err := c.symbol("symbol")
	if err != nil {
		return nil, err
	}
	n, err := c.integer("limit", false, 10, 1, 1000)
	if err != nil {
		return nil, err
	}
	trades, xerr := s.ex.MarketTrades(sym, int(n))
	if xerr != nil {
		return nil, xerr
	}
	rows := objs(trades, func(t exchange.PublicTrade) obj {
		return obj{{"symbol", t.Symbol}, {"side", string(t.Side)}, {"source", 0}, {"executed_price", dec(t.Price)},
			{"executed_quantity", dec(t.Size)}, {"executed_timestamp", secs(t.Timestamp)}}
	})
	return obj{{"rows", rows}}, nil
}

func (s *Server) publicTokens(c *call) (obj, error) {
	created := s.ex.CreatedTime()
	var rows []obj
	for _, t := range s.ex.Tokens() {
		nets := t.Networks
		if len(nets) == 0 {
			nets = []exchange.NetworkSpec{{Token: t.Token}}
		}
		for _, n := range nets {
			rows = append(rows, obj{{"created_time", secs(created)}, {"updated_time", secs(created)}, {"token", n.Token},
				{"balance_token", t.Token}, {"fullname", t.Fullname}, {"decimals", t.Decimals}})
		}
	}
	return obj{{"rows", rows}}, nil
}

func (s *Server) tokenNetworks(c *call) (obj, error) {
	var rows []obj
	for _, t := range s.ex.Tokens() {
		for _, n := range t.Networks {
			rows = append(rows, obj{{"protocol", n.Protocol}, {"token", t.Token}, {"name", n.Name},
				{"minimum_withdrawal", dec(n.MinimumWithdrawal)}, {"withdrawal_fee", dec(n.WithdrawalFee)},
				{"allow_deposit", 1}, {"allow_withdraw", 1}})
		}
	}
	return obj{{"rows", rows}}, nil
}

func fundingObj(f exchange.FundingRate) obj {
	return obj{{"symbol", f.Symbol}, {"est_funding_rate", dec(f.EstRate)}, {"est_funding_rate_timestamp", f.EstRateTimestamp},
		{"last_funding_rate", dec(f.LastRate)}, {"last_funding_rate_timestamp", f.LastRateTimestamp}, {"next_funding_time", f.NextFundingTime}}
}

func (s *Server) fundingRates(c *call) (obj, error) {
	return obj{{"rows", objs(s.ex.FundingRates(), fundingObj)}, {"timestamp", s.nowMs()}}, nil
}

func (s *Server) fundingRate(c *call) (obj, error) {
	f, err := s.ex.FundingRateOf(c.r.PathValue("symbol"))
	if err != nil {
		return nil, err
	}
	return append(fundingObj(f), kv{"timestamp", s.nowMs()}), nil
}

func (s *Server) fundingRateHistory(c *call) (obj, error) {
	sym, err := c.symbol("symbol")
	if err != nil {
		return nil, err
	}
	start, end, page, err := c.listing()
	if err != nil {
		return nil, err
	}
	hist, xerr := s.ex.FundingRateHistory(sym, start, end)
	if xerr != nil {
		return nil, xerr
	}
	rows, meta := pagedObjs(hist, page, true, func(r exchange.FundingRateRecord) obj {
		return obj{{"symbol", r.Symbol}, {"funding_rate", dec(r.Rate)}, {"funding_rate_timestamp", r.TimestampMs}, {"next_funding_time", r.NextFundingTime}}
	})
	return obj{{"meta", meta}, {"rows", rows}, {"timestamp", s.nowMs()}}, nil
}

func futuresObj(f exchange.FuturesInfo) obj {
	return obj{{"symbol", f.Symbol}, {"index_price", dec(f.IndexPrice)}, {"mark_price", dec(f.MarkPrice)},
		{"est_funding_rate", dec(f.EstFundingRate)}, {"last_funding_rate", dec(f.LastFundingRate)}, {"next_funding_time", f.NextFundingTime},
		{"open_interest", dec(f.OpenInterest)}, {"24h_open", dec(f.Stats.Open)}, {"24h_close", dec(f.Stats.Close)},
		{"24h_high", dec(f.Stats.High)}, {"24h_low", dec(f.Stats.Low)}, {"24h_volume", dec(f.Stats.Volume)}, {"24h_amount", dec(f.Stats.Amount)}}
}

func (s *Server) futuresAll(c *call) (obj, error) {
	return obj{{"rows", objs(s.ex.FuturesInfos(), futuresObj)}, {"timestamp", s.nowMs()}}, nil
}

func (s *Server) futuresOne(c *call) (obj, error) {
	f, err := s.ex.FuturesInfoOf(c.r.PathValue("symbol"))
	if err != nil {
		return nil, err
	}
	return obj{{"info", futuresObj(f)}, {"timestamp", s.nowMs()}}, nil
}

// orderbook serves asks ascending and bids descending, as the real venue does.
func (s *Server) orderbook(c *call) (obj, error) {
	n, err := c.integer("max_level", false, 100, 1, 10000)
	if err != nil {
		return nil, err
	}
	sym := c.r.PathValue("symbol")
	rule, xerr := s.ex.RuleOf(sym)
	if xerr != nil {
		return nil, xerr
	}
	asks, bids, ts, xerr := s.ex.DepthFixed(sym, int(n), nil, nil)
	if xerr != nil {
		return nil, xerr
	}
	return obj{{"asks", levelsFixed{asks, rule.PriceDecimals, rule.QtyDecimals}},
		{"bids", levelsFixed{bids, rule.PriceDecimals, rule.QtyDecimals}}, {"timestamp", ts}}, nil
}

func klineObj(k exchange.Kline) obj {
	return obj{{"open", dec(k.Open)}, {"close", dec(k.Close)}, {"low", dec(k.Low)}, {"high", dec(k.High)},
		{"volume", dec(k.Volume)}, {"amount", dec(k.Amount)}, {"symbol", k.Symbol}, {"type", k.Type},
		{"start_timestamp", k.StartMs}, {"end_timestamp", k.EndMs}}
}

// kline is GET /v1/kline: symbol, type (1m .. 1y) and limit (default 100, at most 1000), newest first.
func (s *Server) kline(c *call) (obj, error) {
	sym, err := c.symbol("symbol")
	if err != nil {
		return nil, err
	}
	typ, err := c.enum("type", true, exchange.KlineTypes...)
	if err != nil {
		return nil, err
	}
	n, err := c.integer("limit", false, 100, 1, 1000)
	if err != nil {
		return nil, err
	}
	ks, xerr := s.ex.Klines(sym, typ, int(n))
	if xerr != nil {
		return nil, xerr
	}
	return obj{{"rows", objs(ks, klineObj)}}, nil
}

const histPageSize = 100

// histKline is {public_history_url}/v1/hist/kline: klines from start_time on, oldest first, 100 a page.
func (s *Server) histKline(c *call) (obj, error) {
	sym, err := c.symbol("symbol")
	if err != nil {
		return nil, err
	}
	typ, err := c.enum("type", true, exchange.KlineTypes...)
	if err != nil {
		return nil, err
	}
	start, err := c.integer("start_time", true, 0, 0, 1<<53)
	if err != nil {
		return nil, err
	}
	page, err := c.page()
	if err != nil {
		return nil, err
	}
	ks, total, xerr := s.ex.HistKlines(sym, typ, start, page, histPageSize)
	if xerr != nil {
		return nil, xerr
	}
	meta := obj{{"total", total}, {"records_per_page", histPageSize}, {"current_page", page}}
	rows := objs(ks, klineObj)
	return obj{{"data", obj{{"rows", rows}, {"meta", meta}}}, {"rows", rows}, {"meta", meta}}, nil
}

func (s *Server) systemInfo(c *call) (obj, error) {
	return obj{{"data", obj{{"status", 0}, {"msg", "System is functioning properly."}}}, {"timestamp", s.nowMs()}}, nil
}
