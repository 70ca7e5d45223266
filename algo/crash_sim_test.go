package algo

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"tradedeck/venue"
)

// A stop armed by an engine that then dies (no cleanup: the journal is
// all that is left); the market crosses the stop while no engine runs; a
// new engine on the same database fires it at once on start, says why
// (the trade that crossed, while no engine ran), and sends it once.
func TestCrashAfterArmingFiresOnRestart(t *testing.T) {
	h := newHarness(t, hopts{})
	const sym = "PERP_ETH_USDT"
	a, trig := h.armStop(sym)
	trigger := dec(trig)
	h.crash()
	h.sweep(sym, venue.Sell, trigger.Sub(dec("0.5")).String(), "50")
	h.quote(sym, venue.Buy, trigger.Add(dec("1")).String(), "20") // and back above the stop: only the trades tell
	h.start(hopts{})
	got := h.waitState(a.ID, StateDone)
	if got.Fired == nil || !strings.Contains(got.Fired.Why, "crossed while no engine ran") {
		t.Fatalf("firing %+v", got.Fired)
	}
	if n := len(h.sent(a.ID)); n != 1 {
		t.Fatalf("%d sent, want 1", n)
	}
	if p := h.position(sym); !p.IsZero() {
		t.Fatalf("position %s", p)
	}
}

// crashingVenue kills the engine around its first exit send: before the
// order leaves (after it was journaled), or right after the venue took
// it. The dead engine's goroutine never comes back.
type crashingVenue struct {
	Venue
	before bool
	once   sync.Once
	dead   chan struct{} // closed when the engine "died"
	never  chan struct{}
}

func (c *crashingVenue) SendOrder(ctx context.Context, r venue.OrderRequest) (venue.OrderAck, error) {
	if r.Type != venue.Market {
		return c.Venue.SendOrder(ctx, r)
	}
	var ack venue.OrderAck
	var err error
	died := false
	c.once.Do(func() {
		died = true
		if !c.before {
			ack, err = c.Venue.SendOrder(ctx, r)
		}
		close(c.dead)
	})
	if died {
		<-c.never
		return ack, err
	}
	return c.Venue.SendOrder(ctx, r)
}

func testCrashAtExit(t *testing.T, before bool) {
	cv := &crashingVenue{before: before, dead: make(chan struct{}), never: make(chan struct{})}
	h := newHarness(t, hopts{venueWrap: func(v Venue) Venue { cv.Venue = v; return cv }})
	t.Cleanup(func() { close(cv.never) })
	const sym = "PERP_ETH_USDT"
	a, trig := h.armStop(sym)
	trigger := dec(trig)
	h.sweep(sym, venue.Sell, trigger.Sub(dec("0.5")).String(), "50")
	select {
	case <-cv.dead:
	case <-time.After(10 * time.Second):
		t.Fatal("the stop did not fire")
	}
	h.crash()
	h.sweep(sym, venue.Sell, trigger.Sub(dec("2")).String(), "20") // the market moves on meanwhile
	h.start(hopts{})
	got := h.waitState(a.ID, StateDone)
	sent := h.sent(a.ID)
	if len(sent) != 1 || sent[0].Get("order_quantity") != "0.5" || sent[0].Get("reduce_only") != "true" {
		t.Fatalf("sent %v, want one exit of 0.5", sent)
	}
	if p := h.position(sym); !p.IsZero() {
		t.Fatalf("position %s", p)
	}
	// The database and the venue agree: one child, final, filled.
	if len(got.Children) != 1 && !before {
		t.Fatalf("children %+v", got.Children)
	}
	var filled int
	for _, c := range got.Children {
		switch c.Status {
		case "FILLED":
			filled++
		case ChildNotSent:
		default:
			t.Fatalf("child %+v", c)
		}
	}
	if filled != 1 {
		t.Fatalf("children %+v", got.Children)
	}
	rows, err := h.st.Children(int64(a.ID))
	if err != nil || len(rows) != len(got.Children) {
		t.Fatalf("database children %+v: %v", rows, err)
	}
}

// Killed right after the exit reached the venue: the new engine finds it
// filled by its client order id and the position flat; nothing is sent
// again.
func TestCrashAfterExitSentFindsItDone(t *testing.T) { testCrashAtExit(t, false) }

// Killed after the exit was journaled but before it left: the new engine
// finds no order with its client order id, reads the position, and
// sends the exit once, with the next attempt's id.
func TestCrashBeforeExitLeftSendsItOnce(t *testing.T) { testCrashAtExit(t, true) }
