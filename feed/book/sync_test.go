package book

import (
	"math/rand"
	"reflect"
	"sort"
	"testing"
)

func lv(pq ...int64) []Level {
	var out []Level
	for i := 0; i+1 < len(pq); i += 2 {
		out = append(out, Level{Price: pq[i], Qty: pq[i+1]})
	}
	return out
}

func TestBookSetAndDelete(t *testing.T) {
	var b Book
	b.Apply(lv(105, 1, 103, 2, 104, 3, 103, 5), lv(99, 1, 101, 2, 100, 3))
	if !reflect.DeepEqual(b.Asks, lv(103, 5, 104, 3, 105, 1)) || !reflect.DeepEqual(b.Bids, lv(101, 2, 100, 3, 99, 1)) {
		t.Fatalf("%v %v", b.Asks, b.Bids)
	}
	b.Apply(lv(104, 0, 200, 0), lv(101, 0))
	if !reflect.DeepEqual(b.Asks, lv(103, 5, 105, 1)) || !reflect.DeepEqual(b.Bids, lv(100, 3, 99, 1)) {
		t.Fatalf("%v %v", b.Asks, b.Bids)
	}
	if b.Crossed() {
		t.Fatal("not crossed")
	}
	b.Apply(nil, lv(103, 1))
	if !b.Crossed() {
		t.Fatal("crossed")
	}
}

func TestTruncatedSnapshotIgnoresDeltasBeyondItsDepth(t *testing.T) {
	var b Book
	b.Reset(lv(101, 1, 102, 1), lv(99, 1, 98, 1), true)
	b.Apply(lv(150, 7, 101, 2), lv(50, 7))
	if !reflect.DeepEqual(b.Asks, lv(101, 2, 102, 1)) || !reflect.DeepEqual(b.Bids, lv(99, 1, 98, 1)) {
		t.Fatalf("%v %v", b.Asks, b.Bids)
	}
	b.Reset(lv(101, 1), lv(99, 1), false)
	b.Apply(lv(150, 7), nil)
	if len(b.Asks) != 2 {
		t.Fatal("untruncated snapshot must accept deeper levels")
	}
}

func TestSyncFirstDeltaStraddlesSnapshot(t *testing.T) {
	var s Sync
	// Deltas arrive before the snapshot: 90 (older), 110 (straddles 100), 120.
	for _, d := range [][3]int64{{90, 80, 1}, {110, 90, 2}, {120, 110, 3}} {
		if !s.Delta(d[0], d[1], lv(200, d[2]), nil) {
			t.Fatal("must want a snapshot until live")
		}
	}
	if s.Live() {
		t.Fatal("live without snapshot")
	}
	if s.Snapshot(100, lv(200, 9, 201, 1), lv(199, 1), false) {
		t.Fatal("snapshot should bridge")
	}
	if !s.Live() || s.LastTS() != 120 || s.Book.Asks[0] != (Level{Price: 200, Qty: 3}) || s.Dropped != 1 || s.Applied != 2 || s.Gaps != 0 {
		t.Fatalf("%+v", s)
	}
}

func TestSyncSnapshotThenFirstDeltaBridges(t *testing.T) {
	var s Sync
	s.Snapshot(100, lv(200, 1), lv(199, 1), false)
	if !s.Live() {
		t.Fatal("a snapshot makes the book live")
	}
	s.Delta(100, 90, lv(200, 5), nil) // ts == snapshot ts: already contained
	if s.Book.Asks[0].Qty != 1 || s.Dropped != 1 {
		t.Fatal("delta at snapshot ts must be dropped")
	}
	s.Delta(105, 95, lv(200, 6), nil) // prevTs <= 100 < ts: bridges
	s.Delta(110, 105, lv(200, 7), nil)
	if !s.Live() || s.Book.Asks[0].Qty != 7 {
		t.Fatalf("%+v", s.Book)
	}
	// Now strict: prevTs must equal the last ts.
	if !s.Delta(120, 100, lv(200, 8), nil) || s.Gaps != 1 || s.Live() {
		t.Fatal("a prevTs older than the last applied ts is a gap after bridging")
	}
}

func TestSyncFirstDeltaAfterSnapshotWithGap(t *testing.T) {
	var s Sync
	s.Snapshot(100, lv(200, 1), lv(199, 1), false)
	if !s.Delta(130, 120, lv(200, 5), nil) || s.Gaps != 1 || s.Live() {
		t.Fatal("first delta with prevTs > snapshot ts means a missed update")
	}
	if s.Pending() != 1 {
		t.Fatal("the breaking delta is kept for the next snapshot")
	}
	if s.Snapshot(125, lv(200, 4), lv(199, 1), false) || !s.Live() || s.Book.Asks[0].Qty != 5 {
		t.Fatalf("%+v", s)
	}
}

func TestSyncDuplicateAndOutOfOrder(t *testing.T) {
	var s Sync
	s.Snapshot(100, lv(200, 1), lv(199, 1), false)
	s.Delta(110, 100, lv(200, 2), nil)
	s.Delta(110, 100, lv(200, 2), nil) // duplicate
	if !s.Live() || s.Dropped != 1 || s.Gaps != 0 {
		t.Fatalf("duplicate: %+v", s)
	}
	// 130 arrives before 120: a break in the chain, detected.
	if !s.Delta(130, 120, lv(200, 4), nil) || s.Gaps != 1 {
		t.Fatal("out of order not detected")
	}
	// The late 120 is older than the buffered 130: dropped.
	s.Delta(120, 110, lv(200, 3), nil)
	if s.Pending() != 1 || s.Dropped != 2 {
		t.Fatalf("pending %d dropped %d", s.Pending(), s.Dropped)
	}
	s.Snapshot(125, lv(200, 3), lv(199, 1), false)
	if !s.Live() || s.Book.Asks[0].Qty != 4 || s.Resyncs != 1 {
		t.Fatalf("%+v", s)
	}
}

func TestSyncSnapshotOlderThanBuffer(t *testing.T) {
	var s Sync
	s.Delta(150, 140, lv(200, 5), nil)
	s.Delta(160, 150, lv(200, 6), nil)
	if !s.Snapshot(100, lv(200, 1), nil, false) || s.Live() {
		t.Fatal("a snapshot before the buffered chain cannot be bridged")
	}
	if s.Pending() != 2 || s.Resyncs != 1 {
		t.Fatalf("pending %d resyncs %d", s.Pending(), s.Resyncs)
	}
	if s.Snapshot(155, lv(200, 5), nil, false) || !s.Live() || s.Book.Asks[0].Qty != 6 || s.LastTS() != 160 {
		t.Fatalf("%+v", s)
	}
}

func TestSyncGapInsideBuffer(t *testing.T) {
	var s Sync
	s.Delta(110, 100, lv(200, 1), nil)
	s.Delta(130, 120, lv(200, 3), nil) // 120 missing
	if s.Gaps != 1 || s.Pending() != 1 {
		t.Fatalf("gaps %d pending %d", s.Gaps, s.Pending())
	}
}

func TestSyncCrossedBookResyncs(t *testing.T) {
	var s Sync
	s.Snapshot(100, lv(200, 1), lv(199, 1), false)
	if !s.Delta(110, 100, nil, lv(201, 1)) {
		t.Fatal("crossed book must ask for a snapshot")
	}
	if s.Live() || s.Crossed != 1 || s.Resyncs != 1 {
		t.Fatalf("%+v", s)
	}
	if !s.Snapshot(120, lv(200, 1), lv(200, 1), false) || s.Crossed != 2 {
		t.Fatal("a crossed snapshot is refused")
	}
}

func TestSyncResetOnReconnect(t *testing.T) {
	var s Sync
	s.Snapshot(100, lv(200, 1), lv(199, 1), false)
	s.Reset()
	if s.Live() || s.Resyncs != 1 {
		t.Fatal("reset")
	}
	if !s.Delta(110, 100, lv(200, 2), nil) {
		t.Fatal("after reset a snapshot is needed")
	}
}

func TestSyncPendingBounded(t *testing.T) {
	s := Sync{MaxPending: 8}
	for i := int64(1); i <= 100; i++ {
		s.Delta(i*10, (i-1)*10, lv(200, i), nil)
	}
	if s.Pending() > 8 || s.Gaps != 0 {
		t.Fatalf("pending %d gaps %d", s.Pending(), s.Gaps)
	}
	s.Snapshot(995, lv(200, 99), nil, false)
	if !s.Live() || s.Book.Asks[0].Qty != 100 {
		t.Fatalf("%+v", s.Book)
	}
}

// reference is a trivially correct book: a map per side.
type reference struct{ asks, bids map[int64]int64 }

func (r *reference) apply(asks, bids []Level) {
	for _, l := range asks {
		set(r.asks, l)
	}
	for _, l := range bids {
		set(r.bids, l)
	}
}

func set(m map[int64]int64, l Level) {
	if l.Qty == 0 {
		delete(m, l.Price)
	} else {
		m[l.Price] = l.Qty
	}
}

func (r *reference) levels() (asks, bids []Level) {
	for p, q := range r.asks {
		asks = append(asks, Level{Price: p, Qty: q})
	}
	for p, q := range r.bids {
		bids = append(bids, Level{Price: p, Qty: q})
	}
	sort.Slice(asks, func(i, j int) bool { return asks[i].Price < asks[j].Price })
	sort.Slice(bids, func(i, j int) bool { return bids[i].Price > bids[j].Price })
	return
}

// TestSyncRandomFaults drives the sync with a random market and random
// faults (drops, duplicates, swaps, late snapshots) and checks after every
// step that a live book equals the venue's book at the same ts, and that
// every dropped delta was detected as a gap.
func TestSyncRandomFaults(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	venue := reference{map[int64]int64{}, map[int64]int64{}}
	for p := int64(0); p < 50; p++ {
		venue.asks[1000+p] = 1 + p
		venue.bids[999-p] = 1 + p
	}
	type snap struct {
		ts         int64
		asks, bids []Level
	}
	history := map[int64]snap{}
	var s Sync
	ts, prev := int64(1000), int64(0)
	var inflight *snap // a snapshot request being served
	dropped := 0
	var held *[3]any // a delta held back to swap with the next
	deliver := func(d [3]any) {
		if s.Delta(d[0].(int64), d[1].(int64), d[2].([2][]Level)[0], d[2].([2][]Level)[1]) && inflight == nil {
			a, b := venue.levels()
			inflight = &snap{ts: ts, asks: a, bids: b}
		}
	}
	for step := 0; step < 20000; step++ {
		// The venue changes a few levels.
		var da, db []Level
		for k := 0; k < 1+rng.Intn(4); k++ {
			p := 1000 + int64(rng.Intn(60))
			q := int64(rng.Intn(3)) * int64(1+rng.Intn(9))
			da = append(da, Level{Price: p, Qty: q})
			p = 999 - int64(rng.Intn(60))
			db = append(db, Level{Price: p, Qty: int64(rng.Intn(3)) * int64(1+rng.Intn(9))})
		}
		venue.apply(da, db)
		prev, ts = ts, ts+int64(1+rng.Intn(5))
		a, b := venue.levels()
		history[ts] = snap{ts, a, b}
		d := [3]any{ts, prev, [2][]Level{da, db}}
		switch r := rng.Intn(100); {
		case r < 2: // dropped by the network
			dropped++
		case r < 4: // duplicated
			deliver(d)
			deliver(d)
		case r < 6 && held == nil: // held back, delivered after the next
			held = &d
		default:
			deliver(d)
			if held != nil {
				deliver(*held)
				held = nil
			}
		}
		// Snapshots arrive some time after they were taken.
		if inflight != nil && rng.Intn(3) == 0 {
			sn := inflight
			inflight = nil
			if s.Snapshot(sn.ts, sn.asks, sn.bids, false) {
				a, b := venue.levels()
				inflight = &snap{ts: ts, asks: a, bids: b}
			}
		}
		if rng.Intn(500) == 0 {
			s.Reset()
			inflight = nil
		}
		if s.Live() {
			want := history[s.LastTS()]
			if s.LastTS() != want.ts && want.ts != 0 || !equalLevels(s.Book.Asks, want.asks) || !equalLevels(s.Book.Bids, want.bids) {
				t.Fatalf("step %d: live book differs from the venue at ts %d", step, s.LastTS())
			}
		}
	}
	if s.Gaps == 0 || dropped == 0 {
		t.Fatalf("no faults exercised: gaps %d dropped %d", s.Gaps, dropped)
	}
	t.Logf("dropped %d, gaps %d, resyncs %d, crossed %d, applied %d, stale %d", dropped, s.Gaps, s.Resyncs, s.Crossed, s.Applied, s.Dropped)
}

func TestSyncVerify(t *testing.T) {
	var s Sync
	s.Snapshot(100, lv(200, 1, 201, 2), lv(199, 1), false)
	if !s.Verify(90, lv(200, 9), nil, false) || !s.Live() {
		t.Fatal("a snapshot at another ts cannot be compared")
	}
	if !s.Verify(100, lv(200, 1, 201, 2), lv(199, 1), false) || s.Verified != 1 {
		t.Fatal("equal snapshot refused")
	}
	if !s.Verify(100, lv(200, 1), lv(199, 1), true) {
		t.Fatal("a truncated snapshot is compared on what it covers")
	}
	if s.Verify(100, lv(200, 1, 201, 3), lv(199, 1), false) || s.Live() || s.Mismatches != 1 || s.Resyncs != 1 {
		t.Fatalf("corrupt book not caught: %+v", s)
	}
}

func TestSyncVerifyExtendsATruncatedBook(t *testing.T) {
	var s Sync
	s.Snapshot(100, lv(200, 1, 201, 1), lv(199, 1, 198, 1), true) // cut at 201 / 198
	s.Delta(110, 100, lv(205, 3), lv(150, 3))                     // beyond the cut: ignored
	if len(s.Book.Asks) != 2 || s.Book.AskLimit != 201 {
		t.Fatalf("%+v", s.Book)
	}
	// A deeper snapshot at the same ts agrees on 200..201 and knows more.
	if !s.Verify(110, lv(200, 1, 201, 1, 205, 3), lv(199, 1, 198, 1, 150, 3), false) {
		t.Fatal("agreeing deeper snapshot refused")
	}
	if len(s.Book.Asks) != 3 || s.Book.AskLimit != 0 || len(s.Book.Bids) != 3 {
		t.Fatalf("book not extended: %+v", s.Book)
	}
	// A shallower truncated snapshot cannot judge deeper levels.
	if !s.Verify(110, lv(200, 1), lv(199, 1), true) || len(s.Book.Asks) != 3 {
		t.Fatalf("%+v", s.Book)
	}
	if s.Verify(110, lv(200, 1, 201, 1, 205, 4), nil, true) {
		t.Fatal("difference within the common range not caught")
	}
}
