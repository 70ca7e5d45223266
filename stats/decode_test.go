package stats

import (
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"
)

func readFile(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func dec(s string) decimal.Decimal { return decimal.RequireFromString(s) }

func TestDecodeRealHourlySample(t *testing.T) {
	// The recorded real reply carries both txs and txns.
	s, err := DecodeStat("bsc", "1d", 200, readFile(t, "stat_1d_real.json"))
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Rows) != 1 || !s.Hourly {
		t.Fatalf("%+v", s)
	}
	r := s.Rows[0]
	if r.ID != 492229 || !r.Time.Equal(time.Unix(1772024400, 0)) || r.Traders != 29 || r.Trades != 89 || r.HasTurnover {
		t.Fatalf("%+v", r)
	}
	if !r.VolumeUSD.Equal(dec("124234.64085")) || r.VolumeUSD.String() != "124234.64085" {
		t.Fatalf("volume %s", r.VolumeUSD)
	}
}

func TestDecodeDailyShape(t *testing.T) {
	s, err := DecodeStat("bsc", "1w", 200, readFile(t, "stat_1w_daily.json"))
	if err != nil {
		t.Fatal(err)
	}
	if s.Hourly || len(s.Rows) != 3 {
		t.Fatalf("%+v", s)
	}
	want := []struct {
		vol, turnover string
		trades        int64
	}{{"8123456.789012345678901234", "87.12", 4410}, {"9023400", "91.5", 4702}, {"0", "0", 0}}
	for i, w := range want {
		r := s.Rows[i]
		if !r.VolumeUSD.Equal(dec(w.vol)) || !r.Turnover.Equal(dec(w.turnover)) || !r.HasTurnover || r.Trades != w.trades {
			t.Errorf("row %d: %s %s %d", i, r.VolumeUSD, r.Turnover, r.Trades)
		}
	}
	if s.Rows[0].VolumeUSD.String() != "8123456.789012345678901234" {
		t.Errorf("volume lost digits: %s", s.Rows[0].VolumeUSD)
	}
	tot := s.Totals()
	if !tot.VolumeUSD.Equal(dec("17146856.789012345678901234")) || tot.Trades != 9112 || tot.TraderPeak != 1610 || !tot.Turnover.Equal(dec("59.54")) {
		t.Errorf("totals %+v", tot)
	}
	if !tot.From.Equal(time.Unix(1763424000, 0)) || !tot.To.Equal(time.Unix(1763596800+86400, 0)) {
		t.Errorf("span %v..%v", tot.From, tot.To)
	}
}

func TestDecodeNumbersAndTxnsSpelling(t *testing.T) {
	s, err := DecodeStat("bsc", "1d", 200, readFile(t, "stat_1d_txns_numbers.json"))
	if err != nil {
		t.Fatal(err)
	}
	// Rows arrive newest first here: they come back in time order.
	if s.Rows[0].ID != 492229 || s.Rows[1].ID != 492230 || s.Rows[0].Trades != 89 || s.Rows[1].Trades != 77 {
		t.Fatalf("%+v", s.Rows)
	}
	if !s.Rows[1].VolumeUSD.Equal(dec("98000")) {
		t.Fatalf("bare-number volume %s", s.Rows[1].VolumeUSD)
	}
}

func TestDecodeSources(t *testing.T) {
	for _, file := range []string{"source_stat.json", "source_stat_txns.json"} {
		src, err := DecodeSourceStat(200, readFile(t, file))
		if err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		sum := decimal.Zero
		for i, s := range src {
			if i > 0 && s.VolumeUSD.GreaterThan(src[i-1].VolumeUSD) {
				t.Errorf("%s: not ranked", file)
			}
			sum = sum.Add(s.Percentage)
		}
		if !sum.Equal(decimal.NewFromInt(100)) || src[0].Name != "WOOFi" {
			t.Errorf("%s: %+v", file, src)
		}
	}
	src, _ := DecodeSourceStat(200, readFile(t, "source_stat.json"))
	if src[1].Name != "1inch" || src[1].Trades != 25 || !src[1].VolumeUSD.Equal(dec("2500")) || src[1].ID != "2" {
		t.Errorf("%+v", src[1])
	}
	src, _ = DecodeSourceStat(200, readFile(t, "source_stat_txns.json"))
	if src[1].Trades != 9 || src[0].ID != "1" {
		t.Errorf("txns: %+v", src)
	}
}

func TestDecodeEnvelopeErrors(t *testing.T) {
	_, err := DecodeStat("solana", "1w", 400, readFile(t, "error_envelope.json"))
	var apiErr *APIError
	if !errors.As(err, &apiErr) || apiErr.Message != "invalid network: solana" || apiErr.HTTPStatus != 400 || apiErr.Status != "error" {
		t.Fatalf("%v", err)
	}
	if !strings.Contains(err.Error(), "invalid network: solana") {
		t.Errorf("message not shown: %v", err)
	}
	for _, c := range []struct{ body, want string }{
		{`<html>502 Bad Gateway</html>`, "not a JSON envelope"},
		{`{"data":[]}`, "status: missing"},
		{`{"status":"ok"}`, "data: missing"},
		{`{"status":"ok","data":null}`, "data: missing"},
		{`{"status":"ok","data":{"rows":[]}}`, "data: not an array"},
		{`{"status":"fail"}`, `(no message) (status "fail"`},
		{`[1,2]`, "not a JSON envelope"},
	} {
		_, err := DecodeStat("bsc", "1w", 200, []byte(c.body))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.body, err, c.want)
		}
		_, err = DecodeSourceStat(200, []byte(c.body))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("sources %s: %v, want %q", c.body, err, c.want)
		}
	}
	// An ok envelope on an HTTP error status is still an error.
	if _, err := DecodeStat("bsc", "1w", 500, []byte(`{"status":"ok","data":[]}`)); err == nil {
		t.Error("HTTP 500 with ok envelope accepted")
	}
	if s, err := DecodeStat("bsc", "1w", 200, []byte(`{"status":"ok","data":[]}`)); err != nil || len(s.Rows) != 0 {
		t.Errorf("empty data: %v", err)
	}
}

// hourRow is a valid hourly row with one field replaced.
func hourRow(field, value string) string {
	f := map[string]string{"id": `"492229"`, "timestamp": `"1772024400"`, "volume_usd": `"124234640850000000000000"`, "traders": `"29"`, "txs": `"89"`}
	if value == "" {
		delete(f, field)
	} else {
		f[field] = value
	}
	var b strings.Builder
	b.WriteString(`{"status":"ok","data":[{"id":"492228","timestamp":"1772020800","volume_usd":"1","traders":"1","txs":"1"},{`)
	first := true
	for _, k := range []string{"id", "timestamp", "volume_usd", "traders", "txs", "txns"} {
		if v, ok := f[k]; ok {
			if !first {
				b.WriteString(",")
			}
			first = false
			b.WriteString(`"` + k + `":` + v)
		}
	}
	b.WriteString("}]}")
	return b.String()
}

func TestVolumeScaling(t *testing.T) {
	for _, c := range []struct{ wire, usd string }{
		{`"1"`, "0.000000000000000001"}, // tiny: one 10^-18 USD
		{`"0"`, "0"},                    // zero is a quiet hour
		{`"18446744073709551616000000"`, "18446744.073709551616"}, // beyond uint64
		{`"9223372036854775808"`, "9.223372036854775808"},         // beyond int64
		{`"123456789012345678901234567890123456789012"`, "123456789012345678901234.567890123456789012"},
		{`"1.5e23"`, "150000"},
		{`124234640850000000000000`, "124234.64085"},
		{`"1000000000000000000.5"`, "1.0000000000000000005"},
	} {
		s, err := DecodeStat("bsc", "1d", 200, []byte(hourRow("volume_usd", c.wire)))
		if err != nil {
			t.Errorf("%s: %v", c.wire, err)
			continue
		}
		if got := s.Rows[1].VolumeUSD; !got.Equal(dec(c.usd)) {
			t.Errorf("%s: %s USD, want %s", c.wire, got, c.usd)
		}
	}
}

func TestMalformedRows(t *testing.T) {
	for _, c := range []struct{ field, value, want string }{
		{"volume_usd", `"-5"`, `row 1 (id 492229): volume_usd: -5 is negative`},
		{"volume_usd", `"12a"`, `volume_usd: "12a" is not a number`},
		{"volume_usd", `"1,000"`, `volume_usd: "1,000" is not a number`},
		{"volume_usd", `" 1"`, `volume_usd: " 1" is not a number`},
		{"volume_usd", `"NaN"`, `volume_usd: "NaN" is not a number`},
		{"volume_usd", `"0x10"`, `volume_usd: "0x10" is not a number`},
		{"volume_usd", `"1e999"`, `volume_usd: "1e999" is not a number`},
		{"volume_usd", `""`, `volume_usd: "" is not a number`},
		{"volume_usd", `true`, `volume_usd: "true" is not a number`},
		{"volume_usd", `null`, `volume_usd: missing`},
		{"volume_usd", ``, `volume_usd: missing`},
		{"traders", `"2.5"`, `traders: 2.5 is not an integer`},
		{"traders", `"-1"`, `traders: -1 is negative`},
		{"traders", `"99999999999999999999"`, `traders: 99999999999999999999 is not an integer that fits in int64`},
		{"txs", ``, `txs: missing`},
		{"txns", `"90"`, `txs 89 and txns 90 disagree`},
		{"id", `"492228"`, `id: 492228 does not match timestamp 1772024400 (hourly rows need id*3600 == timestamp)`},
		{"id", `"20512"`, `id: 20512 does not match timestamp`},
		{"timestamp", `"abc"`, `timestamp: "abc" is not a number`},
		{"id", ``, `row 1: id: missing`},
	} {
		_, err := DecodeStat("bsc", "1d", 200, []byte(hourRow(c.field, c.value)))
		var de *DecodeError
		if !errors.As(err, &de) || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "/stat row 1") {
			t.Errorf("%s=%s: %v, want %q", c.field, c.value, err, c.want)
		}
	}
	// Hourly rows asked for as daily: the id check catches the wrong shape.
	if _, err := DecodeStat("bsc", "1w", 200, readFile(t, "stat_1d_real.json")); err == nil || !strings.Contains(err.Error(), "daily rows need id*86400") {
		t.Errorf("hourly rows accepted as daily: %v", err)
	}
	if _, err := DecodeStat("bsc", "1d", 200, []byte(`{"status":"ok","data":[{"id":"1","timestamp":"3600","volume_usd":"1","traders":"1","txs":"1"},{"id":"1","timestamp":"3600","volume_usd":"1","traders":"1","txs":"1"}]}`)); err == nil || !strings.Contains(err.Error(), "duplicate") {
		t.Errorf("duplicate rows: %v", err)
	}
	if _, err := DecodeStat("bsc", "1d", 200, []byte(`{"status":"ok","data":[7]}`)); err == nil || !strings.Contains(err.Error(), "row 0: not an object") {
		t.Errorf("non-object row: %v", err)
	}
	if _, err := DecodeStat("bsc", "1w", 200, []byte(`{"status":"ok","data":[{"id":"1","timestamp":"86400","volume_usd":"1","traders":"1","txs":"1","turnover_rate_percentage":"-3"}]}`)); err == nil || !strings.Contains(err.Error(), "turnover_rate_percentage: -3 is negative") {
		t.Errorf("negative turnover: %v", err)
	}
	for _, c := range []struct{ body, want string }{
		{`{"status":"ok","data":[{"id":"1","volume_usd":"1","txs":1,"percentage":1}]}`, "row 0 (id 1): name: missing"},
		{`{"status":"ok","data":[{"id":"1","name":"x","volume_usd":"-1","txs":1,"percentage":1}]}`, "volume_usd: -1 is negative"},
		{`{"status":"ok","data":[{"id":"1","name":"x","volume_usd":"1","percentage":1}]}`, "txs: missing"},
		{`{"status":"ok","data":[{"id":"1","name":"x","volume_usd":"1","txs":1,"percentage":"101"}]}`, "percentage: 101 is above 100"},
		{`{"status":"ok","data":[{"id":"1","name":"x","volume_usd":"1","txs":1}]}`, "percentage: missing"},
		{`{"status":"ok","data":[{"name":"x","volume_usd":"1","txs":1,"percentage":1}]}`, "id: missing"},
	} {
		_, err := DecodeSourceStat(200, []byte(c.body))
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "/source_stat row 0") {
			t.Errorf("%s: %v, want %q", c.body, err, c.want)
		}
	}
}
