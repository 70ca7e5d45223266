package book

import (
	"reflect"
	"testing"
)

// A truncated snapshot that vouches for exactly the book's depth on one
// side and more on the other extends the book: the equal side keeps its
// levels, the deeper side gains its own.
func TestSyncVerifyEqualDepthOneSide(t *testing.T) {
	for _, asksEqual := range []bool{true, false} {
		var s Sync
		s.Snapshot(100, lv(200, 1, 201, 1), lv(199, 1, 198, 1), true) // cut at 201 / 198
		asks, bids := lv(200, 1, 201, 1), lv(199, 1, 198, 1, 197, 4)
		if !asksEqual {
			asks, bids = lv(200, 1, 201, 1, 202, 4), lv(199, 1, 198, 1)
		}
		if !s.Verify(100, asks, bids, true) {
			t.Fatal("agreeing snapshot refused")
		}
		if !reflect.DeepEqual(s.Book.Asks, asks) || !reflect.DeepEqual(s.Book.Bids, bids) {
			t.Fatalf("asks equal %v: book %v / %v, want the snapshot's %v / %v", asksEqual, s.Book.Asks, s.Book.Bids, asks, bids)
		}
	}
}

// A book uncut on one side (from a full snapshot, then a truncated one
// cut the other side) keeps its depth: a truncated snapshot never judges
// levels beyond its own last one.
func TestSyncVerifyKeepsUncutSide(t *testing.T) {
	var s Sync
	s.Snapshot(100, lv(200, 1, 201, 1, 202, 1, 203, 1), lv(199, 1, 198, 1), false)
	s.Book.BidLimit = 198 // bids known only down to 198
	if !s.Verify(100, lv(200, 1), lv(199, 1, 198, 1, 197, 5), true) {
		t.Fatal("agreeing snapshot refused")
	}
	if len(s.Book.Asks) != 4 || s.Book.AskLimit != 0 {
		t.Fatalf("the uncut asks were cut to the snapshot's depth: %v (limit %d)", s.Book.Asks, s.Book.AskLimit)
	}
}

// Break counts a gap and resyncs.
func TestSyncBreakCountsAGap(t *testing.T) {
	var s Sync
	s.Snapshot(100, lv(200, 1), lv(199, 1), false)
	s.Break()
	if s.Gaps != 1 || s.Live() || s.Resyncs != 1 {
		t.Fatalf("gaps %d live %v resyncs %d", s.Gaps, s.Live(), s.Resyncs)
	}
}

// A repeated delta while buffering is dropped, not taken for a gap.
func TestSyncBufferDropsRepeat(t *testing.T) {
	var s Sync
	s.Delta(110, 100, lv(200, 1), nil)
	s.Delta(110, 100, lv(200, 2), nil)
	if s.Dropped != 1 || s.Gaps != 0 || s.Pending() != 1 {
		t.Fatalf("dropped %d gaps %d pending %d", s.Dropped, s.Gaps, s.Pending())
	}
}
