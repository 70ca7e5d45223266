package stats

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"tradedeck/sim/swapstats"
)

var simNow = time.Date(2026, 11, 22, 7, 30, 0, 0, time.UTC)

// simServer runs the simulator's stats service on loopback under /woofi and
// counts the requests that reach it. fail, when set, answers every request
// with that status and an error envelope.
type simServer struct {
	*swapstats.Server
	URL      string
	requests atomic.Int64
	fail     atomic.Int64
}

func newSimServer(t *testing.T) *simServer {
	t.Helper()
	s := &simServer{Server: swapstats.New(42, func() time.Time { return simNow })}
	inner := http.StripPrefix("/woofi", s.Handler())
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.requests.Add(1)
		if code := s.fail.Load(); code != 0 {
			w.WriteHeader(int(code))
			_, _ = w.Write([]byte(`{"status":"error","message":"injected failure"}`)) // the client under test may have given up
			return
		}
		inner.ServeHTTP(w, r)
	}))
	t.Cleanup(ts.Close)
	s.URL = ts.URL + "/woofi"
	return s
}

func TestClientAgainstSimAllNetworksAndPeriods(t *testing.T) {
	sim := newSimServer(t)
	sim.SetRateLimit(0) // hundreds of requests: more than a minute's worth
	c := NewClient(sim.URL+"/", WithRateLimit(0))
	ctx := context.Background()
	for _, wire := range []swapstats.Wire{{}, {TxCount: swapstats.TxnsField, NumbersAsJSON: true}, {TxCount: swapstats.BothField}} {
		sim.SetWire(wire)
		for _, n := range DefaultNetworks {
			for _, p := range Periods {
				s, err := c.Stat(ctx, n, p)
				if err != nil {
					t.Fatalf("%v %s %s: %v", wire, n, p, err)
				}
				if s.Network != n || s.Period != p || s.Hourly != (p == "1d") || len(s.Rows) < 7 {
					t.Fatalf("%s %s: %d rows", n, p, len(s.Rows))
				}
				for _, r := range s.Rows {
					if !r.VolumeUSD.IsPositive() || r.Trades <= 0 || r.HasTurnover == s.Hourly {
						t.Fatalf("%s %s: row %+v", n, p, r)
					}
				}
				src, err := c.SourceStat(ctx, n, p)
				if err != nil || len(src) == 0 {
					t.Fatalf("%s %s sources: %v", n, p, err)
				}
				tot := s.Totals()
				var vol = src[0].VolumeUSD.Sub(src[0].VolumeUSD)
				var trades int64
				for _, x := range src {
					vol = vol.Add(x.VolumeUSD)
					trades += x.Trades
				}
				if !vol.Equal(tot.VolumeUSD) || trades != tot.Trades {
					t.Fatalf("%s %s: sources %s/%d vs series %s/%d", n, p, vol, trades, tot.VolumeUSD, tot.Trades)
				}
			}
		}
	}
}

func TestClientErrors(t *testing.T) {
	sim := newSimServer(t)
	c := NewClient(sim.URL, WithRateLimit(0))
	ctx := context.Background()
	_, err := c.Stat(ctx, "solana", "1w")
	var apiErr *APIError
	if !errors.As(err, &apiErr) || apiErr.HTTPStatus != 400 || !strings.Contains(apiErr.Message, `unknown network "solana"`) {
		t.Fatalf("unknown network: %v", err)
	}
	before := sim.requests.Load()
	if _, err := c.Stat(ctx, "bsc", "2w"); err == nil || !strings.Contains(err.Error(), `unknown period "2w"`) {
		t.Fatalf("bad period: %v", err)
	}
	if _, err := c.Stat(ctx, "b&sc=1", "1w"); err == nil || !strings.Contains(err.Error(), "bad network name") {
		t.Fatalf("bad name: %v", err)
	}
	if sim.requests.Load() != before {
		t.Error("invalid arguments reached the server")
	}
	sim.fail.Store(503)
	if _, err := c.SourceStat(ctx, "bsc", "1w"); !errors.As(err, &apiErr) || apiErr.HTTPStatus != 503 || apiErr.Message != "injected failure" {
		t.Fatalf("503: %v", err)
	}
	dead := NewClient("http://127.0.0.1:1/woofi")
	if _, err := dead.Stat(ctx, "bsc", "1w"); err == nil || !strings.Contains(err.Error(), "GET /stat") {
		t.Fatalf("connection refused: %v", err)
	}
}

func TestClientRateLimit(t *testing.T) {
	sim := newSimServer(t)
	sim.SetRateLimit(3)
	now := simNow
	c := NewClient(sim.URL, WithRateLimit(0), withClock(func() time.Time { return now }))
	ctx := context.Background()
	for range 3 {
		if _, err := c.Stat(ctx, "bsc", "1d"); err != nil {
			t.Fatal(err)
		}
	}
	_, err := c.Stat(ctx, "bsc", "1d")
	var rl *RateLimitedError
	if !errors.As(err, &rl) || !strings.Contains(err.Error(), "rate limit exceeded: 3 requests per minute") {
		t.Fatalf("429: %v", err)
	}
	if d := rl.RetryAt.Sub(now); d < time.Second || d > time.Minute {
		t.Fatalf("retry after %v", d)
	}
	// While backing off the client sends nothing.
	sent := sim.requests.Load()
	if _, err := c.SourceStat(ctx, "bsc", "1d"); !errors.As(err, &rl) || sim.requests.Load() != sent {
		t.Fatalf("request sent during back-off: %v", err)
	}
	now = rl.RetryAt.Add(time.Millisecond)
	sim.SetRateLimit(0)
	if _, err := c.Stat(ctx, "bsc", "1d"); err != nil {
		t.Fatalf("after back-off: %v", err)
	}
}

func TestClientSideLimiter(t *testing.T) {
	sim := newSimServer(t)
	c := NewClient(sim.URL, WithRateLimit(6)) // one request per 10 s, burst 1
	if _, err := c.Stat(context.Background(), "bsc", "1d"); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	sent := sim.requests.Load()
	if _, err := c.Stat(ctx, "bsc", "1d"); err == nil || !strings.Contains(err.Error(), "client-side rate limit") {
		t.Fatalf("second request within the limit's window: %v", err)
	}
	if sim.requests.Load() != sent {
		t.Fatal("the limiter let a request through")
	}
}

func TestBackoffWithoutRetryAfter(t *testing.T) {
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(429)
		w.Write([]byte("slow down"))
	}))
	defer ts.Close()
	now := simNow
	c := NewClient(ts.URL, WithRateLimit(0), withClock(func() time.Time { return now }))
	var waits []time.Duration
	for range 7 {
		_, err := c.Stat(context.Background(), "bsc", "1w")
		var rl *RateLimitedError
		if !errors.As(err, &rl) {
			t.Fatal(err)
		}
		waits = append(waits, rl.RetryAt.Sub(now))
		now = rl.RetryAt
	}
	want := []time.Duration{5, 10, 20, 40, 80, 120, 120}
	for i := range want {
		if waits[i] != want[i]*time.Second {
			t.Fatalf("back-off %v, want %v s", waits, want)
		}
	}
}

func TestPreviousPeriod(t *testing.T) {
	sim := newSimServer(t)
	c := NewClient(sim.URL, WithRateLimit(0))
	ctx := context.Background()
	week, _ := c.Stat(ctx, "arbitrum", "1w")
	month, _ := c.Stat(ctx, "arbitrum", "1m")
	prev, ok := PreviousTotals(week, month)
	if !ok {
		t.Fatal("no previous week in a month")
	}
	want := totalsOf(month.Rows[16:23], 24*time.Hour)
	if !prev.VolumeUSD.Equal(want.VolumeUSD) || prev.Trades != want.Trades || !prev.To.Equal(week.Rows[0].Time) {
		t.Fatalf("previous week %+v, want %+v", prev, want)
	}
	day, _ := c.Stat(ctx, "arbitrum", "1d")
	prevDay, ok := PreviousTotals(day, week)
	if !ok || prevDay.Rows != 1 || prevDay.To.After(day.Rows[0].Time) {
		t.Fatalf("previous day %+v", prevDay)
	}
	all, _ := c.Stat(ctx, "arbitrum", "all")
	year, _ := c.Stat(ctx, "arbitrum", "1y")
	if _, ok := PreviousTotals(year, all); !ok {
		t.Error("arbitrum has more than two years of days")
	}
	if _, ok := PreviousTotals(all, all); ok {
		t.Error("a previous period before all")
	}
	if _, ok := PreviousPeriodSource("all"); ok {
		t.Error("all has no previous period")
	}
	ch, ok := Change(dec("110"), dec("100"))
	if !ok || !ch.Equal(dec("10")) {
		t.Errorf("change %s", ch)
	}
	ch, _ = Change(dec("1"), dec("3"))
	if ch.String() != "-66.67" {
		t.Errorf("change %s", ch)
	}
	if _, ok := Change(dec("1"), dec("0")); ok {
		t.Error("change against zero")
	}
	r, err := Fetch(ctx, c, "arbitrum", "1w", true)
	if err != nil || !r.HasPrevious || !r.Previous.VolumeUSD.Equal(prev.VolumeUSD) || len(r.Sources) == 0 {
		t.Fatalf("fetch: %v %+v", err, r.Previous)
	}
}

func TestBuckets(t *testing.T) {
	sim := newSimServer(t)
	c := NewClient(sim.URL, WithRateLimit(0))
	year, err := c.Stat(context.Background(), "bsc", "1y")
	if err != nil {
		t.Fatal(err)
	}
	b := year.Buckets(100)
	if len(b) != 92 || b[0].Rows != 4 || b[91].Rows != 1 {
		t.Fatalf("%d buckets, first %d rows, last %d", len(b), b[0].Rows, b[len(b)-1].Rows)
	}
	sum := b[0].VolumeUSD.Sub(b[0].VolumeUSD)
	for _, x := range b {
		sum = sum.Add(x.VolumeUSD)
	}
	if !sum.Equal(year.Totals().VolumeUSD) || !b[1].Start.Equal(b[0].End) {
		t.Fatal("buckets lose volume or leave gaps")
	}
	if got := year.Buckets(1000); len(got) != 365 {
		t.Fatalf("wide chart: %d buckets", len(got))
	}
}

func TestCache(t *testing.T) {
	sim := newSimServer(t)
	now := simNow
	cache := NewCache(NewClient(sim.URL, WithRateLimit(0)), time.Minute)
	cache.SetClock(func() time.Time { return now })
	ctx := context.Background()
	k := Key{"bsc", "1w"}
	if _, ok := cache.Peek(k); ok {
		t.Fatal("empty cache has an entry")
	}
	s, err := cache.Get(ctx, k)
	if err != nil || !s.HasData() || s.Stale() || !s.FetchedAt.Equal(now) || len(s.Report.Series.Rows) != 7 || len(s.Report.Sources) == 0 || !s.Report.HasPrevious {
		t.Fatalf("first get: %v %+v", err, s)
	}
	sent := sim.requests.Load()
	now = now.Add(59 * time.Second)
	if s2, _ := cache.Get(ctx, k); !s2.FetchedAt.Equal(s.FetchedAt) || sim.requests.Load() != sent {
		t.Fatal("fresh entry was refetched")
	}
	now = now.Add(2 * time.Second)
	sim.fail.Store(500)
	s3, err := cache.Get(ctx, k)
	if err == nil || !s3.Stale() || !s3.FetchedAt.Equal(s.FetchedAt) || len(s3.Report.Series.Rows) != 7 || !s3.ErrAt.Equal(now) {
		t.Fatalf("failed refresh: %v %+v", err, s3)
	}
	if p, _ := cache.Peek(k); !p.Stale() || !strings.Contains(p.Err.Error(), "injected failure") {
		t.Fatalf("peek after failure: %+v", p)
	}
	sim.fail.Store(0)
	s4, err := cache.Refresh(ctx, k)
	if err != nil || s4.Stale() || !s4.FetchedAt.Equal(now) {
		t.Fatalf("recovery: %v %+v", err, s4)
	}
	// A key that never fetched keeps no data, only the error.
	sim.fail.Store(502)
	s5, err := cache.Get(ctx, Key{"avax", "1d"})
	if err == nil || s5.HasData() || !s5.Stale() {
		t.Fatalf("never fetched: %+v", s5)
	}
}
