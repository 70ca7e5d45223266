package hub_test

import (
	"context"
	"sort"
	"testing"
	"time"

	"tradedeck/feed"
	"tradedeck/feed/hub"
	"tradedeck/feed/ws"
	"tradedeck/internal/testkit"
	"tradedeck/sim"
	"tradedeck/sim/market"
	"tradedeck/sim/simtest"
	"tradedeck/venue"
)

// startHub runs a hub over a feed with keys against a busy simulated venue.
func startHub(t *testing.T, ctx context.Context) (*hub.Hub, *sim.Instance) {
	t.Helper()
	inst := simtest.Start(t, sim.Options{Seed: 7, NoRateLimits: true, Living: sim.LivingOptions{Rate: market.RateBusy}})
	f := feed.New(feed.Config{Endpoints: inst.Endpoints, Credentials: inst.Credentials,
		REST:    venue.NewClient(inst.Endpoints, inst.Credentials, venue.WithLimiter(nil)),
		Backoff: ws.Backoff{Min: 5 * time.Millisecond, Max: 100 * time.Millisecond}})
	h := hub.New(f)
	go func() { _ = h.Run(ctx) }() // ends with ctx's error when the test ends
	return h, inst
}

// reader folds a session's Updates, as a screen would.
type reader struct {
	s     *hub.Session
	first chan feed.Update // the first Update, once
	conds chan cond        // conditions on the state, checked after every Update
	lat   chan time.Duration
}

// cond is met when ok returns true for the reader's state.
type cond struct {
	ok  func(*feed.State) bool
	met chan struct{}
}

func read(ctx context.Context, s *hub.Session) *reader {
	r := &reader{s: s, first: make(chan feed.Update, 1), conds: make(chan cond), lat: make(chan time.Duration, 4096)}
	go func() {
		st := feed.NewState()
		var waiting []cond
		check := func() {
			kept := waiting[:0]
			for _, c := range waiting {
				if c.ok(&st) {
					close(c.met)
				} else {
					kept = append(kept, c)
				}
			}
			waiting = kept
		}
		for n := 0; ; {
			select {
			case u, ok := <-s.Updates():
				if !ok {
					return
				}
				if n == 0 {
					r.first <- u
				}
				n++
				st.Apply(&u)
				if b := u.Books[s.View().Symbol]; b != nil && b.State == feed.Live {
					select {
					case r.lat <- time.Since(time.UnixMilli(b.TS)):
					default:
					}
				}
			case c := <-r.conds:
				waiting = append(waiting, c)
			case <-ctx.Done():
				return
			}
			check()
		}
	}()
	return r
}

// until waits for ok to hold on the reader's state.
func (r *reader) until(t *testing.T, what string, within time.Duration, ok func(*feed.State) bool) {
	t.Helper()
	c := cond{ok: ok, met: make(chan struct{})}
	r.conds <- c
	select {
	case <-c.met:
	case <-time.After(within):
		t.Fatalf("timed out waiting for %s", what)
	}
}

// liveBook waits for the session's focused book to be live with levels.
func (r *reader) liveBook(t *testing.T, within time.Duration) {
	t.Helper()
	sym := r.s.View().Symbol
	r.until(t, "a live "+sym+" book", within, func(st *feed.State) bool {
		b := st.Books[sym]
		return b != nil && b.State == feed.Live && len(b.Bids) > 0 && len(b.Asks) > 0
	})
}

// TestTwentySessionsShareOneConnectionEach: 20 sessions on different
// symbols and watchlists, every one with a live book, and the venue sees
// one market and one private connection.
func TestTwentySessionsShareOneConnectionEach(t *testing.T) {
	ctx := t.Context()
	h, inst := startHub(t, ctx)
	symbols := []string{"PERP_BTC_USDT", "SPOT_ETH_USDT", "PERP_ETH_USDT", "SPOT_BTC_USDT"}
	var readers []*reader
	for i := 0; i < 20; i++ {
		v := feed.View{Symbol: symbols[i%len(symbols)], Watchlist: symbols[:1+i%len(symbols)]}
		readers = append(readers, read(ctx, h.Join(ctx, v)))
	}
	for _, r := range readers {
		r.liveBook(t, 20*time.Second)
	}
	st := inst.Streams.Stats()
	if st.Market != 1 || st.Private != 1 {
		t.Fatalf("venue connections: %d market, %d private; want 1 and 1", st.Market, st.Private)
	}
	if h.Sessions() != 20 {
		t.Fatalf("%d sessions", h.Sessions())
	}
}

// TestSubscribedOnFirstNeedUntilTheLastLeaves: a symbol's topics are
// subscribed when the first session focuses it, kept while any session
// does, and unsubscribed after the last one left; a watched symbol the
// same.
func TestSubscribedOnFirstNeedUntilTheLastLeaves(t *testing.T) {
	ctx := t.Context()
	h, inst := startHub(t, ctx)
	const sym = "SPOT_ETH_USDT"
	subs := func(topic string) func() int { return func() int { return inst.Streams.Subscribers(topic) } }
	book, bbo := subs(sym+"@orderbookupdate"), subs("bbos")              // a watchlist is served by the all-symbol bbos
	holder := read(ctx, h.Join(ctx, feed.View{Symbol: "PERP_BTC_USDT"})) // keeps the market stream busy
	holder.liveBook(t, 20*time.Second)
	if book() != 0 || bbo() != 0 {
		t.Fatalf("subscribed before any session needs it: book %d bbo %d", book(), bbo())
	}
	a := h.Join(ctx, feed.View{Symbol: sym, Watchlist: []string{"SPOT_BTC_USDT"}})
	read(ctx, a).liveBook(t, 20*time.Second)
	testkit.WaitFor(t, "the first subscription", 10*time.Second, func() bool { return book() == 1 && bbo() == 1 })
	b := h.Join(ctx, feed.View{Symbol: sym, Watchlist: []string{"SPOT_BTC_USDT"}})
	read(ctx, b).liveBook(t, 20*time.Second)
	a.Close()
	<-a.Done()
	holder.liveBook(t, 5*time.Second) // a round trip through the hub after the leave
	if book() != 1 || bbo() != 1 {
		t.Fatalf("unsubscribed while a session still needs it: book %d bbo %d", book(), bbo())
	}
	b.SetWatchlist(nil)
	testkit.WaitFor(t, "the watchlist's bbo unsubscribed", 10*time.Second, func() bool { return bbo() == 0 })
	if book() != 1 {
		t.Fatal("the focus was unsubscribed with the watchlist")
	}
	b.Close()
	<-b.Done()
	testkit.WaitFor(t, "the book unsubscribed after the last session left", 10*time.Second, func() bool { return book() == 0 })
	if h.Feed().Holds(sym) {
		t.Fatal("the feed still holds the book of a symbol no session shows")
	}
}

// TestLateJoinerFirstFrameHasFullBook: a session joining (or focusing) a
// symbol another session already shows gets the whole live book, trades
// and candles in its very first Update.
func TestLateJoinerFirstFrameHasFullBook(t *testing.T) {
	ctx := t.Context()
	h, _ := startHub(t, ctx)
	const sym = "PERP_BTC_USDT"
	early := read(ctx, h.Join(ctx, feed.View{Symbol: sym}))
	early.liveBook(t, 20*time.Second)
	early.until(t, "candles and trades", 10*time.Second, func(st *feed.State) bool {
		c := st.Candles[feed.CandleKey(sym, "1m")]
		return c != nil && c.Loaded && st.Trades[sym] != nil && len(st.Trades[sym].Rows) > 0
	})
	start := time.Now()
	late := read(ctx, h.Join(ctx, feed.View{Symbol: sym}))
	u := <-late.first
	took := time.Since(start)
	b := u.Books[sym]
	if b == nil || b.State != feed.Live || len(b.Bids) == 0 || len(b.Asks) == 0 {
		t.Fatalf("late joiner's first frame has no full book: %+v", b)
	}
	if c := u.Candles[feed.CandleKey(sym, "1m")]; c == nil || !c.Loaded || u.Trades[sym] == nil || u.Account == nil || len(u.Health) != 2 {
		t.Fatalf("late joiner's first frame is incomplete: candles %v trades %v account %v health %v", c != nil, u.Trades[sym] != nil, u.Account != nil, u.Health)
	}
	t.Logf("late joiner's first frame after %s, %d bids %d asks", took, len(b.Bids), len(b.Asks))

	// Focusing a symbol already shown is the same.
	other := read(ctx, h.Join(ctx, feed.View{Symbol: "SPOT_ETH_USDT"}))
	<-other.first
	other.s.Focus(sym)
	other.liveBook(t, time.Second)
}

// TestStalledSessionDoesNotDelayOthers: the frame delay (venue ts of the
// book to its arrival on a screen) of healthy sessions is the same with a
// session that never reads.
func TestStalledSessionDoesNotDelayOthers(t *testing.T) {
	ctx := t.Context()
	h, _ := startHub(t, ctx)
	const sym = "PERP_BTC_USDT"
	var healthy []*reader
	for i := 0; i < 4; i++ {
		healthy = append(healthy, read(ctx, h.Join(ctx, feed.View{Symbol: sym, Watchlist: []string{"SPOT_ETH_USDT", "PERP_ETH_USDT"}})))
	}
	for _, r := range healthy {
		r.liveBook(t, 20*time.Second)
	}
	before := delays(t, healthy, 15)
	stalled := h.Join(ctx, feed.View{Symbol: sym, Watchlist: []string{"SPOT_ETH_USDT", "PERP_ETH_USDT"}}) // never read
	after := delays(t, healthy, 15)
	p50b, p50a := pct(before, 50), pct(after, 50)
	p99b, p99a := pct(before, 99), pct(after, 99)
	t.Logf("healthy frame delay p50 %s -> %s with a stalled session (p99 %s), %d/%d frames", p50b, p50a, p99a, len(before), len(after))
	// a loaded machine moves the median between two samples by tens of
	// milliseconds and the tail by hundreds; a session the hub waits on
	// moves them by more
	if p50a > 2*p50b+50*time.Millisecond || p99a > p99b+time.Second {
		t.Fatalf("a stalled session delays the others: p50 %s -> %s, p99 %s", p50b, p50a, p99a)
	}
	stalled.Close()
	<-stalled.Done()
}

// delays collects the next n frame delays of every reader: a count, not a
// time window, since a loaded machine sends fewer frames a second. The
// deadline only bounds a hang, such as the hub waiting on a stalled session.
func delays(t *testing.T, rs []*reader, n int) []time.Duration {
	t.Helper()
	for _, r := range rs { // what came before does not count
		for len(r.lat) > 0 {
			<-r.lat
		}
	}
	deadline := time.After(time.Minute)
	var out []time.Duration
	for i, r := range rs {
		for range n {
			select {
			case d := <-r.lat:
				out = append(out, d)
			case <-deadline:
				t.Fatalf("healthy session %d got %d of %d frames in a minute", i, len(out)-i*n, n)
			}
		}
	}
	return out
}

func pct(d []time.Duration, p int) time.Duration {
	s := append([]time.Duration(nil), d...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[(len(s)-1)*p/100]
}

// TestUnknownSymbolIsTheSessionsOwnError: a session that focuses or
// watches a symbol the venue does not list is told so; the other
// sessions are not.
func TestUnknownSymbolIsTheSessionsOwnError(t *testing.T) {
	ctx := t.Context()
	h, _ := startHub(t, ctx)
	other := h.Join(ctx, feed.View{Symbol: "PERP_BTC_USDT"})
	// Once the other session's book is live the rules are loaded.
	errs := func(s *hub.Session, until func(feed.Update) bool) []string {
		var out []string
		deadline := time.After(20 * time.Second)
		for {
			select {
			case u := <-s.Updates():
				for _, e := range u.Events {
					if e.Kind == feed.EventError {
						out = append(out, e.Text)
					}
				}
				if until(u) {
					return out
				}
			case <-deadline:
				t.Fatalf("timed out; errors so far %v", out)
			}
		}
	}
	live := func(u feed.Update) bool { b := u.Books["PERP_BTC_USDT"]; return b != nil && b.State == feed.Live }
	if e := errs(other, live); len(e) != 0 {
		t.Fatalf("errors before anything went wrong: %v", e)
	}
	typo := h.Join(ctx, feed.View{Symbol: "NOPE_USDT", Watchlist: []string{"SPOT_ETH_USDT", "ALSO_NOPE"}})
	got := errs(typo, func(u feed.Update) bool { return len(u.Events) > 0 })
	if len(got) != 1 || got[0] != "unknown symbols: NOPE_USDT, ALSO_NOPE" {
		t.Fatalf("the session's own error: %v", got)
	}
	typo.Focus("PERP_ETH_USDT")
	typo.Focus("NOPE2_USDT")
	if got := errs(typo, func(u feed.Update) bool { return len(u.Events) > 0 }); len(got) != 1 || got[0] != "unknown symbol NOPE2_USDT" {
		t.Fatalf("after a second typo: %v", got)
	}
	// The other session reads on past the typos: two more live books.
	n := 0
	if e := errs(other, func(u feed.Update) bool { n++; return live(u) && n > 2 }); len(e) != 0 {
		t.Fatalf("another session's typo shown here: %v", e)
	}
}
