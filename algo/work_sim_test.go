package algo

import (
	"context"
	"net/url"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"tradedeck/feed"
	"tradedeck/venue"
)

// sentAt is sent with the moment each order reached the venue.
func (h *harness) sentAt(id ID) ([]url.Values, []time.Time) {
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []url.Values
	var at []time.Time
	for i, v := range h.orders {
		cid, _ := strconv.ParseInt(v.Get("client_order_id"), 10, 64)
		if gid, _, _, ok := ParseClientOrderID(h.st.ClientIDPrefix(), cid); ok && gid == id {
			out = append(out, v)
			at = append(at, h.at[i])
		}
	}
	return out, at
}

// progress is a working order's Progress now.
func (h *harness) progress(id ID) Progress {
	a, _ := h.eng.Get(id)
	if a.Work == nil {
		h.t.Fatalf("algo %d has no progress", id)
	}
	return *a.Work
}

// noDoubles fails when a client order id reached the venue twice.
func (h *harness) noDoubles(id ID) {
	h.t.Helper()
	seen := map[string]bool{}
	for _, v := range h.sent(id) {
		cid := v.Get("client_order_id")
		if seen[cid] {
			h.t.Fatalf("client order id %s sent twice", cid)
		}
		seen[cid] = true
	}
}

// waitPeg waits until the chase rests at price (the venue acknowledged
// the order).
func (h *harness) waitPeg(id ID, price decimal.Decimal) {
	h.t.Helper()
	h.eventually("the chase pegged at "+price.String(), 10*time.Second, func() bool {
		return h.progress(id).Peg.Equal(price) && h.resting(id) == 1
	})
}

// resting counts an algo's children the venue acknowledged and that are
// still open.
func (h *harness) resting(id ID) int {
	a, _ := h.eng.Get(id)
	n := 0
	for _, c := range a.Children {
		if c.Status == "NEW" || c.Status == "PARTIAL_FILLED" {
			n++
		}
	}
	return n
}

// chaseAtBid starts a chase buying 0.05 (leash 10 above the bid) and
// waits until it rests at the best bid; it returns the position before.
func (h *harness) chaseAtBid(sym string) (Algo, decimal.Decimal, decimal.Decimal) {
	h.t.Helper()
	pos0 := h.position(sym)
	bid, _ := h.book(sym)
	a := h.add("chase "+sym+" buy 0.05 leash "+bid.Add(dec("10")).String(), Confirm{})
	h.waitFresh(sym, SourceBid)
	h.waitPeg(a.ID, bid)
	return a, bid, pos0
}

// A chase joins the best bid, follows it up as the mover raises it, rests
// at its leash when the bid goes past it (never above), and fills there:
// the whole quantity, nothing more.
func TestChaseFollowsTheBidNeverPastItsLeash(t *testing.T) {
	h := newHarness(t, hopts{})
	const sym = "PERP_ETH_USDT"
	pos0 := h.position(sym)
	bid, ask := h.book(sym)
	step := func(f string) decimal.Decimal { return bid.Add(ask.Sub(bid).Mul(dec(f)).Round(2)) } // inside the spread
	leash := step("0.6")
	a := h.add("chase "+sym+" buy 0.05 leash "+leash.String(), Confirm{})
	if a.State != StateWorking || a.Work == nil || !a.Work.Leash.Equal(leash) {
		t.Fatalf("added %+v", a)
	}
	h.waitFresh(sym, SourceBid)
	h.waitPeg(a.ID, bid)
	for _, up := range []string{"0.2", "0.4"} {
		h.quote(sym, venue.Buy, step(up).String(), "0.2")
		h.waitPeg(a.ID, step(up))
	}
	h.quote(sym, venue.Buy, step("0.8").String(), "0.2") // past the leash
	h.waitPeg(a.ID, leash)
	if p := h.progress(a.ID); p.Reprices < 3 || !p.LeashDistance.IsNegative() {
		t.Fatalf("progress %+v", p)
	}
	for _, o := range h.sent(a.ID) {
		if dec(o.Get("order_price")).GreaterThan(leash) {
			t.Fatalf("sent %v above the leash %s", o, leash)
		}
	}
	if n := len(h.openOrders(sym)); n != 1 {
		t.Fatalf("%d open orders of the account, want the chase's one", n)
	}
	h.sweep(sym, venue.Sell, leash.String(), "0.25") // the mover's 0.2 above, then the chase
	h.waitState(a.ID, StateDone)
	if got := h.position(sym).Sub(pos0); !got.Equal(dec("0.05")) {
		t.Fatalf("position moved by %s, want 0.05\n%s", got, h.events.text(a.ID))
	}
	h.noDoubles(a.ID)
}

// fillingVenue fills part of a chase's order (the mover takes it) just
// before the engine's cancel of it reaches the venue: the fill races the
// re-price.
type fillingVenue struct {
	Venue
	h     *harness
	armed atomic.Bool
	price atomic.Value // decimal.Decimal: the order's price
}

func (f *fillingVenue) CancelOrderByClientID(ctx context.Context, symbol string, cid int64) error {
	if _, leg, _, _ := ParseClientOrderID(f.h.st.ClientIDPrefix(), cid); leg == LegWork && f.armed.CompareAndSwap(true, false) {
		p := f.price.Load().(decimal.Decimal)
		// The mover's 0.1 above the chase and its 0.1 ahead of it at its
		// price first, then 0.02 of the chase.
		_, _ = f.h.mover.SendOrder(context.Background(), venue.OrderRequest{Symbol: symbol, Type: venue.IOC, Side: venue.Sell, Price: p, Quantity: dec("0.22")})
	}
	return f.Venue.CancelOrderByClientID(ctx, symbol, cid)
}

func TestChaseFillDuringRepriceNeverOverfills(t *testing.T) {
	fv := &fillingVenue{}
	h := newHarness(t, hopts{venueWrap: func(v Venue) Venue { fv.Venue = v; return fv }})
	fv.h = h
	const sym = "PERP_ETH_USDT"
	a, bid, pos0 := h.chaseAtBid(sym)
	// The chase joins a level of its own, behind the mover's 0.1 there.
	lvl := bid.Add(dec("0.2"))
	h.quote(sym, venue.Buy, lvl.String(), "0.1")
	h.waitPeg(a.ID, lvl)
	fv.price.Store(lvl)
	fv.armed.Store(true)
	h.quote(sym, venue.Buy, bid.Add(dec("0.4")).String(), "0.1") // the re-price; its cancel races a fill
	h.eventually("the re-price after the fill", 10*time.Second, func() bool {
		p := h.progress(a.ID)
		return p.Filled.Equal(dec("0.02")) && h.resting(a.ID) == 1 && len(h.sent(a.ID)) == 3
	})
	sent := h.sent(a.ID)
	last := sent[len(sent)-1]
	if q := dec(last.Get("order_quantity")); !q.Equal(dec("0.03")) {
		t.Fatalf("re-placed %s after 0.02 filled, want 0.03: %v", q, last)
	}
	_, ask := h.book(sym)
	h.sweep(sym, venue.Sell, decimal.Min(ask, dec(last.Get("order_price"))).Sub(dec("5")).String(), "50")
	h.waitState(a.ID, StateDone)
	if got := h.position(sym).Sub(pos0); !got.Equal(dec("0.05")) {
		t.Fatalf("position moved by %s, want exactly 0.05\n%s", got, h.events.text(a.ID))
	}
	h.noDoubles(a.ID)
}

// A ladder of 25 lands every rung on the grid with the sizes the preview
// listed, each sent once; cancelling it leaves nothing open.
func TestScaleOf25LandsThePreview(t *testing.T) {
	h := newHarness(t, hopts{})
	const sym = "PERP_ETH_USDT"
	bid, _ := h.book(sym)
	line := "scale " + sym + " buy 0.5 from " + bid.Sub(dec("1.003")).String() + " to " + bid.Sub(dec("12")).String() + " count 25 skew linear 2 post"
	s, err := Parse(line)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := h.eng.Preview(Spec{Kind: KindScale, Symbol: sym, Work: Work{Side: "BUY", Quantity: dec("0.05"), From: bid.Sub(dec("1")), To: bid.Sub(dec("9")), Count: 25}}); err == nil ||
		!strings.Contains(err.Error(), "minimum notional") {
		t.Fatalf("a ladder of 0.002 rungs: %v, want refused below the minimum notional", err)
	}
	p, err := h.eng.Preview(s)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Work.Orders) != 25 {
		t.Fatalf("preview lists %d orders", len(p.Work.Orders))
	}
	a, err := h.eng.Add(s, Confirm{})
	if err != nil {
		t.Fatal(err)
	}
	h.eventually("25 rungs resting", 15*time.Second, func() bool { return h.resting(a.ID) == 25 })
	sent := h.sent(a.ID)
	if len(sent) != 25 {
		t.Fatalf("%d orders sent, want 25", len(sent))
	}
	for i, o := range sent {
		want := p.Work.Orders[i]
		if !dec(o.Get("order_price")).Equal(want.Price) || !dec(o.Get("order_quantity")).Equal(want.Quantity) || o.Get("order_type") != "POST_ONLY" {
			t.Fatalf("rung %d sent %v, previewed %+v", i, o, want)
		}
	}
	if err := h.eng.Cancel(a.ID, ""); err != nil {
		t.Fatal(err)
	}
	if n := len(h.openOrders(sym)); n != 0 {
		t.Fatalf("%d orders left open after the cancel", n)
	}
	h.noDoubles(a.ID)
}

// scaledClock runs speed times faster than the wall clock from base.
func scaledClock(speed float64) *workClock {
	base := time.Now()
	return &workClock{speed: speed, now: func() time.Time {
		return base.Add(time.Duration(float64(time.Since(base)) * speed))
	}}
}

// A 10-minute TWAP (a clock 30x the wall's) fills its total within its
// bound; killed (-9) after some slices and down for 2 minutes of its
// clock, it resumes on restart with its catch-up policy: the overdue
// quantity spread over the remaining slices, never two slices at once,
// no slice sent twice.
func TestTWAPFillsWithinItsBoundAndResumesAfterAStall(t *testing.T) {
	clock := scaledClock(30)
	o := hopts{work: clock}
	h := newHarness(t, o)
	const sym = "PERP_ETH_USDT"
	pos0 := h.position(sym)
	_, ask := h.book(sym)
	bound := ask.Add(dec("5"))
	a := h.add("twap "+sym+" buy 0.2 over 10m slices 20 jitter 10% limit "+bound.String(), Confirm{})
	h.waitFresh(sym, SourceAsk)
	h.eventually("6 slices", 20*time.Second, func() bool { return h.progress(a.ID).SlicesDone >= 6 })
	h.crash()
	time.Sleep(4 * time.Second) // 2 minutes of the TWAP's clock
	h.start(o)
	h.waitFresh(sym, SourceAsk)
	got := h.waitStateWithin(a.ID, StateDone, 40*time.Second)
	if !got.Work.Filled.Equal(dec("0.2")) || !h.position(sym).Sub(pos0).Equal(dec("0.2")) {
		t.Fatalf("filled %s, position moved %s\n%s", got.Work.Filled, h.position(sym).Sub(pos0), h.events.text(a.ID))
	}
	sent, at := h.sentAt(a.ID)
	for i, o := range sent {
		if o.Get("order_type") != "IOC" || dec(o.Get("order_price")).GreaterThan(bound) {
			t.Fatalf("slice %d sent %v beyond the bound %s", i, o, bound)
		}
		if i > 0 && at[i].Sub(at[i-1]) < 400*time.Millisecond { // half a slice's 1 s interval, less the jitter
			t.Fatalf("slices %d and %d %s apart: a burst\n%s", i-1, i, at[i].Sub(at[i-1]), h.events.text(a.ID))
		}
	}
	if !strings.Contains(h.events.text(a.ID), "slices missed") {
		t.Fatalf("the stall was not reported:\n%s", h.events.text(a.ID))
	}
	h.noDoubles(a.ID)
}

// waitStateWithin is waitState with its own bound.
func (h *harness) waitStateWithin(id ID, st State, d time.Duration) Algo {
	h.t.Helper()
	h.eventually("algo "+strconv.Itoa(int(id))+" "+st.String(), d, func() bool { return h.state(id) == st })
	a, _ := h.eng.Get(id)
	return a
}

// kill -9 during a chase: the restarted engine adopts the resting order
// by its client order id (nothing sent for it), follows the bid from
// there, and fills the quantity once.
func TestChaseSurvivesKill9(t *testing.T) {
	h := newHarness(t, hopts{})
	const sym = "PERP_ETH_USDT"
	a, bid, pos0 := h.chaseAtBid(sym)
	h.crash()
	h.quote(sym, venue.Buy, bid.Add(dec("1")).String(), "0.1") // moved while no engine ran
	before := len(h.sent(a.ID))
	h.start(hopts{})
	h.waitFresh(sym, SourceBid)
	h.waitPeg(a.ID, bid.Add(dec("1")))
	if n := len(h.sent(a.ID)) - before; n != 1 {
		t.Fatalf("%d orders sent after the restart, want the one re-price", n)
	}
	if n := len(h.openOrders(sym)); n != 1 {
		t.Fatalf("%d open orders, want 1", n)
	}
	h.sweep(sym, venue.Sell, bid.String(), "0.2")
	h.waitState(a.ID, StateDone)
	if got := h.position(sym).Sub(pos0); !got.Equal(dec("0.05")) {
		t.Fatalf("position moved by %s, want 0.05", got)
	}
	h.noDoubles(a.ID)
}

// Pause cancels the chase's order (final state known) and sends nothing
// while paused; Resume works the book again.
func TestPauseAndResumeAChase(t *testing.T) {
	h := newHarness(t, hopts{})
	const sym = "PERP_ETH_USDT"
	a, bid, _ := h.chaseAtBid(sym)
	if err := h.eng.Pause(a.ID, "alert 3"); err != nil {
		t.Fatal(err)
	}
	if st := h.state(a.ID); st != StatePaused || len(h.openOrders(sym)) != 0 {
		t.Fatalf("paused: %s with %d open orders", st, len(h.openOrders(sym)))
	}
	n := len(h.sent(a.ID))
	h.quote(sym, venue.Buy, bid.Add(dec("1")).String(), "0.1")
	time.Sleep(500 * time.Millisecond)
	if len(h.sent(a.ID)) != n {
		t.Fatal("a paused chase sent an order")
	}
	if err := h.eng.Resume(a.ID); err != nil {
		t.Fatal(err)
	}
	h.waitFresh(sym, SourceBid)
	h.waitPeg(a.ID, bid.Add(dec("1")))
	if err := h.eng.Pause(1_000_000, ""); err == nil {
		t.Fatal("paused an algo that does not exist")
	}
	h.noDoubles(a.ID)
}

// With a chaser re-pricing as fast as the venue's rate limit allows (the
// mover raises the bid a tick twice a second, as fast as the venue lets
// it; orders are 2 a second per symbol and account), a stop on the same
// account and symbol still fires at once: working orders never take the
// budget's last slot, so the stop finds one.
func TestStopFiresPromptlyWhileAChaserSpendsTheBudget(t *testing.T) {
	h := newHarness(t, hopts{rateLimits: true})
	const sym = "PERP_ETH_USDT"
	stop, trig := h.armStop(sym)
	bid, ask := h.book(sym)
	c := h.add("chase "+sym+" buy 0.01 leash "+ask.Sub(dec("0.02")).String(), Confirm{})
	h.waitPeg(c.ID, bid)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		for px := bid.Add(dec("0.01")); px.LessThan(ask.Sub(dec("0.05"))); px = px.Add(dec("0.01")) {
			select {
			case <-ctx.Done():
				return
			case <-time.After(550 * time.Millisecond):
			}
			_, _ = h.mover.SendOrder(ctx, venue.OrderRequest{Symbol: sym, Type: venue.Limit, Side: venue.Buy, Price: px, Quantity: dec("0.01")})
		}
	}()
	time.Sleep(3 * time.Second)
	busy := h.progress(c.ID).Reprices
	h.eventually("the mover's sweep through the stop", 5*time.Second, func() bool {
		_, err := h.mover.SendOrder(context.Background(), venue.OrderRequest{Symbol: sym, Type: venue.IOC, Side: venue.Sell,
			Price: dec(trig).Sub(dec("0.5")), Quantity: dec("50")})
		return err == nil // the mover has its own rate limit
	})
	got := h.waitState(stop.ID, StateDone)
	cancel()
	<-done
	_, at := h.sentAt(stop.ID)
	if got.Fired == nil || len(at) == 0 {
		t.Fatalf("stop %+v sent %d", got, len(at))
	}
	wire := at[0].Sub(got.Fired.At)
	t.Logf("chase re-priced %d times in 3 s; the stop's order reached the venue %s after its trigger", busy, wire)
	if busy < 2 {
		t.Fatalf("the chaser re-priced only %d times: the budget was not busy", busy)
	}
	if wire > 300*time.Millisecond {
		t.Fatalf("the stop waited %s for the rate limit behind the chaser", wire)
	}
}

// workCrashVenue kills the engine around a working order's second send
// (a ladder's second rung): before it leaves (journaled only) or right
// after the venue took it. The dead engine's goroutine never comes back.
type workCrashVenue struct {
	Venue
	before bool
	n      atomic.Int32
	dead   chan struct{}
	never  chan struct{}
}

func (c *workCrashVenue) SendOrder(ctx context.Context, r venue.OrderRequest) (venue.OrderAck, error) {
	if c.n.Add(1) != 2 {
		return c.Venue.SendOrder(ctx, r)
	}
	var ack venue.OrderAck
	var err error
	if !c.before {
		ack, err = c.Venue.SendOrder(ctx, r)
	}
	close(c.dead)
	<-c.never
	return ack, err
}

func testScaleCrashAtSend(t *testing.T, before bool) {
	cv := &workCrashVenue{before: before, dead: make(chan struct{}), never: make(chan struct{})}
	h := newHarness(t, hopts{venueWrap: func(v Venue) Venue { cv.Venue = v; return cv }})
	t.Cleanup(func() { close(cv.never) })
	const sym = "PERP_ETH_USDT"
	bid, _ := h.book(sym)
	a := h.add("scale "+sym+" buy 0.03 from "+bid.Sub(dec("5")).String()+" to "+bid.Sub(dec("7")).String()+" count 3", Confirm{})
	select {
	case <-cv.dead:
	case <-time.After(10 * time.Second):
		t.Fatal("the second rung was never sent")
	}
	h.crash()
	h.start(hopts{})
	h.eventually("3 rungs open on the venue", 10*time.Second, func() bool { return len(h.openOrders(sym)) == 3 })
	// Before: the journaled rung never left and is sent once, with the next
	// attempt's id; after: it is adopted. Either way 3 orders reached the
	// venue, one per rung.
	time.Sleep(300 * time.Millisecond)
	if n := len(h.sent(a.ID)); n != 3 {
		t.Fatalf("%d orders reached the venue, want 3", n)
	}
	if p := h.progress(a.ID); p.OrdersOpen != 3 {
		t.Fatalf("the engine holds %d rungs open", p.OrdersOpen)
	}
	h.noDoubles(a.ID)
}

// Killed after a rung was journaled, before it left: the restart finds no
// order with its client order id and places the rung once.
func TestScaleCrashBeforeSendPlacesTheRungOnce(t *testing.T) { testScaleCrashAtSend(t, true) }

// Killed right after the venue took a rung: the restart adopts it by its
// client order id and sends nothing for it.
func TestScaleCrashAfterSendAdoptsTheRung(t *testing.T) { testScaleCrashAtSend(t, false) }

// crossingVenue makes a chase's first POST_ONLY order cross: just before
// it reaches the venue the mover sells into its price and rests the rest
// there, so the venue cancels the order for taking liquidity.
type crossingVenue struct {
	Venue
	h    *harness
	once atomic.Bool
}

func (c *crossingVenue) SendOrder(ctx context.Context, r venue.OrderRequest) (venue.OrderAck, error) {
	if r.Type == venue.PostOnly && c.once.CompareAndSwap(false, true) {
		_, _ = c.h.mover.SendOrder(context.Background(), venue.OrderRequest{Symbol: r.Symbol, Type: venue.Limit, Side: venue.Sell, Price: r.Price, Quantity: dec("50")})
	}
	return c.Venue.SendOrder(ctx, r)
}

// A POST_ONLY chase refused for crossing is placed once more, a tick
// behind the best, and rests there: not a loop of refusals.
func TestChasePostOnlyRefusedIsRepricedNotLooped(t *testing.T) {
	cv := &crossingVenue{}
	h := newHarness(t, hopts{venueWrap: func(v Venue) Venue { cv.Venue = v; return cv }})
	cv.h = h
	const sym = "PERP_ETH_USDT"
	bid, _ := h.book(sym)
	a := h.add("chase "+sym+" buy 0.05 leash "+bid.Add(dec("10")).String()+" post", Confirm{})
	h.waitFresh(sym, SourceBid)
	// The refused order is NEW for a moment (the REST ack) before the
	// stream's cancel: wait for the second order, then look for a third.
	h.eventually("the re-placed order resting", 10*time.Second, func() bool { return len(h.sent(a.ID)) >= 2 && h.resting(a.ID) == 1 })
	time.Sleep(500 * time.Millisecond)
	sent := h.sent(a.ID)
	if len(sent) != 2 {
		t.Fatalf("%d orders sent, want the refused one and one more\n%s", len(sent), h.events.text(a.ID))
	}
	first, second := dec(sent[0].Get("order_price")), dec(sent[1].Get("order_price"))
	nbid, _ := h.book(sym)
	if !second.LessThan(first) || !second.LessThan(nbid.Add(dec("0.01"))) {
		t.Fatalf("re-placed at %s after %s was refused (bid now %s)", second, first, nbid)
	}
	g, _ := h.eng.Get(a.ID)
	if g.Children[0].Status != "CANCELLED" || g.State != StateWorking {
		t.Fatalf("%s: children %+v", g.State, g.Children)
	}
}

// blindPrivate hides the private stream from the engine until see: no
// order news and the stream not yet live, as when the engine sends before
// its feed's first connect (whose reconciliation reports nothing as news).
type blindPrivate struct {
	*Engine
	seeing atomic.Bool
}

func (b *blindPrivate) ObserveOrder(o feed.Order) {
	if b.seeing.Load() {
		b.Engine.ObserveOrder(o)
	}
}

func (b *blindPrivate) ObserveHealth(h feed.Health) {
	if h.Stream != feed.StreamPrivate || b.seeing.Load() {
		b.Engine.ObserveHealth(h)
	}
}

func (b *blindPrivate) see() {
	b.seeing.Store(true)
	b.Engine.ObserveHealth(feed.Health{Stream: feed.StreamPrivate, State: feed.Connected})
}

// A chase's order refused while the private stream was not yet live (its
// cancel never carried) is read from REST soon after the stream turns
// live, not after the quiet period of the polls (10 s): the chase goes on.
func TestChaseReadsWhatThePrivateStreamNeverCarried(t *testing.T) {
	cv := &crossingVenue{}
	var bp *blindPrivate
	h := newHarness(t, hopts{venueWrap: func(v Venue) Venue { cv.Venue = v; return cv },
		observer: func(e *Engine) feed.Observer { bp = &blindPrivate{Engine: e}; return bp }})
	cv.h = h
	const sym = "PERP_ETH_USDT"
	bid, _ := h.book(sym)
	a := h.add("chase "+sym+" buy 0.05 leash "+bid.Add(dec("10")).String()+" post", Confirm{})
	h.waitFresh(sym, SourceBid)
	h.eventually("the venue's refusal", 10*time.Second, func() bool {
		sent := h.sent(a.ID)
		if len(sent) == 0 {
			return false
		}
		cid, _ := strconv.ParseInt(sent[0].Get("client_order_id"), 10, 64)
		o, err := h.client.GetOrderByClientID(context.Background(), cid)
		return err == nil && o.Status == venue.StatusCancelled
	})
	time.Sleep(time.Second)
	if n := len(h.sent(a.ID)); n != 1 {
		t.Fatalf("%d orders sent while the engine saw no stream, want 1", n)
	}
	bp.see()
	// the event follows the send's answer: wait for both
	h.eventually("the order placed again after the stream turned live", 4*time.Second, func() bool {
		return len(h.sent(a.ID)) == 2 && strings.Contains(h.events.text(a.ID), "refused the POST_ONLY order for crossing")
	})
	if n := len(h.sent(a.ID)); n != 2 {
		t.Fatalf("%d orders sent, want 2\n%s", n, h.events.text(a.ID))
	}
}

// A chase resumed in a quiet market (the venue pushes no bbo while
// nothing changes, so the stream's best is older than MaxAge) places its
// order at once at the best the venue's book shows, not on the next change
// of the book.
func TestChaseInAQuietMarketPlacesFromTheBook(t *testing.T) {
	h := newHarness(t, hopts{})
	const sym = "PERP_ETH_USDT"
	a, bid, _ := h.chaseAtBid(sym)
	if err := h.eng.Pause(a.ID, "a quiet moment"); err != nil {
		t.Fatal(err)
	}
	h.eventually("a stale best", 5*time.Second, func() bool {
		h.eng.mu.Lock()
		defer h.eng.mu.Unlock()
		_, _, fresh := h.eng.bySym[sym].price(SourceBid, time.Now(), h.eng.cfg.MaxAge)
		return !fresh
	})
	if err := h.eng.Resume(a.ID); err != nil {
		t.Fatal(err)
	}
	h.eventually("the order back at the bid", 3*time.Second, func() bool { return h.progress(a.ID).Peg.Equal(bid) && h.resting(a.ID) == 1 })
	if n := len(h.sent(a.ID)); n != 2 {
		t.Fatalf("%d orders sent, want 2", n)
	}
}

// A TWAP whose bound the market is past pauses (saying why), sends
// nothing, and works again by itself once the market is back inside.
func TestTWAPPausesOutsideItsBound(t *testing.T) {
	o := hopts{work: scaledClock(30)}
	h := newHarness(t, o)
	const sym = "PERP_ETH_USDT"
	bid, ask := h.book(sym)
	bound := bid.Add(ask.Sub(bid).Div(dec("2"))).Round(2) // inside the spread: the ask is past it
	a := h.add("twap "+sym+" buy 0.02 over 1m slices 2 limit "+bound.String(), Confirm{})
	h.waitFresh(sym, SourceAsk)
	got := h.waitState(a.ID, StatePaused)
	if !strings.Contains(got.Reason, "beyond the limit") || len(h.sent(a.ID)) != 0 {
		t.Fatalf("paused %q after %d orders", got.Reason, len(h.sent(a.ID)))
	}
	h.quote(sym, venue.Sell, bound.String(), "1") // the ask comes back to the bound
	h.waitState(a.ID, StateDone)
	for _, v := range h.sent(a.ID) {
		if dec(v.Get("order_price")).GreaterThan(bound) {
			t.Fatalf("sent %v past the bound %s", v, bound)
		}
	}
	if p := h.progress(a.ID); !p.Filled.Equal(dec("0.02")) {
		t.Fatalf("filled %s\n%s", p.Filled, h.events.text(a.ID))
	}
}
