package alerts

import (
	"context"
	"fmt"
)

// Outcome is what became of one firing on the account's side: recorded,
// and its action done, refused or left to another process.
type Outcome struct {
	Fired Fired
	// Text is the one line a trader reads: "alert 3: paused algo #12",
	// "alert 3: pause #12 refused: algo #12 is done: not acted on".
	Text string
	// Err is why the action was refused or failed (nil: done, or none).
	Err error
	// Elsewhere: another process sharing the alerts file took this
	// firing first (or an earlier run did): nothing was done here.
	Elsewhere bool
}

// Doer records one firing and does its action, on the Acts' goroutine
// (it may wait for the venue): the host's side of an alert that acts.
type Doer func(ctx context.Context, f Fired) Outcome

// Acts runs the account's side of what fired, one firing at a time, off
// the feed's goroutines: each firing is recorded, and its action (if
// any) done once; the outcome of every action is shown like a firing.
type Acts struct {
	do Doer
	d  *Deliverer
	q  chan Fired
}

// ActsQueue bounds the firings waiting for the account's side; beyond it
// a firing is neither recorded nor acted on, and that is shown.
const ActsQueue = 256

// NewActs returns the runner of do; its outcomes go to d. Call Run.
func NewActs(do Doer, d *Deliverer) *Acts {
	return &Acts{do: do, d: d, q: make(chan Fired, ActsQueue)}
}

// Queue hands one firing to the runner; it never blocks (it runs on the
// feed's goroutines, from Options.OnFire).
func (a *Acts) Queue(f Fired) {
	select {
	case a.q <- f:
	default:
		what := "not recorded"
		if f.Action != nil {
			what = "its action (" + f.Action.String() + ") not done"
		}
		a.d.note(Note{Level: NoteError, Show: true, Text: fmt.Sprintf("alert %d: %s: too many firings at once", f.Alert, what)})
	}
}

// Run does the queued firings until ctx ends.
func (a *Acts) Run(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case f := <-a.q:
			o := a.do(ctx, f)
			if f.Action != nil || o.Err != nil {
				a.d.Acted(o)
			}
		}
	}
}

// Acted shows an action's outcome on the screen's notice channel (and as
// a line headless), whatever the channels: a trader must see what an
// alert did to an algo.
func (d *Deliverer) Acted(o Outcome) {
	level := NoteAction
	if o.Err != nil {
		level = NoteError
	}
	d.note(Note{Level: level, Show: true, Text: o.Text, Fired: &o.Fired, Outcome: &o})
}
