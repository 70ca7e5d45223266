package common

import (
	"time"

	tea "charm.land/bubbletea/v2"
)

// Pacer holds back a pane's newest data so that the pane redraws it at
// most once per Every (0: at once). Panes whose rows all move with each
// market change (the tape, the book's levels) resend their whole area
// per redraw; on a remote screen, batching the changes a few times a
// second sends a fraction of the bytes while the newest data still shows
// within Every.
//
// The periods are slots of the wall clock (multiples of Every), the same
// for every Pacer and for the screen's paced reads of the feed (ui's
// waitPaced): what a slot brings is drawn in one frame, not in one frame
// per pane.
type Pacer[T any] struct {
	Every   time.Duration
	pending T
	held    bool
	drawn   time.Time
	armed   bool
}

// PaceMsg is the tick that shows what a Pacer held back; the pane passes
// it to Tick. Its Pacer tells whose it is.
type PaceMsg struct{ Pacer any }

// Offer shows v (show is called) unless one was already shown in this
// slot: then v is held, the newest winning, and a PaceMsg is scheduled
// for the next slot to show it.
func (p *Pacer[T]) Offer(now time.Time, v T, show func(T)) tea.Cmd {
	if wait := p.holdFor(now); wait > 0 {
		p.pending, p.held = v, true
		if p.armed {
			return nil
		}
		p.armed = true
		return tea.Tick(wait, func(time.Time) tea.Msg { return PaceMsg{p} })
	}
	var zero T
	p.pending, p.held, p.drawn = zero, false, now
	show(v)
	return nil
}

// holdFor is how long until the next slot when one was already shown in
// this one, 0 when a value may show now.
func (p *Pacer[T]) holdFor(now time.Time) time.Duration {
	if p.Every <= 0 || p.drawn.IsZero() {
		return 0
	}
	slot := now.Truncate(p.Every)
	if slot.After(p.drawn.Truncate(p.Every)) {
		return 0
	}
	return slot.Add(p.Every).Sub(now)
}

// Tick shows what was held back, if msg is this Pacer's.
func (p *Pacer[T]) Tick(now time.Time, msg PaceMsg, show func(T)) tea.Cmd {
	if msg.Pacer != any(p) {
		return nil
	}
	p.armed = false
	if !p.held {
		return nil
	}
	return p.Offer(now, p.pending, show)
}

// Drop forgets what is held back (the pane shows something else now).
func (p *Pacer[T]) Drop() {
	var zero T
	p.pending, p.held = zero, false
}
