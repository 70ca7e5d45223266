package common

import (
	"testing"
	"testing/synctest"
	"time"
)

// A Pacer shows the first value at once, holds the ones that come in the
// same slot of Every (the newest wins) and shows the newest on its tick,
// which arrives when the next slot begins; a tick of another Pacer is not
// its own. In a synctest bubble the tick's wait takes no real time and is
// measured exactly.
func TestPacerBatchesWithinEvery(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		every := 400 * time.Millisecond
		t0 := time.Now().Truncate(every).Add(every) // a slot's start, on the bubble's clock
		time.Sleep(time.Until(t0))
		p := Pacer[int]{Every: every}
		var shown []int
		show := func(v int) { shown = append(shown, v) }
		if cmd := p.Offer(t0, 1, show); cmd != nil || len(shown) != 1 {
			t.Fatalf("first value: shown %v, cmd %v", shown, cmd != nil)
		}
		time.Sleep(100 * time.Millisecond)
		cmd := p.Offer(time.Now(), 2, show)
		if cmd == nil {
			t.Fatal("a held value schedules no tick")
		}
		if again := p.Offer(t0.Add(200*time.Millisecond), 3, show); again != nil {
			t.Fatal("a second tick was scheduled while one is on its way")
		}
		if len(shown) != 1 {
			t.Fatalf("held values were shown: %v", shown)
		}
		other := Pacer[int]{}
		if p.Tick(t0.Add(every), PaceMsg{&other}, show); len(shown) != 1 {
			t.Fatalf("another pacer's tick showed %v", shown)
		}
		msg, ok := cmd().(PaceMsg)
		if !ok {
			t.Fatal("the tick is not a PaceMsg")
		}
		if now := time.Now(); !now.Equal(t0.Add(every)) {
			t.Fatalf("the tick came %v after the first value, want %v (the next slot)", now.Sub(t0), every)
		}
		if p.Tick(time.Now(), msg, show); len(shown) != 2 || shown[1] != 3 {
			t.Fatalf("after the tick shown %v, want [1 3]", shown)
		}
		// Nothing held: the next tick shows nothing; a value after Every shows at once.
		if p.Tick(t0.Add(900*time.Millisecond), msg, show); len(shown) != 2 {
			t.Fatalf("an empty tick showed %v", shown)
		}
		if p.Offer(t0.Add(900*time.Millisecond), 4, show); len(shown) != 3 || shown[2] != 4 {
			t.Fatalf("a value after Every: shown %v", shown)
		}
	})
}

func TestPacerZeroShowsEverything(t *testing.T) {
	var p Pacer[int]
	var shown []int
	now := time.Now()
	for i := range 3 {
		if cmd := p.Offer(now, i, func(v int) { shown = append(shown, v) }); cmd != nil {
			t.Fatal("an unpaced pacer scheduled a tick")
		}
	}
	if len(shown) != 3 {
		t.Fatalf("shown %v", shown)
	}
}

func TestPacerDropForgetsHeld(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		t0 := time.Now().Truncate(time.Second)
		p := Pacer[int]{Every: time.Second}
		var shown []int
		show := func(v int) { shown = append(shown, v) }
		p.Offer(t0, 1, show)
		cmd := p.Offer(t0, 2, show)
		p.Drop()
		p.Tick(t0.Add(time.Second), cmd().(PaceMsg), show)
		if len(shown) != 1 {
			t.Fatalf("a dropped value was shown: %v", shown)
		}
	})
}

// Pacers share the wall clock's slots: two panes that last drew at
// different moments show what they hold at the same instant, the slot's
// end, not Every after each one's last redraw.
func TestPacersShareSlots(t *testing.T) {
	every := 400 * time.Millisecond
	t0 := time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC).Truncate(every)
	book, tape := Pacer[int]{Every: every}, Pacer[int]{Every: every}
	show := func(int) {}
	book.Offer(t0.Add(50*time.Millisecond), 1, show)
	tape.Offer(t0.Add(300*time.Millisecond), 1, show)
	now := t0.Add(350 * time.Millisecond)
	if b, tp := book.holdFor(now), tape.holdFor(now); b != 50*time.Millisecond || tp != b {
		t.Fatalf("book holds %v, tape %v: both should show at the slot's end, 50ms on", b, tp)
	}
	if w := book.holdFor(t0.Add(every)); w != 0 {
		t.Fatalf("in the next slot the book still holds for %v", w)
	}
}
