package algo

import (
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"tradedeck/feed"
	"tradedeck/trade"
)

func TestChaseDecide(t *testing.T) {
	const tick = 1
	cases := []struct {
		name                                         string
		buy                                          bool
		best, placedBest, peg, offset, thresh, leash int64
		back                                         int64
		quit                                         bool
		act                                          chaseAction
		target                                       int64
	}{
		{"first order joins the best", true, 1000, 0, 0, 0, 0, 2000, 0, false, chaseMove, 1000},
		{"offset behind the bid", true, 1000, 0, 0, 3, 0, 2000, 0, false, chaseMove, 997},
		{"a sell sits offset above the ask", false, 1000, 0, 0, 3, 0, 500, 0, false, chaseMove, 1003},
		{"at the best: nothing to do", true, 1000, 1000, 1000, 0, 0, 2000, 0, false, chaseHold, 1000},
		{"the bid moved up: follow", true, 1005, 1000, 1000, 0, 0, 2000, 0, false, chaseMove, 1005},
		{"moved up within the threshold: hold", true, 1002, 1000, 1000, 0, 2, 2000, 0, false, chaseHold, 1002},
		{"moved up past the threshold: follow", true, 1003, 1000, 1000, 0, 2, 2000, 0, false, chaseMove, 1003},
		{"the bid fell toward it: a buy keeps its price", true, 990, 1000, 1000, 0, 0, 2000, 0, false, chaseHold, 990},
		{"the ask fell: a sell follows", false, 990, 1000, 1000, 0, 0, 500, 0, false, chaseMove, 990},
		{"the ask rose: a sell keeps its price", false, 1010, 1000, 1000, 0, 0, 500, 0, false, chaseHold, 1010},
		{"past the leash: rest at it", true, 2100, 1000, 1000, 0, 0, 2000, 0, false, chaseMove, 2000},
		{"resting at the leash: hold", true, 2200, 2100, 2000, 0, 0, 2000, 0, false, chaseHold, 2000},
		{"past the leash, cancel policy: quit", true, 2100, 1000, 1000, 0, 0, 2000, 0, true, chaseQuit, 2000},
		{"a sell past its leash rests at it", false, 400, 1000, 1000, 0, 0, 500, 0, false, chaseMove, 500},
		{"after a post-only refusal: one tick back", true, 1000, 1000, 0, 0, 0, 2000, tick, false, chaseMove, 999},
	}
	for _, c := range cases {
		act, target := chaseDecide(c.buy, c.best, c.placedBest, c.peg, c.offset*tick, c.thresh*tick, c.leash, c.back, c.quit)
		if act != c.act || (act != chaseHold && target != c.target) {
			t.Errorf("%s: %d @ %d, want %d @ %d", c.name, act, target, c.act, c.target)
		}
	}
}

// BenchmarkChaseDecide is the re-price decision of one bbo: int64 only.
func BenchmarkChaseDecide(b *testing.B) {
	b.ReportAllocs()
	var n int
	for i := 0; i < b.N; i++ {
		if act, _ := chaseDecide(i&1 == 0, int64(100_000+i%7), 100_000, 100_000, 2, 3, 101_000, 0, false); act != chaseHold {
			n++
		}
	}
	_ = n
}

var ethRule = trade.Rule{Symbol: "PERP_ETH_USDT", QuoteMax: d("50000"), QuoteTick: d("0.01"), BaseMin: d("0.001"), BaseMax: d("3000"),
	BaseTick: d("0.001"), MinNotional: d("10")}

func TestScaleRungsOnTheGridAddingUp(t *testing.T) {
	for _, c := range []struct {
		side trade.Side
		from string
		to   string
		skew Skew
	}{
		{trade.Buy, "3400", "3300", Skew{}},
		{trade.Buy, "3400", "3300", Skew{Kind: SkewLinear, Factor: d("3")}},
		{trade.Sell, "3400", "3500.005", Skew{Kind: SkewLinear, Factor: d("0.25")}},
		{trade.Buy, "3300", "3400", Skew{Kind: SkewExp, Factor: d("1.2")}},
		{trade.Sell, "3500", "3400", Skew{Kind: SkewExp, Factor: d("0.8")}},
	} {
		w := Work{Side: c.side, Quantity: d("2.5"), From: d(c.from), To: d(c.to), Count: 25, Skew: c.skew}
		rungs, err := scaleRungs(w, ethRule)
		if err != nil {
			t.Fatalf("%+v: %v", c, err)
		}
		sum := decimal.Zero
		for i, r := range rungs {
			sum = sum.Add(r.Quantity)
			if !ethRule.AlignPrice(r.Price, trade.Down).Equal(r.Price) || !ethRule.AlignQty(r.Quantity, trade.Down).Equal(r.Quantity) {
				t.Errorf("%+v rung %d off the grid: %s @ %s", c, i, r.Quantity, r.Price)
			}
			if r.Quantity.LessThan(ethRule.BaseMin) {
				t.Errorf("rung %d below the lot", i)
			}
			if lo, hi := decimal.Min(d(c.from), d(c.to)), decimal.Max(d(c.from), d(c.to)); r.Price.LessThan(lo) || r.Price.GreaterThan(hi) {
				t.Errorf("%+v: rung %d at %s, outside the range asked for", c, i, r.Price)
			}
			if i > 0 && c.skew.Kind != SkewFlat {
				grows := c.skew.Factor.GreaterThan(decimal.NewFromInt(1))
				if (grows && r.Quantity.LessThan(rungs[i-1].Quantity)) || (!grows && r.Quantity.GreaterThan(rungs[i-1].Quantity)) {
					t.Errorf("%+v: rung %d %s against the skew after %s", c, i, r.Quantity, rungs[i-1].Quantity)
				}
			}
		}
		if !sum.Equal(w.Quantity) {
			t.Errorf("%+v: rungs add up to %s, want %s", c, sum, w.Quantity)
		}
		if !rungs[0].Price.Equal(ethRule.AlignPrice(d(c.from), map[trade.Side]trade.Rounding{trade.Buy: trade.Down, trade.Sell: trade.Up}[c.side])) {
			t.Errorf("%+v: first rung at %s", c, rungs[0].Price)
		}
	}
	if _, err := scaleRungs(Work{Side: trade.Buy, Quantity: d("1"), From: d("100"), To: d("100.05"), Count: 10}, ethRule); err == nil {
		t.Error("10 rungs in 5 ticks accepted")
	}
	if _, err := scaleRungs(Work{Side: trade.Buy, Quantity: d("1.0005"), From: d("100"), To: d("90"), Count: 10}, ethRule); err == nil {
		t.Error("a quantity off the lot grid accepted")
	}
}

// simulate runs a TWAP's schedule on a test clock stepping by tick, with
// the runner down (a stall) between stallFrom and stallTo; every slice
// fills. It returns the slices: when, slot and size.
type slice struct {
	at   time.Time
	slot int
	size decimal.Decimal
	miss int
}

func simulate(p twapPlan, tick, stallFrom, stallTo time.Duration) (out []slice, done int, left decimal.Decimal) {
	left = p.total
	for now := p.start; now.Before(p.start.Add(3 * time.Duration(p.n) * p.interval)); now = now.Add(tick) {
		if el := now.Sub(p.start); el >= stallFrom && el < stallTo {
			continue
		}
		for {
			st := p.next(now, done, left)
			if st.Finished || st.Wait > 0 {
				break
			}
			left = left.Sub(st.SkipQty).Sub(st.Size)
			done = st.Slot + 1
			out = append(out, slice{now, st.Slot, st.Size, st.Missed})
			break // a runner sends at most one slice per step: the next waits for its slot
		}
	}
	return out, done, left
}

func TestTWAPScheduleAfterAStallNeverBursts(t *testing.T) {
	start := time.Date(2026, 11, 27, 4, 0, 0, 0, time.UTC)
	total := d("10")
	for _, catch := range []CatchUp{{Policy: CatchSpread}, {Policy: CatchSkip}, {Policy: CatchBounded, Max: 1}} {
		w := Work{Side: trade.Buy, Quantity: total, Over: 10 * time.Minute, Slices: 20, Jitter: d("20"), CatchUp: catch}
		p := newTWAPPlan(w, start, 42)
		nominal := total.Div(decimal.NewFromInt(20))
		got, _, left := simulate(p, time.Second, 3*time.Minute, 5*time.Minute)
		perSlot := map[time.Time]int{}
		var after []slice
		for i, s := range got {
			perSlot[s.at]++
			if perSlot[s.at] > 1 {
				t.Fatalf("%v: two slices at %s", catch, s.at)
			}
			if i > 0 && s.at.Sub(got[i-1].at) < p.interval/2 {
				t.Fatalf("%v: slices %d and %d only %s apart (a burst)", catch, i-1, i, s.at.Sub(got[i-1].at))
			}
			if s.miss > 0 {
				after = append(after, s)
			}
		}
		if len(after) != 1 || after[0].miss < 3 {
			t.Fatalf("%v: the stall's missed slots reported as %+v", catch, after)
		}
		first := after[0]
		bigger := first.size.Div(nominal).InexactFloat64()
		switch catch.Policy {
		case CatchSpread:
			if !left.IsZero() || bigger < 1.1 || bigger > 1.6 {
				t.Fatalf("spread: left %s, first slice after the stall %.2fx nominal", left, bigger)
			}
		case CatchSkip:
			if !left.IsZero() || bigger > 1.25 {
				t.Fatalf("skip: left %s, first slice after the stall %.2fx nominal", left, bigger)
			}
		case CatchBounded:
			if !left.IsZero() || bigger > 2.0*1.2+1e-9 || bigger < 1.5 {
				t.Fatalf("bounded 1: left %s, first slice after the stall %.2fx nominal", left, bigger)
			}
			for _, s := range got {
				if s.size.GreaterThan(nominal.Mul(d("2.4"))) {
					t.Fatalf("bounded 1: slice %d of %s > 2 slices' worth (+jitter)", s.slot, s.size)
				}
			}
		}
	}
}

func TestTWAPScheduleIsSeededAndJitterBounded(t *testing.T) {
	start := time.Date(2026, 11, 27, 4, 0, 0, 0, time.UTC)
	w := Work{Side: trade.Sell, Quantity: d("3"), Over: time.Hour, Slices: 60, Jitter: d("50")}
	a, b, other := newTWAPPlan(w, start, 7), newTWAPPlan(w, start, 7), newTWAPPlan(w, start, 8)
	same := 0
	for k := 0; k < 60; k++ {
		if !a.due(k).Equal(b.due(k)) {
			t.Fatalf("slot %d: %s vs %s for the same algo", k, a.due(k), b.due(k))
		}
		if a.due(k).Equal(other.due(k)) {
			same++
		}
		nominal := start.Add(time.Duration(k) * time.Minute)
		if dev := a.due(k).Sub(nominal); dev > 30*time.Second || dev < -30*time.Second {
			t.Fatalf("slot %d jittered by %s (> 50%% of a minute)", k, dev)
		}
		if k > 0 && a.due(k).Before(a.due(k-1)) {
			t.Fatalf("slot %d before slot %d", k, k-1)
		}
	}
	if same > 10 {
		t.Fatalf("another algo's schedule matches %d slots of 60", same)
	}
	got, _, left := simulate(a, 5*time.Second, 0, 0)
	if len(got) != 60 || !left.IsZero() {
		t.Fatalf("%d slices, %s left", len(got), left)
	}
	if !got[len(got)-1].at.Before(start.Add(time.Hour)) {
		t.Fatalf("last slice at %s, after the end", got[len(got)-1].at)
	}
}

// benchChasers puts n chases on the bench engine's symbols directly (no
// runner: the bbo path only decides and wakes).
func benchChasers(tb testing.TB, e *Engine, syms []string, n int) {
	e.mu.Lock()
	defer e.mu.Unlock()
	for i := 0; i < n; i++ {
		sym := syms[i%len(syms)]
		side := trade.Buy
		if i%2 == 1 {
			side = trade.Sell
		}
		a := &algoState{id: ID(10_000 + i), spec: Spec{Kind: KindChase, Symbol: sym, Work: Work{Side: side, Quantity: d("1"), Threshold: 2,
			Leash: map[trade.Side]decimal.Decimal{trade.Buy: d("9500"), trade.Sell: d("8500")}[side]}}, side: side, state: StateWorking,
			attempts: map[Leg]int{}, work: newWorkState(e.rules[sym].rule)}
		e.algos[a.id] = a
		e.initWorkLocked(a)
		a.work.chase.peg, a.work.chase.placedBest = 9000_00, 9000_00
	}
}

// BenchmarkWorkingBBO: the bbo flow of 20 symbols with 50 chases on them
// (and the 100 stops of benchEngine): the cost of one frame, decisions
// and wake-ups included. Must not allocate.
func BenchmarkWorkingBBO(b *testing.B) {
	e, syms := benchEngine(b, newBenchVenue(b).client())
	benchChasers(b, e, syms, 50)
	now := time.Now().UnixMilli()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		px := int64(9000_00 + i%9 - 4) // a bid wandering around the chasers' peg
		e.ObserveBBO(feed.BBO{Symbol: syms[i%20], Scale: benchScale, Bid: px, Ask: px + 2, TS: now})
	}
}
