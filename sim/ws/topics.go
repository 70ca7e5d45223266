package ws

import (
	"strings"

	"tradedeck/fixed"
	"tradedeck/sim/exchange"
)

// marketInfo is what the streams need of a symbol.
type marketInfo struct {
	symbol string
	pd, qd int   // price and quantity decimals
	tick   int64 // quote tick in the price scale
	perp   bool
}

func loadMarkets(ex *exchange.Exchange) map[string]marketInfo {
	out := map[string]marketInfo{}
	for _, r := range ex.Rules() {
		tick, _ := fixed.FromDecimal(r.QuoteTick, r.PriceDecimals)
		kind, _, _, _ := exchange.SplitSymbol(r.Symbol)
		out[r.Symbol] = marketInfo{symbol: r.Symbol, pd: r.PriceDecimals, qd: r.QtyDecimals, tick: max(tick, 1), perp: kind == "PERP"}
	}
	return out
}

// klineTypes maps the Websocket interval names to the exchange's kline types.
var klineTypes = map[string]string{
	"1m": "1m", "5m": "5m", "15m": "15m", "30m": "30m", "1h": "1h", "1d": "1d", "1w": "1w", "1M": "1mon",
}

// Per-symbol market topics; perpOnly ones exist for perpetuals only.
var symbolTopics = map[string]struct{ perpOnly bool }{
	"orderbook": {}, "orderbook100": {}, "orderbookupdate": {}, "trade": {}, "ticker": {}, "bbo": {},
	"aggbook10": {}, "aggbook100": {}, "aggbook1000": {},
	"indexprice": {}, "markprice": {},
	"openinterest": {perpOnly: true}, "estfundingrate": {perpOnly: true},
}

var globalTopics = map[string]bool{"tickers": true, "bbos": true, "markprices": true}

var privateTopics = map[string]bool{"executionreport": true, "positioninfo": true, "position": true, "balance": true}

// topic is a parsed subscription name.
type topic struct {
	name    string
	symbol  string // empty for global and private topics
	kind    string // after the @, or the whole name
	private bool
}

// parseTopic validates a topic for a stream and returns the venue's error message when invalid.
func (s *Server) parseTopic(name string, private bool) (topic, string) {
	if private {
		if privateTopics[name] {
			return topic{name: name, kind: name, private: true}, ""
		}
		return topic{}, "invalid topic " + name
	}
	if globalTopics[name] {
		return topic{name: name, kind: name}, ""
	}
	if privateTopics[name] {
		return topic{}, "topic " + name + " is on the private stream"
	}
	sym, kind, ok := strings.Cut(name, "@")
	if !ok {
		return topic{}, "invalid topic " + name
	}
	m, known := s.markets[sym]
	if !known {
		return topic{}, "invalid symbol " + sym
	}
	if iv, isKline := strings.CutPrefix(kind, "kline_"); isKline {
		if _, ok := klineTypes[iv]; !ok {
			return topic{}, "invalid topic " + name
		}
		return topic{name: name, symbol: sym, kind: kind}, ""
	}
	spec, ok := symbolTopics[kind]
	if !ok || (spec.perpOnly && !m.perp) {
		return topic{}, "invalid topic " + name
	}
	return topic{name: name, symbol: sym, kind: kind}, ""
}
