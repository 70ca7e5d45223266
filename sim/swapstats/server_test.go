package swapstats

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"
)

// fixedNow is a Sunday morning; every test clock derives from it.
var fixedNow = time.Date(2026, 11, 22, 7, 30, 0, 0, time.UTC)

func clockAt(t time.Time) func() time.Time { return func() time.Time { return t } }

// serve mounts the handler under /woofi, as the sim does, on a real socket.
func serve(t *testing.T, s *Server) string {
	t.Helper()
	mux := http.NewServeMux()
	mux.Handle("/woofi/", http.StripPrefix("/woofi", s.Handler()))
	ts := httptest.NewServer(mux)
	t.Cleanup(ts.Close)
	return ts.URL + "/woofi"
}

type envelope struct {
	Status  string                       `json:"status"`
	Message string                       `json:"message"`
	Data    []map[string]json.RawMessage `json:"data"`
}

func get(t *testing.T, url string) (int, envelope, http.Header) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	var env envelope
	if err := json.Unmarshal(body, &env); err != nil {
		t.Fatalf("%s: body is not JSON: %v\n%s", url, err, body)
	}
	return resp.StatusCode, env, resp.Header
}

// str reads a field that may be a JSON string or number.
func str(t *testing.T, row map[string]json.RawMessage, key string) string {
	t.Helper()
	raw, ok := row[key]
	if !ok {
		t.Fatalf("row %v has no %q", keys(row), key)
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	return string(raw)
}

func num(t *testing.T, row map[string]json.RawMessage, key string) decimal.Decimal {
	t.Helper()
	d, err := decimal.NewFromString(str(t, row, key))
	if err != nil {
		t.Fatalf("%s: %v", key, err)
	}
	return d
}

func keys(row map[string]json.RawMessage) []string {
	var ks []string
	for k := range row {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
}

var e18 = decimal.New(1, 18)

func TestStatShapesAllNetworksAndPeriods(t *testing.T) {
	base := serve(t, New(42, clockAt(fixedNow)))
	today := fixedNow.Truncate(24 * time.Hour).Unix()
	for _, network := range Networks {
		byPeriod := map[string][]map[string]json.RawMessage{}
		for _, period := range Periods {
			code, env, hdr := get(t, base+"/stat?network="+network+"&period="+period)
			if code != 200 || env.Status != "ok" {
				t.Fatalf("%s %s: %d %q %q", network, period, code, env.Status, env.Message)
			}
			if ct := hdr.Get("Content-Type"); ct != "application/json" {
				t.Errorf("content type %q", ct)
			}
			rows := env.Data
			byPeriod[period] = rows
			hourly := period == "1d"
			want := map[string]int{"1d": 24, "1w": 7, "1m": 30, "3m": 90, "1y": 365}[period]
			if period == "all" {
				want = int((today - profiles[network].launch.Unix()) / 86400)
			}
			if len(rows) != want {
				t.Fatalf("%s %s: %d rows, want %d", network, period, len(rows), want)
			}
			wantKeys := []string{"id", "timestamp", "traders", "turnover_rate_percentage", "txs", "volume_usd"}
			step := int64(86400)
			if hourly {
				wantKeys = slices.DeleteFunc(wantKeys, func(k string) bool { return k == "turnover_rate_percentage" })
				step = 3600
			}
			var prev int64
			for i, row := range rows {
				if got := keys(row); !slices.Equal(got, wantKeys) {
					t.Fatalf("%s %s row %d keys %v, want %v", network, period, i, got, wantKeys)
				}
				ts := num(t, row, "timestamp").IntPart()
				if id := num(t, row, "id").IntPart(); id*step != ts {
					t.Fatalf("%s %s row %d: id %d * %d != timestamp %d", network, period, i, id, step, ts)
				}
				if i > 0 && ts != prev+step {
					t.Fatalf("%s %s row %d: timestamp %d does not follow %d", network, period, i, ts, prev)
				}
				prev = ts
				vol := num(t, row, "volume_usd")
				traders, txs := num(t, row, "traders"), num(t, row, "txs")
				if !vol.IsPositive() || !vol.Mod(decimal.New(1, 12)).IsZero() {
					t.Fatalf("%s %s row %d: volume %s is not a positive micro-USD amount x 10^18", network, period, i, vol)
				}
				if usd := vol.Div(e18); usd.LessThan(decimal.NewFromInt(100)) || usd.GreaterThan(decimal.NewFromInt(1e9)) {
					t.Fatalf("%s %s row %d: implausible volume %s USD", network, period, i, usd)
				}
				if traders.GreaterThan(txs) || txs.IsNegative() || !txs.IsInteger() || !traders.IsInteger() {
					t.Fatalf("%s %s row %d: traders %s trades %s", network, period, i, traders, txs)
				}
				if !hourly {
					if tr := num(t, row, "turnover_rate_percentage"); !tr.IsPositive() || tr.GreaterThan(decimal.NewFromInt(2000)) {
						t.Fatalf("turnover %s", tr)
					}
				}
			}
			last := num(t, rows[len(rows)-1], "timestamp").IntPart()
			if hourly && last != fixedNow.Truncate(time.Hour).Unix()-3600 {
				t.Errorf("%s 1d: last hour %d is not the last complete hour", network, last)
			}
			if !hourly && last != today-86400 {
				t.Errorf("%s %s: last day %d is not yesterday", network, period, last)
			}
		}
		// Shorter daily periods are the tails of longer ones.
		for _, p := range []string{"1w", "1m", "3m", "1y"} {
			short, all := byPeriod[p], byPeriod["all"]
			tail := all[len(all)-len(short):]
			for i := range short {
				if fmt.Sprint(short[i]) != fmt.Sprint(tail[i]) {
					t.Fatalf("%s %s row %d differs from the same day in all", network, p, i)
				}
			}
		}
	}
}

func TestHoursSumToTheirDay(t *testing.T) {
	// Half past midnight: the last 24 complete hours are exactly yesterday.
	now := fixedNow.Truncate(24 * time.Hour).Add(30 * time.Minute)
	base := serve(t, New(7, clockAt(now)))
	for _, network := range Networks {
		_, hours, _ := get(t, base+"/stat?network="+network+"&period=1d")
		_, days, _ := get(t, base+"/stat?network="+network+"&period=1w")
		day := days.Data[len(days.Data)-1]
		var vol, txs, sumTraders decimal.Decimal
		maxTraders := decimal.Zero
		for _, h := range hours.Data {
			vol = vol.Add(num(t, h, "volume_usd"))
			txs = txs.Add(num(t, h, "txs"))
			tr := num(t, h, "traders")
			sumTraders = sumTraders.Add(tr)
			maxTraders = decimal.Max(maxTraders, tr)
		}
		if !vol.Equal(num(t, day, "volume_usd")) || !txs.Equal(num(t, day, "txs")) {
			t.Errorf("%s: hours sum to %s USDe18 / %s txs, the day says %s / %s", network, vol, txs, num(t, day, "volume_usd"), num(t, day, "txs"))
		}
		dayTraders := num(t, day, "traders")
		if dayTraders.LessThan(maxTraders) {
			t.Errorf("%s: day traders %s below the busiest hour's %s", network, dayTraders, maxTraders)
		}
	}
}

func TestDeterministicAcrossTimeAndInstances(t *testing.T) {
	a := serve(t, New(3, clockAt(fixedNow)))
	b := serve(t, New(3, clockAt(fixedNow.Add(72*time.Hour))))
	c := serve(t, New(4, clockAt(fixedNow)))
	// Warm b's series far ahead first: days must not change with the clock.
	get(t, b+"/stat?network=bsc&period=1y")
	_, ra, _ := get(t, a+"/stat?network=bsc&period=1m")
	_, rb, _ := get(t, b+"/stat?network=bsc&period=1m")
	_, rc, _ := get(t, c+"/stat?network=bsc&period=1m")
	if fmt.Sprint(ra.Data[3:]) != fmt.Sprint(rb.Data[:27]) {
		t.Error("the same days differ between two clocks of the same seed")
	}
	if fmt.Sprint(ra.Data) == fmt.Sprint(rc.Data) {
		t.Error("different seeds gave the same series")
	}
	// A server whose clock went back serves no day from its future.
	back := New(3, clockAt(fixedNow))
	base := serve(t, back)
	back.clock = clockAt(fixedNow.Add(240 * time.Hour))
	get(t, base+"/stat?network=avax&period=1w")
	back.clock = clockAt(fixedNow)
	_, again, _ := get(t, base+"/stat?network=avax&period=1d")
	_, fresh, _ := get(t, a+"/stat?network=avax&period=1d")
	if fmt.Sprint(again.Data) != fmt.Sprint(fresh.Data) {
		t.Error("hourly rows changed after the clock moved back")
	}
}

func TestSourceStat(t *testing.T) {
	base := serve(t, New(42, clockAt(fixedNow)))
	hundred := decimal.NewFromInt(100)
	for _, period := range Periods {
		sumBy := map[string]decimal.Decimal{}
		for _, network := range append([]string{""}, Networks...) {
			code, env, _ := get(t, base+"/source_stat?network="+network+"&period="+period)
			if code != 200 || env.Status != "ok" || len(env.Data) < 3 {
				t.Fatalf("%q %s: %d %q %d rows", network, period, code, env.Message, len(env.Data))
			}
			pct, vol, txs := decimal.Zero, decimal.Zero, decimal.Zero
			prev := decimal.Decimal{}
			for i, row := range env.Data {
				if got := keys(row); !slices.Equal(got, []string{"id", "name", "percentage", "txs", "volume_usd"}) {
					t.Fatalf("keys %v", got)
				}
				if _, err := json.Marshal(row["txs"]); err != nil || strings.HasPrefix(string(row["txs"]), `"`) {
					t.Fatalf("source txs %s is documented as an Integer", row["txs"])
				}
				v := num(t, row, "volume_usd")
				if i > 0 && v.GreaterThan(prev) {
					t.Fatalf("%q %s: sources not ranked by volume", network, period)
				}
				prev = v
				pct = pct.Add(num(t, row, "percentage"))
				vol = vol.Add(v)
				txs = txs.Add(num(t, row, "txs"))
				if network != "" {
					name := str(t, row, "name")
					sumBy[name] = sumBy[name].Add(v)
				}
			}
			if !pct.Equal(hundred) {
				t.Errorf("%q %s: percentages sum to %s", network, period, pct)
			}
			if network == "" {
				for _, row := range env.Data {
					sumBy[str(t, row, "name")] = sumBy[str(t, row, "name")].Sub(num(t, row, "volume_usd"))
				}
				continue
			}
			_, stat, _ := get(t, base+"/stat?network="+network+"&period="+period)
			svol, stxs := decimal.Zero, decimal.Zero
			for _, row := range stat.Data {
				svol = svol.Add(num(t, row, "volume_usd"))
				stxs = stxs.Add(num(t, row, "txs"))
			}
			if !svol.Equal(vol) || !stxs.Equal(txs) {
				t.Errorf("%s %s: sources total %s/%s, /stat total %s/%s", network, period, vol, txs, svol, stxs)
			}
		}
		for name, rest := range sumBy {
			if !rest.IsZero() {
				t.Errorf("%s: all-network source %s differs from the sum over networks by %s", period, name, rest)
			}
		}
	}
}

func TestWireVariants(t *testing.T) {
	s := New(1, clockAt(fixedNow))
	base := serve(t, s)
	s.SetWire(Wire{TxCount: TxnsField})
	_, env, _ := get(t, base+"/stat?network=bsc&period=1d")
	if _, ok := env.Data[0]["txs"]; ok || env.Data[0]["txns"] == nil {
		t.Fatalf("txns spelling: %v", keys(env.Data[0]))
	}
	s.SetWire(Wire{TxCount: BothField, NumbersAsJSON: true})
	_, env, _ = get(t, base+"/stat?network=bsc&period=1w")
	row := env.Data[0]
	if row["txs"] == nil || row["txns"] == nil {
		t.Fatalf("both spellings: %v", keys(row))
	}
	for _, k := range []string{"id", "timestamp", "volume_usd", "traders", "txs"} {
		if strings.HasPrefix(string(row[k]), `"`) {
			t.Errorf("%s = %s, want a bare number", k, row[k])
		}
	}
	s.SetWire(Wire{})
	_, env, _ = get(t, base+"/stat?network=bsc")
	if len(env.Data) != 30 || strings.HasPrefix(string(env.Data[0]["id"]), `"`) == false {
		t.Errorf("default period/encoding: %d rows, id %s", len(env.Data), env.Data[0]["id"])
	}
}

func TestErrors(t *testing.T) {
	s := New(1, clockAt(fixedNow))
	base := serve(t, s)
	for _, c := range []struct{ path, want string }{
		{"/stat?network=solana&period=1w", `unknown network "solana"`},
		{"/stat?network=bsc&period=2w", `unknown period "2w"`},
		{"/stat?period=1w", "network is required"},
		{"/source_stat?network=tron", `unknown network "tron"`},
		{"/source_stat?network=bsc&period=5y", `unknown period "5y"`},
	} {
		code, env, _ := get(t, base+c.path)
		if code != 400 || env.Status == "ok" || !strings.Contains(env.Message, c.want) || env.Data != nil {
			t.Errorf("%s: %d %q %q", c.path, code, env.Status, env.Message)
		}
	}
	code, env, _ := get(t, base+"/stats")
	if code != 404 || env.Status == "ok" {
		t.Errorf("unknown path: %d %+v", code, env)
	}
	resp, err := http.Post(base+"/stat?network=bsc", "text/plain", nil)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 405 {
		t.Errorf("POST: %d", resp.StatusCode)
	}
}

func TestRateLimit(t *testing.T) {
	s := New(1, clockAt(fixedNow))
	base := serve(t, s)
	s.SetRateLimit(5)
	for i := range 5 {
		if code, env, _ := get(t, base+"/source_stat?network=bsc&period=1d"); code != 200 {
			t.Fatalf("request %d: %d %s", i, code, env.Message)
		}
	}
	code, env, hdr := get(t, base+"/stat?network=bsc&period=1d")
	if code != 429 || env.Status == "ok" || !strings.Contains(env.Message, "rate limit") || hdr.Get("Retry-After") == "" {
		t.Fatalf("6th request: %d %+v retry-after %q", code, env, hdr.Get("Retry-After"))
	}
	s.SetRateLimit(0)
	for range 200 {
		if code, _, _ := get(t, base+"/stat?network=fantom&period=1d"); code != 200 {
			t.Fatalf("unlimited: %d", code)
		}
	}
}

func TestLimiterRefills(t *testing.T) {
	now := fixedNow
	l := newLimiter(120, func() time.Time { return now })
	for range 120 {
		if _, ok := l.allow("a"); !ok {
			t.Fatal("burst refused")
		}
	}
	wait, ok := l.allow("a")
	if ok || wait <= 0 || wait > time.Second {
		t.Fatalf("121st: ok=%v wait=%v", ok, wait)
	}
	if _, ok := l.allow("b"); !ok {
		t.Fatal("another IP is limited too")
	}
	now = now.Add(time.Second)
	for range 2 {
		if _, ok := l.allow("a"); !ok {
			t.Fatal("no refill after a second")
		}
	}
	if _, ok := l.allow("a"); ok {
		t.Fatal("refilled too much")
	}
}

func TestBeforeLaunch(t *testing.T) {
	base := serve(t, New(1, clockAt(time.Date(2022, 9, 1, 12, 0, 0, 0, time.UTC))))
	code, env, _ := get(t, base+"/stat?network=optimism&period=all")
	if code != 200 || env.Status != "ok" || len(env.Data) != 0 {
		t.Fatalf("before launch: %d %d rows", code, len(env.Data))
	}
	_, env, _ = get(t, base+"/source_stat?network=optimism&period=1d")
	if len(env.Data) != 0 {
		t.Fatalf("sources before launch: %v", env.Data)
	}
}
