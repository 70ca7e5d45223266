package stream

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/shopspring/decimal"

	"tradedeck/fixed"
	"tradedeck/internal/testkit"
)

func envelope(t testing.TB, name string) Envelope {
	t.Helper()
	var e Envelope
	if err := ParseEnvelope(testkit.ReadTestdata(t, name), &e); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return e
}

func TestEnvelopeOfEveryFixture(t *testing.T) {
	files, _ := filepath.Glob("testdata/*.json")
	if len(files) < 25 {
		t.Fatalf("only %d fixtures", len(files))
	}
	for _, f := range files {
		var e Envelope
		if err := ParseEnvelope(testkit.ReadTestdata(t, filepath.Base(f)), &e); err != nil {
			t.Errorf("%s: %v", f, err)
		}
		if e.Topic == nil && e.Event == nil {
			t.Errorf("%s: neither topic nor event", f)
		}
	}
}

func TestEnvelopeFields(t *testing.T) {
	e := envelope(t, "error_subscribe.json")
	if string(e.ID) != "clientID7" || string(e.Event) != "subscribe" || !e.HasSuccess || e.Success ||
		e.TS != 1614141150601 || string(e.ErrorMsg) != "invalid symbol SPOT_WOO_USDC" || e.IsPush() {
		t.Fatalf("%+v", e)
	}
	e = envelope(t, "ping_client.json")
	if !e.IsPing() || e.IsPong() {
		t.Fatal("ping not recognised")
	}
	e = envelope(t, "pong.json")
	if !e.IsPong() || e.TS != 1614667590000 {
		t.Fatalf("%+v", e)
	}
	e = envelope(t, "orderbookupdate.json")
	sym, kind := SplitTopic(e.Topic)
	if !e.IsPush() || string(sym) != "SPOT_BTC_USDT" || string(kind) != "orderbookupdate" || e.TS != 1618826337580 {
		t.Fatalf("%+v", e)
	}
	if _, kind := SplitTopic([]byte("executionreport")); string(kind) != "executionreport" {
		t.Fatal(string(kind))
	}
	e = envelope(t, "unsubscribe_reply.ccxt-2025.json")
	if string(e.Data) != `"SPOT_BTC_USDT@orderbook"` {
		t.Fatalf("%q", e.Data)
	}
}

func TestDecodeBookUpdate(t *testing.T) {
	e := envelope(t, "orderbookupdate.json")
	var d BookData
	if err := DecodeBook(e.Data, 2, 8, &d); err != nil {
		t.Fatal(err)
	}
	want := BookData{
		Symbol: []byte("SPOT_BTC_USDT"), PrevTs: 1618826337380,
		Asks: []Level{{5674915, 392864000}, {5674980, 0}},
		Bids: []Level{{5674520, 103895025}, {5674460, 108070000}},
	}
	if !reflect.DeepEqual(d, want) {
		t.Fatalf("got %+v\nwant %+v", d, want)
	}
	// The request reply carries its own snapshot ts.
	e = envelope(t, "request_orderbook_reply.json")
	if err := DecodeBook(e.Data, 2, 6, &d); err != nil {
		t.Fatal(err)
	}
	if d.TS != 1618880432380 || len(d.Asks) != 2 || d.Asks[0] != (Level{5470000, 443951}) || d.Bids[1] != (Level{5469976, 2034711}) {
		t.Fatalf("%+v", d)
	}
}

func TestDecodeBookNumbersAsStringsAndObjects(t *testing.T) {
	data := []byte(`{"symbol":"S","prevTs":"5","asks":[["1.5","2"],[1.25,0]],"bids":[{"price":"1.0","quantity":3}]}`)
	var d BookData
	if err := DecodeBook(data, 2, 0, &d); err != nil {
		t.Fatal(err)
	}
	if d.PrevTs != 5 || len(d.Asks) != 2 || d.Asks[0] != (Level{150, 2}) || d.Asks[1] != (Level{125, 0}) || d.Bids[0] != (Level{100, 3}) {
		t.Fatalf("%+v", d)
	}
}

func TestDecodeBookRejectsBadInput(t *testing.T) {
	for _, in := range []string{
		``, `[]`, `{"asks":[[1,2]`, `{"asks":[[1]]}`, `{"asks":[[1,-2]]}`, `{"asks":[["x",1]]}`,
		`{"asks":[[1.001,1]]}`, // more decimals than the symbol's scale: refuse, never round
		`{"asks":[[1,2]]`, `{"symbol":"S"`, `{"asks":{}}`, `{"prevTs":1.5}`,
	} {
		var d BookData
		if err := DecodeBook([]byte(in), 2, 0, &d); err == nil {
			t.Errorf("%q: no error", in)
		}
	}
}

func TestSyntaxErrorNeverQuotesTheFrame(t *testing.T) {
	var r ExecutionReport
	err := DecodeExecutionReport([]byte(`{"orderId":1,"fee":"SECRETSECRET"}`), &r)
	var se *SyntaxError
	if !errors.As(err, &se) || strings.Contains(err.Error(), "SECRET") {
		t.Fatalf("%v", err)
	}
}

func TestDecodeBBOAndTrade(t *testing.T) {
	e := envelope(t, "bbo.json")
	var b BBO
	if err := DecodeBBO(e.Data, 5, 2, &b); err != nil {
		t.Fatal(err)
	}
	if string(b.Symbol) != "SPOT_WOO_USDT" || b.Ask != 30939 || b.AskSize != 450853 || b.Bid != 30776 || b.BidSize != 2524614 {
		t.Fatalf("%+v", b)
	}
	e = envelope(t, "bbos.json")
	n := 0
	err := EachElem(e.Data, func(el []byte) error {
		n++
		if string(SymbolOf(el)) == "SPOT_BTC_USDT" {
			if err := DecodeBBO(el, 2, 6, &b); err != nil {
				return err
			}
			if b.Bid != 5698717 || b.BidSize != 941728 {
				t.Errorf("%+v", b)
			}
		}
		return nil
	})
	if err != nil || n != 2 {
		t.Fatal(err, n)
	}
	e = envelope(t, "trade.json")
	var tr Trade
	if err := DecodeTrade(e.Data, 5, 0, &tr); err != nil {
		t.Fatal(err)
	}
	if string(tr.Symbol) != "SPOT_ADA_USDT" || tr.Price != 127988 || tr.Size != 300 || tr.Side != SideBuy {
		t.Fatalf("%+v", tr)
	}
	if err := DecodeTrade([]byte(`{"price":1,"size":1,"side":"UP"}`), 0, 0, &tr); err == nil {
		t.Fatal("unknown side accepted")
	}
	if err := DecodeTrade([]byte(`{"price":1,"size":1}`), 0, 0, &tr); err == nil {
		t.Fatal("missing side accepted")
	}
}

func dec(s string) decimal.Decimal { return decimal.RequireFromString(s) }

func TestDecodeTickerKlineFutures(t *testing.T) {
	var tk Ticker
	if err := DecodeTicker(envelope(t, "ticker.json").Data, &tk); err != nil {
		t.Fatal(err)
	}
	if tk.Symbol != "SPOT_WOO_USDT" || !tk.High.Equal(dec("0.33")) || !tk.Volume.Equal(dec("89040821.98")) || tk.Count != 15442 {
		t.Fatalf("%+v", tk)
	}
	var syms []string
	if err := EachElem(envelope(t, "tickers.json").Data, func(el []byte) error {
		if err := DecodeTicker(el, &tk); err != nil {
			t.Fatal(err)
		}
		syms = append(syms, tk.Symbol)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(syms, []string{"SPOT_OKB_USDT", "SPOT_XRP_USDT"}) || tk.Count != 396 {
		t.Fatal(syms, tk)
	}
	var k Kline
	if err := DecodeKline(envelope(t, "kline_1m.json").Data, &k); err != nil {
		t.Fatal(err)
	}
	if k.Type != "1m" || k.StartTime != 1618822380000 || k.EndTime != 1618822440000 || !k.Close.Equal(dec("56891.76")) || !k.Amount.Equal(dec("2504584.9")) {
		t.Fatalf("%+v", k)
	}
	var v FuturesValue
	if err := DecodeFuturesValue([]byte(`{"symbol":"PERP_BTC_USDT","fundingRate":"-0.0001","fundingTs":1680000000000}`), &v); err != nil {
		t.Fatal(err)
	}
	if !v.FundingRate.Equal(dec("-0.0001")) || v.FundingTS != 1680000000000 {
		t.Fatalf("%+v", v)
	}
	if err := DecodeFuturesValue([]byte(`{"symbol":"PERP_BTC_USDT","openInterest":123.5,"price":null}`), &v); err != nil || !v.OpenInterest.Equal(dec("123.5")) || !v.Price.IsZero() {
		t.Fatalf("%+v %v", v, err)
	}
}

func TestDecodePrivateTopics(t *testing.T) {
	var r ExecutionReport
	if err := DecodeExecutionReport(envelope(t, "executionreport.json").Data, &r); err != nil {
		t.Fatal(err)
	}
	if r.OrderID != 54774393 || r.TradeID != 56201985 || r.Status != "FILLED" || !r.Fee.Equal(dec("0.00000021")) ||
		!r.ExecutedQuantity.Equal(dec("0.00040791")) || r.Maker || r.Timestamp != 1675406261689 || r.FeeAsset != "BTC" {
		t.Fatalf("%+v", r)
	}
	if err := DecodeExecutionReport(envelope(t, "executionreport_new.ccxt.json").Data, &r); err != nil {
		t.Fatal(err)
	}
	if r.Status != "NEW" || r.Side != "SELL" || !r.Price.Equal(dec("22000")) || r.TradeID != 0 {
		t.Fatalf("%+v", r)
	}
	for _, f := range []string{"balance.json", "balance.ccxt-2023.json"} {
		bs, err := DecodeBalance(envelope(t, f).Data)
		if err != nil || len(bs) == 0 {
			t.Fatal(f, err, bs)
		}
	}
	bs, _ := DecodeBalance(envelope(t, "balance.ccxt-2023.json").Data)
	if bs[0].Token != "USDT" || !bs[0].Holding.Equal(dec("266.56059176")) || bs[0].Version != 37 {
		t.Fatalf("%+v", bs)
	}
	var pi PositionInfo
	if err := DecodePositionInfo(envelope(t, "positioninfo.json").Data, &pi); err != nil {
		t.Fatal(err)
	}
	if pi.MarginMode != "MARGIN" || !pi.MarginRate.Equal(dec("95.87")) || len(pi.Tokens) != 2 || !pi.Tokens[1].MarkPrice.Equal(dec("909.19")) {
		t.Fatalf("%+v", pi)
	}
	// The perpetuals' API rates, not the GUI ones nor the spot ones.
	if err := DecodePositionInfo([]byte(`{"takerFeeRate":5,"makerFeeRate":2,"futuresGuiTakerFeeRate":7,"futuresApiTakerFeeRate":4,`+
		`"futuresGuiMakerFeeRate":3,"futuresApiMakerFeeRate":1.5}`), &pi); err != nil {
		t.Fatal(err)
	}
	if !pi.TakerFeeRate.Equal(dec("5")) || !pi.MakerFeeRate.Equal(dec("2")) || !pi.FuturesTakerFeeRate.Equal(dec("4")) || !pi.FuturesMakerFeeRate.Equal(dec("1.5")) {
		t.Fatalf("fee rates %+v", pi)
	}
	ps, err := DecodePositions(envelope(t, "position.ccxt-2024.json").Data)
	if err != nil || len(ps) != 1 || ps[0].Symbol != "PERP_LTC_USDT" || !ps[0].Holding.Equal(dec("1")) || !ps[0].Fee24h.Equal(dec("0.07153")) {
		t.Fatalf("%+v %v", ps, err)
	}
	ps, err = DecodePositions([]byte(`[{"symbol":"PERP_BTC_USDT","holding":-0.5,"avgOpenPrice":"30000"}]`))
	if err != nil || len(ps) != 1 || !ps[0].Holding.Equal(dec("-0.5")) || !ps[0].AvgOpenPrice.Equal(dec("30000")) {
		t.Fatalf("%+v %v", ps, err)
	}
}

func TestEncoders(t *testing.T) {
	var m map[string]any
	check := func(b []byte, want map[string]any) {
		t.Helper()
		m = nil
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatalf("%s: %v", b, err)
		}
		if !reflect.DeepEqual(m, want) {
			t.Fatalf("got %v want %v", m, want)
		}
	}
	check(AppendSubscribe(nil, "c1", "SPOT_BTC_USDT@orderbookupdate"), map[string]any{"id": "c1", "event": "subscribe", "topic": "SPOT_BTC_USDT@orderbookupdate"})
	check(AppendUnsubscribe(nil, "c2", `we"ird\`), map[string]any{"id": "c2", "event": "unsubscribe", "topic": `we"ird\`})
	check(AppendAuth(nil, "a1", "KEY", "abc", 1621910107900), map[string]any{"id": "a1", "event": "auth",
		"params": map[string]any{"apikey": "KEY", "sign": "abc", "timestamp": "1621910107900"}})
	check(AppendRequestOrderbook(nil, "r1", "SPOT_BTC_USDT"), map[string]any{"id": "r1", "event": "request",
		"params": map[string]any{"type": "orderbook", "symbol": "SPOT_BTC_USDT"}})
	check(AppendPing(nil), map[string]any{"event": "ping"})
	check(AppendPong(nil), map[string]any{"event": "pong"})
	check(AppendSubscribe(nil, "\x01", "t"), map[string]any{"id": "\x01", "event": "subscribe", "topic": "t"})
	// Our encoders' output reads back through our own envelope decoder.
	var e Envelope
	if err := ParseEnvelope(AppendSubscribe(nil, "c1", "X@bbo"), &e); err != nil || string(e.Topic) != "X@bbo" || string(e.ID) != "c1" {
		t.Fatal(err, e)
	}
}

func FuzzDecoders(f *testing.F) {
	files, _ := filepath.Glob("testdata/*.json")
	for _, p := range files {
		b, _ := os.ReadFile(p)
		f.Add(b)
	}
	f.Add([]byte(`{"data":{"asks":[[1,"2"],[3`))
	f.Add([]byte(`{"topic":"\`))
	f.Fuzz(func(t *testing.T, b []byte) {
		var e Envelope
		_ = ParseEnvelope(b, &e) // malformed input is the point: only a panic fails
		data := e.Data
		if data == nil {
			data = b
		}
		var d BookData
		DecodeBook(data, 4, 8, &d)
		var bb BBO
		DecodeBBO(data, 4, 8, &bb)
		var tr Trade
		DecodeTrade(data, 4, 8, &tr)
		var tk Ticker
		DecodeTicker(data, &tk)
		var k Kline
		DecodeKline(data, &k)
		var v FuturesValue
		DecodeFuturesValue(data, &v)
		var r ExecutionReport
		DecodeExecutionReport(data, &r)
		DecodeBalance(data)
		var pi PositionInfo
		DecodePositionInfo(data, &pi)
		DecodePositions(data)
		EachElem(data, func(el []byte) error { SymbolOf(el); return nil })
	})
}

// TestFixedValMatchesFixedParse checks the scanner's fast number path
// against package fixed on awkward inputs, bare and quoted.
func TestFixedValMatchesFixedParse(t *testing.T) {
	inputs := []string{"0", "1", "-1", "1.5", "1.50", "1.500", "0.001", "-0.25", "123456789012345678", "1234567890123456789",
		"99999999999999999999", "1e3", "1.5E-1", "+2", ".5", "5.", "00012.30", "-0", "1.2.3", "--1", "", "1x"}
	for _, in := range inputs {
		for _, q := range []bool{false, true} {
			raw := in
			if q {
				raw = `"` + in + `"`
			}
			for dec := 0; dec <= 4; dec++ {
				want, wok := fixed.Parse([]byte(raw), dec)
				if raw == `""` {
					want, wok = 0, true // an empty string is an absent value, like null
				}
				s := scanner{b: []byte(raw + ",")}
				got := s.fixedVal(dec)
				if gok := s.err == nil; gok != wok || (wok && got != want) {
					t.Errorf("%s dec %d: got %d,%v want %d,%v", raw, dec, got, gok, want, wok)
				}
			}
		}
	}
}

func BenchmarkDecodeBBO(b *testing.B) {
	frame := []byte(`{"topic":"SPOT_WOO_USDT@bbo","ts":1614152296945,"data":{"symbol":"SPOT_WOO_USDT","ask":0.30939,"askSize":4508.53,"bid":0.30776,"bidSize":25246.14}}`)
	var e Envelope
	var bb BBO
	b.SetBytes(int64(len(frame)))
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if err := ParseEnvelope(frame, &e); err != nil {
			b.Fatal(err)
		}
		if err := DecodeBBO(e.Data, 5, 2, &bb); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkDecodeTrade(b *testing.B) {
	frame := []byte(`{"topic":"SPOT_ADA_USDT@trade","ts":1618820361552,"data":{"symbol":"SPOT_ADA_USDT","price":1.27988,"size":300,"side":"BUY","source":0}}`)
	var e Envelope
	var tr Trade
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		ParseEnvelope(frame, &e)
		if err := DecodeTrade(e.Data, 5, 2, &tr); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkEncodingJSONBaseline decodes a 20-level orderbookupdate with
// encoding/json (numbers kept as json.Number, not even converted): the
// cost our scanner avoids.
func BenchmarkEncodingJSONBaseline(b *testing.B) {
	frame := benchBookFrame()
	var v struct {
		Topic string `json:"topic"`
		Ts    int64  `json:"ts"`
		Data  struct {
			Symbol string           `json:"symbol"`
			PrevTs int64            `json:"prevTs"`
			Asks   [][2]json.Number `json:"asks"`
			Bids   [][2]json.Number `json:"bids"`
		} `json:"data"`
	}
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if err := json.Unmarshal(frame, &v); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkDecodeBookUpdate is our decoder on the same frame.
func BenchmarkDecodeBookUpdate(b *testing.B) {
	frame := benchBookFrame()
	var e Envelope
	var d BookData
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		ParseEnvelope(frame, &e)
		if err := DecodeBook(e.Data, 2, 5, &d); err != nil {
			b.Fatal(err)
		}
	}
}

func benchBookFrame() []byte {
	var sb strings.Builder
	sb.WriteString(`{"topic":"SPOT_BTC_USDT@orderbookupdate","ts":1618826337580,"data":{"symbol":"SPOT_BTC_USDT","prevTs":1618826337380,"asks":[`)
	for j := 0; j < 10; j++ {
		if j > 0 {
			sb.WriteByte(',')
		}
		sb.WriteString(`[56749.` + strconv.Itoa(10+j) + `,3.9286` + strconv.Itoa(j) + `]`)
	}
	sb.WriteString(`],"bids":[`)
	for j := 0; j < 10; j++ {
		if j > 0 {
			sb.WriteByte(',')
		}
		sb.WriteString(`[56745.` + strconv.Itoa(10+j) + `,1.0389` + strconv.Itoa(j) + `]`)
	}
	sb.WriteString(`]}}`)
	return []byte(sb.String())
}
