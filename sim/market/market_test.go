package market

import (
	"reflect"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"tradedeck/sim/exchange"
)

// newVenue is an exchange on a fixed clock, so Step-driven markets are reproducible.
func newVenue(t testing.TB) *exchange.Exchange {
	t.Helper()
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	ex, err := exchange.New(exchange.Options{Seed: 1, Clock: func() time.Time { return at }})
	if err != nil {
		t.Fatal(err)
	}
	return ex
}

func stepped(t testing.TB, seed uint64, steps int) (*exchange.Exchange, *Market) {
	t.Helper()
	ex := newVenue(t)
	mk, err := New(ex, Options{Seed: seed})
	if err != nil {
		t.Fatal(err)
	}
	mk.Step(steps)
	return ex, mk
}

func books(t testing.TB, ex *exchange.Exchange) map[string]exchange.Book {
	out := map[string]exchange.Book{}
	for _, s := range ex.Symbols() {
		b, err := ex.Depth(s, 0)
		if err != nil {
			t.Fatal(err)
		}
		out[s] = b
	}
	return out
}

func TestStepIsDeterministic(t *testing.T) {
	a, _ := stepped(t, 42, 300)
	b, _ := stepped(t, 42, 300)
	c, _ := stepped(t, 43, 300)
	ba, bb, bc := books(t, a), books(t, b), books(t, c)
	if !reflect.DeepEqual(ba, bb) {
		t.Fatal("same seed, different books")
	}
	if reflect.DeepEqual(ba, bc) {
		t.Fatal("different seeds, same books")
	}
	for _, s := range a.Symbols() {
		ta, _ := a.MarketTrades(s, 1000)
		tb, _ := b.MarketTrades(s, 1000)
		if !reflect.DeepEqual(ta, tb) || len(ta) == 0 {
			t.Fatalf("%s: trades differ or none (%d)", s, len(ta))
		}
	}
}

// TestMarketAgrees: after trading, each book is two-sided and uncrossed, the ticker's close is
// the last trade, and mark and index sit near the mid.
func TestMarketAgrees(t *testing.T) {
	ex, mk := stepped(t, 7, 400)
	if mk.Actions() != int64(400*len(ex.Symbols())) {
		t.Fatalf("actions %d", mk.Actions())
	}
	near := func(a, b decimal.Decimal) bool {
		return a.Sub(b).Abs().LessThan(b.Mul(decimal.RequireFromString("0.01")))
	}
	for _, s := range ex.Symbols() {
		bbo, err := ex.BestBidAsk(s)
		if err != nil || !bbo.HasBid || !bbo.HasAsk || !bbo.Bid.LessThan(bbo.Ask) {
			t.Fatalf("%s: book %+v %v", s, bbo, err)
		}
		mid := bbo.Bid.Add(bbo.Ask).Div(decimal.NewFromInt(2))
		st, _ := ex.Ticker24h(s)
		last, _ := ex.LastPrice(s)
		if !st.Close.Equal(last) || st.Count == 0 {
			t.Fatalf("%s: ticker close %s, last %s, count %d", s, st.Close, last, st.Count)
		}
		mark, index, _ := ex.MarkIndex(s)
		if !near(mark, mid) || !near(index, mid) || !near(last, mid) {
			t.Fatalf("%s: mark %s index %s last %s mid %s", s, mark, index, last, mid)
		}
		book, _ := ex.Depth(s, 0)
		if len(book.Bids) < levelsPerMM || len(book.Asks) < levelsPerMM {
			t.Fatalf("%s: thin book %d/%d", s, len(book.Bids), len(book.Asks))
		}
	}
}

func TestParseRate(t *testing.T) {
	for in, want := range map[string]float64{"calm": RateCalm, "": RateCalm, "busy": RateBusy, "stress": RateStress, "off": 0, "12.5": 12.5} {
		if got, err := ParseRate(in); err != nil || got != want {
			t.Errorf("%q: %v %v", in, got, err)
		}
	}
	for _, bad := range []string{"fast", "-1", "NaN", "Inf"} {
		if _, err := ParseRate(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}
