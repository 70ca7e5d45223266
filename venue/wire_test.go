package venue

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"tradedeck/internal/testkit"
)

func TestIntForms(t *testing.T) {
	for in, want := range map[string]int64{
		`5973852953`: 5973852953, `"5973852953"`: 5973852953, `null`: 0, `""`: 0, `"-1011"`: -1011,
		`1.2e3`: 1200, `9223372036854775807`: 9223372036854775807, `"0"`: 0,
	} {
		var i Int
		if err := json.Unmarshal([]byte(in), &i); err != nil || int64(i) != want {
			t.Errorf("%s -> %d, %v", in, i, err)
		}
	}
	for _, in := range []string{`"abc"`, `1.5`, `9223372036854775808`, `true`, `"12x"`} {
		var i Int
		if err := json.Unmarshal([]byte(in), &i); err == nil {
			t.Errorf("%s accepted as %d", in, i)
		}
	}
	if b, _ := json.Marshal(Int(42)); string(b) != "42" {
		t.Errorf("marshal %s", b)
	}
}

func TestBoolForms(t *testing.T) {
	for in, want := range map[string]bool{`1`: true, `0`: false, `"1"`: true, `"0"`: false, `true`: true, `false`: false, `"true"`: true, `null`: false} {
		var f Flag
		var b Bool
		if err := json.Unmarshal([]byte(in), &f); err != nil || bool(f) != want {
			t.Errorf("Flag %s -> %v %v", in, f, err)
		}
		if err := json.Unmarshal([]byte(in), &b); err != nil || bool(b) != want {
			t.Errorf("Bool %s -> %v %v", in, b, err)
		}
	}
	var f Flag
	if err := json.Unmarshal([]byte(`2`), &f); err == nil {
		t.Error("2 accepted as a flag")
	}
	if b, _ := json.Marshal(struct{ F Flag }{true}); string(b) != `{"F":1}` {
		t.Errorf("flag marshal %s", b)
	}
	if b, _ := json.Marshal(struct{ B Bool }{true}); string(b) != `{"B":true}` {
		t.Errorf("bool marshal %s", b)
	}
}

func TestTimeForms(t *testing.T) {
	sec := map[string]int64{ // -> ns
		`"1575014255.089"`: 1575014255089000000, `1575014255.089`: 1575014255089000000, `"1675220398"`: 1675220398000000000,
		`"1577349119.33"`: 1577349119330000000, `"1641482113.084123456"`: 1641482113084123456,
	}
	for in, want := range sec {
		var s SecTime
		if err := json.Unmarshal([]byte(in), &s); err != nil || s.UnixNano() != want {
			t.Errorf("SecTime %s -> %v %v", in, s.UnixNano(), err)
		}
	}
	for _, zero := range []string{`"0"`, `0`, `null`, `""`, `"0.000"`} {
		var s SecTime
		if err := json.Unmarshal([]byte(zero), &s); err != nil || !s.IsZero() {
			t.Errorf("SecTime %s -> %v %v", zero, s, err)
		}
	}
	var bad SecTime
	if err := json.Unmarshal([]byte(`"yesterday"`), &bad); err == nil {
		t.Error("SecTime accepted text")
	}
	for in, want := range map[string]int64{`1564710591905`: 1564710591905, `"1641562961192"`: 1641562961192} {
		var m MsTime
		if err := json.Unmarshal([]byte(in), &m); err != nil || m.UnixMilli() != want {
			t.Errorf("MsTime %s -> %v %v", in, m.UnixMilli(), err)
		}
	}
	for in, want := range map[string]int64{`"1640937600.000"`: 1640937600000, `1640908800000`: 1640908800000, `"1640908800000"`: 1640908800000, `1640937600`: 1640937600000} {
		var e EpochTime
		if err := json.Unmarshal([]byte(in), &e); err != nil || e.UnixMilli() != want {
			t.Errorf("EpochTime %s -> %v %v", in, e.UnixMilli(), err)
		}
	}
	// Encoding writes the documented forms and decodes back to the same ms.
	at := time.UnixMilli(1575014255089).UTC()
	b, _ := json.Marshal(struct {
		S SecTime
		M MsTime
		E EpochTime
		Z SecTime
	}{SecTime{at}, MsTime{at}, EpochTime{at}, SecTime{}})
	if string(b) != `{"S":"1575014255.089","M":1575014255089,"E":1575014255089,"Z":"0"}` {
		t.Errorf("marshal %s", b)
	}
}

func TestPercent(t *testing.T) {
	var p Percent
	if err := json.Unmarshal([]byte(`"0.0001%"`), &p); err != nil || p.Value.String() != "0.0001" || p.Rate().String() != "0.000001" {
		t.Fatalf("%v %v", p, err)
	}
	if b, _ := json.Marshal(p); string(b) != `"0.0001%"` {
		t.Errorf("marshal %s", b)
	}
	if err := json.Unmarshal([]byte(`"%"`), &p); err == nil {
		t.Error("bare % accepted")
	}
}

func TestMeta(t *testing.T) {
	var m Meta
	if err := json.Unmarshal([]byte(`{"total":"31","records_per_page":"25","current_page":"1"}`), &m); err != nil {
		t.Fatal(err)
	}
	if m.Total == nil || *m.Total != 31 || !m.HasNext(25) {
		t.Fatalf("%+v", m)
	}
	m.CurrentPage = 2
	if m.HasNext(6) {
		t.Fatal("page 2 of 31 by 25 has a next page")
	}
	var noTotal Meta
	if err := json.Unmarshal([]byte(`{"records_per_page":25,"current_page":1}`), &noTotal); err != nil || noTotal.Total != nil {
		t.Fatalf("%+v %v", noTotal, err)
	}
	if !noTotal.HasNext(25) || noTotal.HasNext(24) {
		t.Fatal("HasNext without total")
	}
	if b, _ := json.Marshal(noTotal); string(b) != `{"records_per_page":25,"current_page":1}` {
		t.Errorf("marshal %s", b)
	}
}

// The simulator answers with these types: what they encode, the client
// decodes to the same values.
func TestEncodeDecodeRoundTrip(t *testing.T) {
	o := Order{OrderID: 5973852953, ClientOrderID: 9223372036854775807, Symbol: "SPOT_BTC_USDT", Side: Buy, Type: Limit,
		Status: StatusPartialFilled, Price: decimal.NewNullDecimal(dec("100.12")), Quantity: decimal.NewNullDecimal(dec("0.5")),
		Executed: dec("0.2"), TotalFee: dec("0.0001"), FeeAsset: "BTC", CreatedTime: SecTime{time.UnixMilli(1700000000123).UTC()},
		Transactions: []Trade{{ID: 1, OrderID: 5973852953, IsMaker: true, ExecutedPrice: dec("100.12"), ExecutedTimestamp: SecTime{time.UnixMilli(1700000000456).UTC()}}}}
	b, err := json.Marshal(o)
	if err != nil {
		t.Fatal(err)
	}
	var back Order
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if fmt.Sprintf("%+v", back) != fmt.Sprintf("%+v", o) {
		t.Fatalf("round trip\n got %+v\nwant %+v", back, o)
	}
	for _, s := range []string{`"order_id":5973852953`, `"created_time":"1700000000.123"`, `"amount":null`, `"is_maker":1`, `"Transactions":[`} {
		if !strings.Contains(string(b), s) {
			t.Errorf("%s lacks %s", b, s)
		}
	}
}

// The system status sample is a real-venue endpoint outside the spec; its
// type still reads it.
func TestSystemStatusSample(t *testing.T) {
	var s SystemStatus
	if err := json.Unmarshal(testkit.ReadTestdata(t, "rest/v1_public_system_info.json"), &s); err != nil {
		t.Fatal(err)
	}
	if s.Data.Status != 0 || !strings.Contains(s.Data.Msg, "properly") || s.Timestamp.UnixMilli() != 1676335013700 {
		t.Fatalf("%+v", s)
	}
}

// Every file under testdata/rest and testdata/synthetic is read by some
// test (so a new sample cannot be forgotten).
func TestEverySampleUsed(t *testing.T) {
	used := map[string]bool{"rest/v1_public_system_info.json": true}
	for _, c := range endpointCases() {
		used[c.reply] = true
	}
	for _, f := range []string{"rest/error_-1000.ccxt.json", "rest/error_-1001.json", "rest/error_-1002_unauthorized.json",
		"rest/error_-1011_maintenance.ccxt.json", "rest/error_-1012.ccxt.json", "rest/error_intro_-1005.json"} {
		used[f] = true
	}
	for _, dir := range []string{"rest", "synthetic"} {
		files, err := os.ReadDir(filepath.Join("testdata", dir))
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			if !used[dir+"/"+f.Name()] {
				t.Errorf("testdata/%s/%s is not decoded by any test", dir, f.Name())
			}
		}
	}
}

// decodeTargets are the reply shapes the client decodes; the fuzz test
// feeds arbitrary bytes to each.
func decodeTargets() []func() any {
	return []func() any{
		newOf[rowsReply[SymbolRule]], newOf[infoReply[SymbolRule]], newOf[rowsReply[MarketTrade]], newOf[rowsReply[Token]],
		newOf[rowsReply[TokenNetwork]], newOf[rowsReply[FundingRate]], newOf[topReply[FundingRate]],
		newOf[pageReply[FundingRateHistory]], newOf[rowsReply[FuturesInfo]], newOf[infoReply[FuturesInfo]],
		newOf[topReply[OrderBook]], newOf[rowsReply[Kline]], newOf[pageReply[Kline]], newOf[topReply[OrderAck]],
		newOf[statusReply], newOf[topReply[Order]], newOf[pageReply[Order]], newOf[topReply[Trade]],
		newOf[rowsReply[Trade]], newOf[pageReply[Trade]], newOf[rowsReply[TokenConfig]], newOf[map[string]decimal.Decimal],
		newOf[[]HoldingV2], newOf[topReply[AccountInfo]], newOf[topReply[DepositAddress]], newOf[pageReply[AssetHistory]],
		newOf[rowsReply[MarginInterestRate]], newOf[infoReply[MarginInterestRate]], newOf[pageReply[InterestHistory]],
		newOf[pageReply[FundingFee]], newOf[topReply[Positions]], newOf[topReply[Position]], newOf[rowsReply[SubAccount]],
		newOf[rowsReply[SubAccountAssets]], newOf[topReply[SubAccountAssetDetail]], newOf[pageReply[IPRestriction]],
		newOf[pageReply[Transfer]], newOf[SystemStatus], newOf[errorBody],
	}
}

// newOf makes a new T to decode into.
func newOf[T any]() any { return new(T) }

// FuzzDecode: no byte sequence makes a decoder or the error parser panic,
// and decode -> encode -> decode gives back the first decode, by meaning,
// for every reply shape the client reads.
func FuzzDecode(f *testing.F) {
	for _, dir := range []string{"rest", "synthetic"} {
		files, _ := os.ReadDir(filepath.Join("testdata", dir))
		for _, file := range files {
			f.Add(testkit.ReadTestdata(f, dir+"/"+file.Name()))
		}
	}
	targets := decodeTargets()
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, mk := range targets {
			first := mk()
			if json.Unmarshal(data, first) != nil {
				continue
			}
			b, err := json.Marshal(first)
			if err != nil {
				t.Fatalf("%T decoded but does not encode: %v", first, err)
			}
			second := mk()
			if err := json.Unmarshal(b, second); err != nil {
				t.Fatalf("%T: own encoding %s does not decode: %v", first, b, err)
			}
			if !same(reflect.ValueOf(first), reflect.ValueOf(second)) {
				t.Fatalf("%T changed through encode -> decode:\n input %s\n first %+v\n again %+v (from %s)", first, data, first, second, b)
			}
		}
		for _, status := range []int{200, 400, 429, 502} {
			e := parseError(status, "GET", "/x", data)
			if e == nil || e.HTTPStatus != status || e.Error() == "" {
				t.Fatalf("parseError(%d) = %v", status, e)
			}
		}
	})
}

// BenchmarkSignRequest: validating, encoding and signing an order into an
// HTTP request (everything before the network).
func BenchmarkSignRequest(b *testing.B) {
	c := NewClient(Endpoints{BaseURL: "https://api.example"}, Credentials{APIKey: testKey, APISecret: testSecret})
	r := OrderRequest{Symbol: "SPOT_BTC_USDT", Type: Limit, Side: Buy, Price: dec("9000"), Quantity: dec("0.11"), ClientOrderID: 42}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if err := r.Validate(); err != nil {
			b.Fatal(err)
		}
		if _, err := c.newRequest(ctx, "POST", "https://api.example/v1/order", CanonicalParams(r.Values())); err != nil {
			b.Fatal(err)
		}
	}
}

// orderListing25 is a 25-row GET /v1/orders reply in the real venue's
// string encoding (or numbers when asNumbers).
func orderListing25(tb testing.TB, asNumbers bool) []byte {
	var rows []string
	for i := range 25 {
		rows = append(rows, fmt.Sprintf(`{"symbol":"SPOT_BTC_USDT","status":"PARTIAL_FILLED","side":"BUY","created_time":"1710931373.%03d","updated_time":"1710931374.%03d","order_id":"%d","order_tag":"default","price":"6%d.25","type":"LIMIT","quantity":"0.1%d","amount":null,"visible":"0.1","executed":"0.05","total_fee":"0.0000125","fee_asset":"BTC","client_order_id":"%d","reduce_only":false,"realized_pnl":null,"average_executed_price":"6%d.25","position_side":"BOTH"}`,
			i, i, 1122668213+i, i, i, 1000+i, i))
	}
	data := []byte(`{"success":true,"meta":{"total":"125","records_per_page":"25","current_page":"1"},"rows":[` + strings.Join(rows, ",") + `]}`)
	if asNumbers {
		data = encodings(tb, data)["numbers"]
	}
	return data
}

func BenchmarkDecodeOrderListing25(b *testing.B) {
	for _, form := range []string{"strings", "numbers"} {
		data := orderListing25(b, form == "numbers")
		b.Run(form, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for b.Loop() {
				var r pageReply[Order]
				if err := json.Unmarshal(data, &r); err != nil || len(r.Rows) != 25 {
					b.Fatal(err)
				}
			}
		})
	}
}
