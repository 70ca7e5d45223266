package hub

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"tradedeck/feed"
	"tradedeck/venue"
)

// TestStalledSessionHoldsOneBoundedUpdate: a session whose screen does not
// read for 3,000 frames holds one Update: the latest book and bbo, the
// newest MaxEvents Events after one saying how many were dropped; a
// session reading at the same time got every frame's data, and both are
// exactly where the hub left them (nothing shared was changed).
func TestStalledSessionHoldsOneBoundedUpdate(t *testing.T) {
	ctx := t.Context()
	h := New(feed.New(feed.Config{Endpoints: venue.Endpoints{BaseURL: "http://127.0.0.1:1"}}))
	symbols := []string{"SPOT_A_USDT", "SPOT_B_USDT", "SPOT_C_USDT"}
	v := feed.View{Symbol: symbols[0], Watchlist: symbols[1:]}
	stalled, reading := h.Join(ctx, v), h.Join(ctx, v)
	got := make(chan int, 1)
	go func() {
		all := 0
		for u := range reading.Updates() {
			events, dropped := countEvents(u.Events)
			all += events + dropped
			if u.Seq == 3000 {
				got <- all
			}
		}
	}()
	for i := uint64(1); i <= 3000; i++ {
		u := busyUpdate(i, symbols)
		h.publish(u)
	}
	select {
	case n := <-got:
		if n != 3000 {
			t.Fatalf("the reading session got or was told of %d of 3000 events", n)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the reading session never saw the last frame")
	}
	// The stalled screen reads at last: its goroutine may still be merging
	// the last frames, so read until the last one.
	st := feed.NewState()
	events, dropped, reads := 0, 0, 0
	deadline := time.After(10 * time.Second)
	for st.Seq != 3000 {
		select {
		case u := <-stalled.Updates():
			reads++
			st.Apply(&u)
			if len(u.Events) > MaxEvents+1 {
				t.Fatalf("an Update with %d events", len(u.Events))
			}
			e, d := countEvents(u.Events)
			events, dropped = events+e, dropped+d
		case <-deadline:
			t.Fatalf("the stalled session never reached the last frame (seq %d)", st.Seq)
		}
	}
	if st.Books[symbols[0]].Version != 3000 || st.BBOs[symbols[2]].TS != 3000 {
		t.Fatalf("not the latest: book v%d bbo ts %d", st.Books[symbols[0]].Version, st.BBOs[symbols[2]].TS)
	}
	if dropped == 0 || events+dropped != 3000 || reads > 10 {
		t.Fatalf("%d reads, %d events delivered, %d reported dropped; want fewer than 3000 delivered, 3000 in all", reads, events, dropped)
	}
	t.Logf("stalled session: %d reads, %d events delivered, %d dropped and reported", reads, events, dropped)
}

// countEvents counts the events delivered and those a notice says were
// dropped.
func countEvents(es []feed.Event) (events, dropped int) {
	for _, e := range es {
		if n, ok := strings.CutSuffix(e.Text, " events dropped: this session fell behind"); ok {
			d, _ := strconv.Atoi(n)
			dropped += d
			continue
		}
		events++
	}
	return events, dropped
}
