package exchange

import (
	"cmp"
	"slices"
	"testing"
)

// nextCapture captures the books and returns the capture of symbol from the event stream.
func (f *fixture) nextCapture(events <-chan Event, symbol string) BookCapture {
	f.t.Helper()
	f.ex.CaptureBooks(0, nil)
	for ev := range events {
		if c, ok := ev.(BooksCaptured); ok {
			for _, bc := range c.Books {
				if bc.Symbol == symbol {
					return bc
				}
			}
			f.t.Fatalf("no capture of %s", symbol)
		}
	}
	f.t.Fatal("event stream closed")
	return BookCapture{}
}

// touchedSet sorts and deduplicates a capture's touched levels.
func touchedSet(ts []TouchedLevel) []TouchedLevel {
	out := slices.Clone(ts)
	slices.SortFunc(out, func(a, b TouchedLevel) int {
		if a.Buy != b.Buy {
			if a.Buy {
				return -1
			}
			return 1
		}
		return cmp.Compare(a.Price, b.Price)
	})
	return slices.Compact(out)
}

// TestCaptureTouchedLevels: a capture lists every level changed since the previous one (rested,
// filled, cancelled), also those that changed back, and a change after a capture is stamped
// after it even within the same millisecond.
func TestCaptureTouchedLevels(t *testing.T) {
	f := newFixture(t)
	const sym = "SPOT_BTC_USDT"
	events, cancel := f.ex.Subscribe()
	defer cancel()
	f.book() // before any capture: nothing is recorded
	c1 := f.nextCapture(events, sym)
	if len(c1.Touched) != 0 {
		t.Fatalf("first capture: touched %v", c1.Touched)
	}
	depthTs := func() int64 {
		_, _, ts, err := f.ex.DepthFixed(sym, 1, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		return ts
	}
	if ts := depthTs(); ts != c1.Ts {
		t.Fatalf("unchanged book after the capture at %d stamped %d", c1.Ts, ts)
	}

	// The clock stands still: everything below happens in the capture's millisecond.
	o := f.place(f.alice, limitReq(sym, Buy, "99.00", "0.5")) // came and went
	if ts := depthTs(); ts != c1.Ts+1 {
		t.Fatalf("book changed after the capture at %d stamped %d, want %d", c1.Ts, ts, c1.Ts+1)
	}
	if err := f.ex.Cancel(f.alice, sym, o.ID); err != nil {
		t.Fatal(err)
	}
	f.place(f.bob, limitReq(sym, Sell, "102.00", "1"))
	f.place(f.alice, limitReq(sym, Buy, "102.00", "2.5")) // takes 101 and 102, rests 0.5 at 102
	c2 := f.nextCapture(events, sym)
	want := []TouchedLevel{{Price: 9900, Buy: true}, {Price: 10200, Buy: true}, {Price: 10100}, {Price: 10200}}
	if got := touchedSet(c2.Touched); !slices.Equal(got, want) {
		t.Fatalf("touched %v, want %v", got, want)
	}
	if c2.Ts <= c1.Ts+1 {
		t.Fatalf("capture at %d after a change stamped %d", c2.Ts, c1.Ts+1)
	}
	if c3 := f.nextCapture(events, sym); len(c3.Touched) != 0 {
		t.Fatalf("nothing changed: touched %v", c3.Touched)
	}
}

// TestTouchedStaysBounded: without captures the touched list is deduplicated as it grows, so a
// venue whose publisher stopped does not grow without end.
func TestTouchedStaysBounded(t *testing.T) {
	f := newFixture(t)
	const sym = "SPOT_BTC_USDT"
	f.ex.CaptureBooks(0, nil)
	mm := f.ex.InternalAccount("MM")
	prices := []string{"99.00", "98.00", "97.00"}
	for i := range 3 * touchedCompactAt {
		o := f.place(mm, limitReq(sym, Buy, prices[i%3], "0.5"))
		if err := f.ex.Cancel(mm, sym, o.ID); err != nil {
			t.Fatal(err)
		}
	}
	m := f.ex.markets[sym]
	if len(m.touched) >= touchedCompactAt {
		t.Fatalf("%d touched entries for 3 levels", len(m.touched))
	}
	events, cancel := f.ex.Subscribe()
	defer cancel()
	want := []TouchedLevel{{Price: 9700, Buy: true}, {Price: 9800, Buy: true}, {Price: 9900, Buy: true}}
	if got := touchedSet(f.nextCapture(events, sym).Touched); !slices.Equal(got, want) {
		t.Fatalf("touched %v, want %v", got, want)
	}
}
