package replay_test

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"testing"
	"time"

	"tradedeck/feed"
	"tradedeck/feed/book"
	"tradedeck/fixed"
	"tradedeck/record"
	"tradedeck/record/capture"
	"tradedeck/replay"
	"tradedeck/sim"
	"tradedeck/sim/market"
	"tradedeck/sim/simtest"
	"tradedeck/venue"
	"tradedeck/venue/stream"
)

var update = flag.Bool("update", false, "re-record testdata/sim-perp-btc.tdrec from the simulated venue")

const fixture = "testdata/sim-perp-btc.tdrec"

// TestUpdateFixture re-records the committed recording (go test -run
// TestUpdateFixture -update ./replay/).
func TestUpdateFixture(t *testing.T) {
	if !*update {
		t.Skip("-update not set")
	}
	inst := simtest.Start(t, sim.Options{Seed: 21, NoRateLimits: true, Living: sim.LivingOptions{Rate: market.RateBusy}})
	rctx, rcancel := context.WithTimeout(context.Background(), 6*time.Second)
	defer rcancel()
	if err := os.MkdirAll("testdata", 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := capture.Run(rctx, capture.Options{Endpoints: inst.Endpoints, Credentials: inst.Credentials, Venue: "SIM", Symbols: []string{"PERP_BTC_USDT"}, Out: fixture}); err != nil {
		t.Fatal(err)
	}
}

// pushedBooks reads every @orderbook push of sym from the recording: the
// venue's full book at each push ts, the reference a replayed feed must
// match.
func pushedBooks(t *testing.T, path, sym string, sc feed.Scale) map[int64]stream.BookData {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rd, err := record.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	defer rd.Close()
	out := map[int64]stream.BookData{}
	var env stream.Envelope
	for {
		r, err := rd.Next()
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		if r.Kind != record.Market || stream.ParseEnvelope(r.Data, &env) != nil || string(env.Topic) != sym+"@orderbook" {
			continue
		}
		var d stream.BookData
		if err := stream.DecodeBook(env.Data, sc.PriceDec, sc.QtyDec, &d); err != nil {
			t.Fatal(err)
		}
		d.Asks, d.Bids = append([]book.Level(nil), d.Asks...), append([]book.Level(nil), d.Bids...)
		out[env.TS] = d
	}
}

// TestFeedFromRecording runs the feed from the committed recording: its
// book syncs without a gap and equals, at every pushed snapshot's ts, the
// venue's own book as recorded.
func TestFeedFromRecording(t *testing.T) {
	const sym = "PERP_BTC_USDT"
	srv, ctx := play(t, replay.Options{Path: fixture, Speed: 2})
	f := feed.New(feed.Config{Endpoints: srv.Endpoints, Symbol: sym, Clock: srv.Now, NoAllTickers: true})
	go func() { _ = f.Run(ctx) }() // ends with ctx's error when the test ends

	var pushes map[int64]stream.BookData
	st := feed.NewState()
	compared := 0
	ended := srv.Done()
	timeout := time.After(30 * time.Second)
	for ended != nil {
		select {
		case <-timeout:
			t.Fatalf("replay did not end (%d books compared)", compared)
		case <-ended:
			ended = nil
		case u := <-f.Updates():
			st.Apply(&u)
			b := u.Books[sym]
			if b == nil || b.State != feed.Live {
				continue
			}
			if pushes == nil {
				pushes = pushedBooks(t, fixture, sym, b.Scale)
			}
			want, ok := pushes[b.TS]
			if !ok {
				continue
			}
			if err := sameLevels(b, want); err != nil {
				t.Fatalf("book at ts %d: %v", b.TS, err)
			}
			compared++
		}
	}
	b := st.Books[sym]
	if compared < 2 || b == nil || b.Gaps != 0 || b.Resyncs != 0 {
		t.Fatalf("compared %d books; final %+v", compared, b)
	}
	tr := st.Trades[sym]
	if tr == nil || len(tr.Rows) == 0 || st.Futures[sym].MarkPrice.IsZero() || st.Candles[feed.CandleKey(sym, "1m")] == nil {
		t.Fatalf("trades %v futures %+v candles %v", tr, st.Futures[sym], st.Candles[feed.CandleKey(sym, "1m")])
	}
	t.Logf("%d books equal the recorded venue snapshots; last ts %d, %s", compared, b.TS, fixed.Format(b.Bids[0].Price, b.Scale.PriceDec))
}

func sameLevels(b *feed.Book, d stream.BookData) error {
	side := func(name string, got []feed.Level, want []book.Level) error {
		want = want[:min(len(want), 100)]
		if len(got) != len(want) {
			return fmt.Errorf("%s: %d levels, recorded %d", name, len(got), len(want))
		}
		return sameSide(name, "recorded", got, want, func(l book.Level) feed.Level { return feed.Level(l) })
	}
	if err := side("asks", b.Asks, d.Asks); err != nil {
		return err
	}
	return side("bids", b.Bids, d.Bids)
}

// sameSide compares a side of the feed's book with the same side as src
// had it, level by level down to want's depth.
func sameSide[L any](name, src string, got []feed.Level, want []L, level func(L) feed.Level) error {
	for i := range want {
		if w := level(want[i]); got[i] != w {
			return fmt.Errorf("%s[%d]: %d x %d, %s %d x %d", name, i, got[i].Price, got[i].Qty, src, w.Price, w.Qty)
		}
	}
	return nil
}

// TestAccountFromRecording: with keys (any: the replay accepts them) the
// feed opens the private stream and reconciles from the recorded REST
// replies, so the recorded account's balances show.
func TestAccountFromRecording(t *testing.T) {
	srv, ctx := play(t, replay.Options{Path: fixture, Speed: replay.Max})
	if !srv.Summary().Header.Private || srv.Summary().Private == 0 {
		t.Fatal("the fixture has no private stream")
	}
	f := feed.New(feed.Config{Endpoints: srv.Endpoints, Symbol: "PERP_BTC_USDT", Clock: srv.Now, NoAllTickers: true,
		Credentials: venue.Credentials{APIKey: "k", APISecret: "s", ApplicationID: "a"}})
	go func() { _ = f.Run(ctx) }() // ends with ctx's error when the test ends
	timeout := time.After(30 * time.Second)
	st := feed.NewState()
	for {
		select {
		case <-timeout:
			t.Fatalf("no balances from the recording; health %+v", st.Health)
		case u := <-f.Updates():
			st.Apply(&u)
		}
		if a := st.Account; a != nil && len(a.Balances) > 0 {
			for _, b := range a.Balances {
				if b.Token == "USDT" && b.Holding.IsPositive() {
					return
				}
			}
		}
	}
}
