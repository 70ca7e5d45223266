package replay_test

import (
	"context"
	"fmt"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"tradedeck/feed"
	"tradedeck/record/capture"
	"tradedeck/replay"
	"tradedeck/sim"
	"tradedeck/sim/exchange"
	"tradedeck/sim/market"
	"tradedeck/sim/simtest"
	simws "tradedeck/sim/ws"
)

// truth keeps the venue's own books by push ts while a recording runs.
type truth struct {
	mu    sync.Mutex
	books map[string]map[int64]exchange.BookCapture
}

func watchTruth(ctx context.Context, ex *exchange.Exchange) *truth {
	tr := &truth{books: map[string]map[int64]exchange.BookCapture{}}
	ch, cancel := ex.Subscribe()
	go func() {
		defer cancel()
		for {
			select {
			case <-ctx.Done():
				return
			case ev, ok := <-ch:
				if !ok {
					return
				}
				bc, ok := ev.(exchange.BooksCaptured)
				if !ok {
					continue
				}
				tr.mu.Lock()
				for _, b := range bc.Books {
					if tr.books[b.Symbol] == nil {
						tr.books[b.Symbol] = map[int64]exchange.BookCapture{}
					}
					tr.books[b.Symbol][b.Ts] = b
				}
				tr.mu.Unlock()
			}
		}
	}()
	return tr
}

// recordSim records the simulated venue until the file holds frames market
// frames and returns the file and the venue's books over that time. A
// count, not a duration: a loaded machine records fewer frames per second.
func recordSim(t *testing.T, symbols []string, frames uint64, stringNumbers bool) (string, *truth) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	inst := simtest.Start(t, sim.Options{Seed: 5, NoRateLimits: true, StringNumbers: stringNumbers,
		Living: sim.LivingOptions{Rate: market.RateBusy, Streams: simws.Options{UpdateInterval: 50 * time.Millisecond, StatsInterval: 200 * time.Millisecond}}})
	defer inst.Close() // before the replay starts
	tr := watchTruth(ctx, inst.Exchange)
	out := filepath.Join(t.TempDir(), "sim.tdrec")
	rctx, rcancel := context.WithTimeout(ctx, time.Minute) // bounds a hang only
	defer rcancel()
	enough := func(s capture.Stats) {
		if s.Market >= frames {
			rcancel()
		}
	}
	st, err := capture.Run(rctx, capture.Options{Endpoints: inst.Endpoints, Credentials: inst.Credentials, Venue: "SIM", Symbols: symbols, Out: out,
		FlushEvery: 200 * time.Millisecond, Progress: enough})
	if err != nil {
		t.Fatal(err)
	}
	if st.Market < frames || st.REST < 3 {
		t.Fatalf("recorded %d market frames and %d REST replies", st.Market, st.REST)
	}
	return out, tr
}

func TestReplayedBookEqualsVenue(t *testing.T) {
	sym := "PERP_BTC_USDT"
	path, tr := recordSim(t, []string{sym, "SPOT_ETH_USDT"}, 600, true) // about 3s, 55 book updates a symbol

	srv, replayCtx := play(t, replay.Options{Path: path, Speed: 1})
	sum := srv.Summary()
	if sum.Topics[sym+"@orderbookupdate"] < 20 || sum.Truncated != nil || sum.Header.Venue != "SIM" {
		t.Fatalf("summary %+v", sum)
	}
	ctx, cancel := context.WithCancel(replayCtx) // the feed's: it stops after the replay ends
	defer cancel()
	f := feed.New(feed.Config{Endpoints: srv.Endpoints, Symbol: sym, Clock: srv.Now, NoAllTickers: true,
		Watchlist: []string{"SPOT_ETH_USDT"}})
	go func() { _ = f.Run(ctx) }() // ends with ctx's error when the test ends

	compared, mismatched := 0, 0
	st := feed.NewState()
	deadline := time.After(30 * time.Second)
	ended := srv.Done()
	for ended != nil || compared == 0 {
		select {
		case <-deadline:
			t.Fatalf("replay did not end: compared %d books", compared)
		case <-ended:
			ended = nil
			// Let the feed take in what was sent last.
			time.AfterFunc(300*time.Millisecond, cancel)
		case u, ok := <-f.Updates():
			if !ok {
				ended = nil
				if compared == 0 {
					t.Fatal("feed stopped before any book was compared")
				}
				continue
			}
			st.Apply(&u)
			b := u.Books[sym]
			if b == nil || b.State != feed.Live {
				continue
			}
			tr.mu.Lock()
			want, ok := tr.books[sym][b.TS]
			tr.mu.Unlock()
			if !ok {
				continue
			}
			if err := sameBook(b, want); err != nil {
				mismatched++
				t.Errorf("replayed book at ts %d differs from the venue's: %v", b.TS, err)
				continue
			}
			compared++
		}
	}
	if compared < 10 {
		t.Fatalf("only %d replayed books compared with the venue's", compared)
	}
	if c := st.Candles[feed.CandleKey(sym, "1m")]; c == nil || !c.Loaded || len(c.Rows) == 0 {
		t.Fatalf("candles not replayed: %+v", c)
	}
	if st.BBOs["SPOT_ETH_USDT"].Bid == 0 || st.Futures[sym].MarkPrice.IsZero() {
		t.Fatalf("watchlist or futures not replayed: %+v %+v", st.BBOs["SPOT_ETH_USDT"], st.Futures[sym])
	}
	t.Logf("%d replayed books equal the venue's at the same ts", compared)
}

func sameBook(b *feed.Book, c exchange.BookCapture) error {
	side := func(name string, got []feed.Level, want []exchange.LevelPrint) error {
		want = want[:min(len(want), len(got), 100)]
		if len(got) > 100 || (len(got) < 100 && len(got) != len(want)) {
			return fmt.Errorf("%s: %d levels, venue %d", name, len(got), len(want))
		}
		return sameSide(name, "venue", got, want, func(l exchange.LevelPrint) feed.Level { return feed.Level{Price: l.Price, Qty: l.Qty} })
	}
	if err := side("asks", b.Asks, c.Asks); err != nil {
		return err
	}
	return side("bids", b.Bids, c.Bids)
}
