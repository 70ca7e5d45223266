package feed_test

import (
	"context"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"tradedeck/feed"
	"tradedeck/feed/ws"
	"tradedeck/sim"
	"tradedeck/sim/market"
	"tradedeck/sim/simtest"
	"tradedeck/venue"
	"tradedeck/venue/stream"
)

// TestWatchlistOf100MessagesPerSecond: a 100-symbol watchlist is served
// by the all-symbol topics (bbos, tickers: once a second each), so the
// feed receives a few hundred messages a second, not the ~2,300 of a
// 10 ms bbo stream per symbol; every watched symbol still has its bbo and
// ticker, and the focused one its full-rate streams.
func TestWatchlistOf100MessagesPerSecond(t *testing.T) {
	ctx := t.Context()
	uni, symbols := universe100(t)
	path := filepath.Join(t.TempDir(), "universe.json")
	if err := os.WriteFile(path, uni, 0o600); err != nil {
		t.Fatal(err)
	}
	inst := simtest.Start(t, sim.Options{Seed: 3, NoRateLimits: true, Universe: path, Living: sim.LivingOptions{Rate: market.RateBusy}})
	f := feed.New(feed.Config{Endpoints: inst.Endpoints, Credentials: inst.Credentials,
		REST:   venue.NewClient(inst.Endpoints, inst.Credentials, venue.WithLimiter(nil)),
		Symbol: symbols[0], Watchlist: symbols})
	go func() { _ = f.Run(ctx) }() // ends with ctx's error when the test ends
	st := feed.NewState()
	updates := 0
	ready := func() bool {
		for _, s := range symbols {
			if st.BBOs[s].Ask == 0 || st.Tickers[s].Close.IsZero() {
				return false
			}
		}
		b := st.Books[symbols[0]]
		return b != nil && b.State == feed.Live
	}
	deadline := time.After(30 * time.Second)
	var start time.Time
	var rates []float64
	for {
		select {
		case u := <-f.Updates():
			st.Apply(&u)
			updates++
			if start.IsZero() && ready() {
				start, updates = time.Now(), 0
			}
			if !start.IsZero() && u.Health != nil {
				rates = append(rates, u.Health[0].MsgsPerSec)
			}
		case <-deadline:
			t.Fatal("the watchlist never filled (bbo and ticker of every symbol, a live focused book)")
		}
		if !start.IsZero() && time.Since(start) >= 4*time.Second {
			break
		}
	}
	// The feed's own rate, recomputed each second: take the last full one.
	rate := rates[len(rates)-1]
	secs := time.Since(start).Seconds()
	perSymbol := perSymbolRate(ctx, t, inst.Endpoints.MarketStreamURL(inst.Credentials.ApplicationID), symbols)
	t.Logf("100-symbol watchlist: %.0f messages/s received on the market stream (per-symbol bbo and ticker streams on the same venue: %.0f/s), %.0f Updates/s to the screen",
		rate, perSymbol, float64(updates)/secs)
	// Per-symbol bbo streams alone would be ~100 symbols x up to 100/s;
	// the bound is absolute because a starved reader (-race on a loaded
	// machine) under-counts the per-symbol figure.
	if rate <= 0 || rate > 400 {
		t.Fatalf("%.0f messages/s for a 100-symbol watchlist, per-symbol streams %.0f/s", rate, perSymbol)
	}
}

// perSymbolRate is what the same watchlist costs with a bbo and a ticker
// stream per symbol (how the feed served it before): messages a second
// on a connection of its own, over two seconds.
func perSymbolRate(ctx context.Context, t *testing.T, url string, symbols []string) float64 {
	var n atomic.Int64
	c := ws.New(ws.Config{Name: "market", URL: url, OnFrame: func([]byte, *stream.Envelope, error) { n.Add(1) }})
	for _, s := range symbols {
		c.Subscribe(s+"@bbo", s+"@ticker")
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() { _ = c.Run(ctx) }()  // ends with ctx's error when the test ends
	warm := time.After(time.Second) // the subscriptions settle
	<-warm
	n0, t0 := n.Load(), time.Now()
	<-time.After(2 * time.Second) // the measuring window
	return float64(n.Load()-n0) / time.Since(t0).Seconds()
}
