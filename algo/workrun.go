package algo

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/shopspring/decimal"

	"tradedeck/algo/store"
	"tradedeck/fixed"
	"tradedeck/trade"
	"tradedeck/venue"
)

// The working orders' runner: one goroutine per working algo (chase,
// scale, twap) sends its children on LegWork, journaled before each send
// (sendChild), follows their fills from the private stream and REST
// (childChanged), and stops when the algo is done, cancelled, or needs a
// decision. Its requests take the rate limiter as venue.Working: after
// protective ones, never the reserve a stop needs.

// errStopped: the working order was cancelled or paused before the child
// was journaled; nothing was sent.
var errStopped = errors.New("the working order is stopped or paused")

// workState is a working order's running state, guarded by Engine.mu
// except act.
type workState struct {
	// act is held by the runner around each step that sends or cancels,
	// and by Pause and Cancel while they cancel the children: a child in
	// flight is never missed by them.
	act  sync.Mutex
	wake chan struct{} // cap 1: something changed (a bbo, a fill, a pause, the clock)
	quit chan struct{} // closed when the algo ends
	end  sync.Once
	run  bool // a runner goroutine is on it
	// pokes counts wake-ups; seen is how many the runner had acted on
	// when it last waited; acting, how many its step under way acts on
	// (the runner's alone). Quiet reads them (runnerBusyLocked).
	pokes, seen atomic.Uint64
	acting      uint64
	// loaded: read back by a restart's reconciliation (its runner starts
	// once the engine is ready).
	loaded bool

	rule      trade.Rule
	arrival   decimal.Decimal
	polled    time.Time // the last REST read of an open child (pollOpen)
	userPause bool
	// boundWhy is set while a TWAP waits for the market to come back
	// inside its bound (BoundPause).
	boundWhy string

	chase chaseState
	twap  twapState
	// relist: a ladder resumed after a pause puts back the rungs the
	// pause cancelled (those with no child from attempt relistFrom on).
	relist     bool
	relistFrom int
}

// durable is what a restart needs of a working order beyond its spec and
// children (the algo row's anchor column, JSON).
type durable struct {
	Arrival    string `json:"arrival,omitempty"`
	Reprices   int    `json:"reprices,omitempty"`
	StartMS    int64  `json:"start_ms,omitempty"`
	Done       int    `json:"done,omitempty"`
	Skipped    int    `json:"skipped,omitempty"`
	SkippedQty string `json:"skipped_qty,omitempty"`
	Paused     bool   `json:"paused,omitempty"`
	// Relist: a ladder resumed after a pause still has to put back the
	// rungs the pause cancelled (those with no child from attempt
	// RelistFrom on); a restart before it did finishes the job.
	Relist     bool `json:"relist,omitempty"`
	RelistFrom int  `json:"relist_from,omitempty"`
	// Asked: the chase's last child whose cancel is accounted for (ours,
	// or one cancelled outside the engine the user was told of).
	Asked int64 `json:"asked,omitempty"`
}

func (w *workState) durable() string {
	d := durable{Arrival: w.arrival.String(), Reprices: w.chase.reprices, StartMS: w.twap.start.UnixMilli(),
		Done: w.twap.done, Skipped: w.twap.skipped, SkippedQty: w.twap.skippedQty.String(), Paused: w.userPause,
		Relist: w.relist, RelistFrom: w.relistFrom, Asked: w.chase.asked}
	if w.twap.start.IsZero() {
		d.StartMS = 0
	}
	b, _ := json.Marshal(d)
	return string(b)
}

func (w *workState) restore(s string) {
	var d durable
	if json.Unmarshal([]byte(s), &d) != nil {
		return
	}
	w.arrival = dec0(d.Arrival)
	w.chase.reprices = d.Reprices
	if d.StartMS > 0 {
		w.twap.start = time.UnixMilli(d.StartMS)
	}
	w.twap.done, w.twap.skipped, w.twap.skippedQty = d.Done, d.Skipped, dec0(d.SkippedQty)
	w.userPause = d.Paused
	w.relist, w.relistFrom = d.Relist, d.RelistFrom
	w.chase.asked = d.Asked
}

func newWorkState(r trade.Rule) *workState {
	return &workState{rule: r, wake: make(chan struct{}, 1), quit: make(chan struct{})}
}

// poke wakes the runner (never blocks, never allocates); it is counted
// before the runner can see it.
func (w *workState) poke() {
	w.pokes.Add(1)
	select {
	case w.wake <- struct{}{}:
	default:
	}
}

// workClock is the runners' clock: the engine's (Config.Now) in
// production; tests run it faster to rehearse a TWAP of minutes in
// seconds (speed: clock seconds per real second).
type workClock struct {
	now   func() time.Time
	speed float64
}

// sleep is how long to wait in real time for d of the work clock.
func (c workClock) real(d time.Duration) time.Duration {
	if c.speed <= 1 {
		return d
	}
	return time.Duration(float64(d) / c.speed)
}

// callWork bounds one REST call of a working order: it queues behind
// protective requests and leaves the budget's reserve alone.
func (e *Engine) callWork() (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithTimeout(e.runCtx, e.cfg.Timeout)
	return venue.Working(ctx), cancel
}

// addWork journals a working order and starts its runner.
func (e *Engine) addWork(p Preview, c Confirm) (Algo, error) {
	now := e.cfg.Now()
	a := &algoState{spec: p.Spec, side: p.Spec.Work.Side, perp: trade.IsPerp(p.Spec.Symbol), state: StateWorking, by: c.By,
		created: now, updated: now, attempts: map[Leg]int{}}
	r, err := e.rule(p.Spec.Symbol)
	if err != nil {
		return Algo{}, err
	}
	a.work = newWorkState(r)
	a.work.arrival = p.Market
	if p.Spec.Kind == KindTWAP {
		a.work.twap.start = e.work.now()
	}
	if err := e.insertAlgo(a); err != nil {
		return Algo{}, err
	}
	e.mu.Lock()
	e.algos[a.id] = a
	e.initWorkLocked(a)
	syms := e.symbolsLocked()
	e.mu.Unlock()
	e.announce(syms)
	e.emit(Event{Kind: EventArmed, Algo: a.id, Symbol: a.spec.Symbol, Time: now, Text: sprintf("#%d working: %s", a.id, p)})
	e.startWork(a)
	return e.view(a), nil
}

// initWorkLocked puts a working order on its symbol (the chase on the
// symbol's bbo path) and seeds what its kind needs.
func (e *Engine) initWorkLocked(a *algoState) {
	s := e.symLocked(a.spec.Symbol)
	w := a.work
	if a.spec.Kind == KindChase {
		w.chase.init(a, s.dec)
		s.chasers = append(s.chasers, a)
	}
	if a.spec.Kind == KindTWAP && w.twap.start.IsZero() {
		w.twap.start = a.created
	}
}

// dropWorkLocked takes a finished working order off its symbol.
func (e *Engine) dropWorkLocked(a *algoState) {
	if s := e.bySym[a.spec.Symbol]; s != nil {
		for i, x := range s.chasers {
			if x == a {
				s.chasers = append(s.chasers[:i:i], s.chasers[i+1:]...)
				break
			}
		}
	}
}

// startWork runs an algo's runner unless one runs already.
func (e *Engine) startWork(a *algoState) {
	e.mu.Lock()
	w := a.work
	if w == nil || w.run || a.state.Final() {
		e.mu.Unlock()
		return
	}
	w.run = true
	w.pokes.Add(1) // its first step is news until it waits
	e.mu.Unlock()
	started := e.spawn(func() {
		w.acting = w.pokes.Load()
		defer func() {
			e.mu.Lock()
			w.run = false
			e.mu.Unlock()
		}()
		switch a.spec.Kind {
		case KindChase:
			e.runChase(a)
		case KindScale:
			e.runScale(a)
		case KindTWAP:
			e.runTWAP(a)
		}
	})
	if !started {
		e.mu.Lock()
		w.run = false
		e.mu.Unlock()
	}
}

// workPhase is what the runner may do now.
type workPhase uint8

const (
	phaseRun     workPhase = iota
	phasePaused            // wait for Resume
	phaseStopped           // cancelled, finished or needs a decision: return
)

// phase reads whether the runner may act.
func (e *Engine) phase(a *algoState) workPhase {
	e.mu.Lock()
	defer e.mu.Unlock()
	switch {
	case a.cancelled || a.state.Final() || a.state == StateNeedsDecision:
		return phaseStopped
	case a.state == StatePaused:
		return phasePaused
	}
	return phaseRun
}

// stopWorkChildren cancels a working order's open children, each to its
// final state (protective budget: it is a stop, not a re-price), under
// the order's act lock so a child the runner is sending is not missed.
func (e *Engine) stopWorkChildren(a *algoState) (stillOpen []int64) {
	a.work.act.Lock()
	defer a.work.act.Unlock()
	e.mu.Lock()
	var open []*child
	for _, c := range a.children {
		if c.open() {
			open = append(open, c)
			a.work.chase.asked = c.cid // ours: not a refusal
		}
	}
	e.mu.Unlock()
	for _, c := range open {
		e.cancelChildAs(c, true)
		e.mu.Lock()
		if c.open() {
			stillOpen = append(stillOpen, c.cid)
		}
		e.mu.Unlock()
	}
	return stillOpen
}

// stopWorking stops cancelled working orders side by side (one slow to
// settle does not hold the others): their runners quit, their children
// are cancelled to their final state. It lists the children whose cancel
// the venue has not confirmed.
func (e *Engine) stopWorking(list []*algoState) []string {
	var mu sync.Mutex
	var wg sync.WaitGroup
	var open []string
	for _, a := range list {
		e.endWork(a)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for _, cid := range e.stopWorkChildren(a) {
				mu.Lock()
				open = append(open, sprintf("#%d order %d (cancel not confirmed yet)", a.id, cid))
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	return open
}

// endWork marks a working order's runner to quit (once).
func (e *Engine) endWork(a *algoState) {
	if a.work != nil {
		a.work.end.Do(func() { close(a.work.quit) })
	}
}

// Pause stops a working order for now: its open children are cancelled
// (each to its final state) and it waits in StatePaused. A protective
// kind is refused with ErrNotPausable.
func (e *Engine) Pause(id ID, why string) error {
	a, err := e.workAlgo(id)
	if err != nil {
		return err
	}
	if why == "" {
		why = "paused by the user"
	}
	e.mu.Lock()
	if a.state != StateWorking && a.state != StatePaused {
		e.mu.Unlock()
		return fmt.Errorf("algo %d is %s: only a working order can be paused", id, a.state)
	}
	a.state, a.reason, a.updated = StatePaused, why, e.cfg.Now()
	a.work.userPause = true
	row := e.algoRowLocked(a)
	e.mu.Unlock()
	jerr := e.cfg.Store.Tx(func(tx *store.Tx) error { return tx.UpdateAlgo(row) })
	open := e.stopWorkChildren(a)
	e.emit(Event{Kind: EventPaused, Algo: id, Symbol: a.spec.Symbol, Time: e.cfg.Now(), Text: sprintf("#%d %s %s paused: %s", id, a.spec.Kind, a.spec.Symbol, why)})
	a.work.poke()
	switch {
	case jerr != nil:
		return fmt.Errorf("paused, but not journaled: %w", jerr)
	case len(open) > 0:
		return fmt.Errorf("algo %d paused; the venue has not confirmed the cancel of %v yet", id, open)
	}
	return nil
}

// Resume puts a paused working order back to work; a TWAP's missed
// slices follow its CatchUp policy.
func (e *Engine) Resume(id ID) error {
	a, err := e.workAlgo(id)
	if err != nil {
		return err
	}
	e.mu.Lock()
	if a.state != StatePaused {
		e.mu.Unlock()
		return fmt.Errorf("algo %d is %s, not paused", id, a.state)
	}
	a.state, a.reason, a.updated = StateWorking, "resumed", e.cfg.Now()
	a.work.userPause, a.work.boundWhy = false, ""
	if a.spec.Kind == KindScale {
		a.work.relist, a.work.relistFrom = true, a.attempts[LegWork]
	}
	row := e.algoRowLocked(a)
	e.mu.Unlock()
	if err := e.cfg.Store.Tx(func(tx *store.Tx) error { return tx.UpdateAlgo(row) }); err != nil {
		return fmt.Errorf("%w: %v", errNotJournaled, err)
	}
	e.emit(Event{Kind: EventResumed, Algo: id, Symbol: a.spec.Symbol, Time: e.cfg.Now(), Text: sprintf("#%d %s %s working again", id, a.spec.Kind, a.spec.Symbol)})
	e.startWork(a)
	a.work.poke()
	return nil
}

// workAlgo finds a working order that is not finished.
func (e *Engine) workAlgo(id ID) (*algoState, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	a := e.algos[id]
	switch {
	case a == nil:
		return nil, fmt.Errorf("algo %d: %w", id, ErrNotFound)
	case !a.spec.Kind.Working():
		return nil, fmt.Errorf("algo %d: %w", id, ErrNotPausable)
	case a.state.Final():
		return nil, fmt.Errorf("algo %d: %w", id, ErrFinal)
	}
	return a, nil
}

// workFinish ends a working order: its open children cancelled first,
// then the final state journaled and said.
func (e *Engine) workFinish(a *algoState, st State, why string) {
	if e.runCtx.Err() != nil {
		return // the engine stops: the next one finishes it from the venue's view
	}
	if open := e.stopWorkChildren(a); len(open) > 0 {
		e.needsDecision(a, sprintf("%s, but the venue has not confirmed the cancel of %v", why, open))
		return
	}
	e.mu.Lock()
	filled, total := a.exited, a.spec.Work.Quantity
	e.mu.Unlock()
	e.finish(a, st, sprintf("%s (filled %s of %s)", why, filled, total))
}

// maxAttempts is the last attempt a client order id can carry (5 digits).
const maxAttempts = 99_999

// workSend journals and sends one child of a working order (its act lock
// held by the caller). A refusal is returned as is; a send whose result
// stays unknown parks the algo in "needs decision".
func (e *Engine) workSend(a *algoState, o trade.Order) (*child, error) {
	e.mu.Lock()
	spent := a.attempts[LegWork] >= maxAttempts
	e.mu.Unlock()
	if spent {
		return nil, fmt.Errorf("it used up its %d client order ids (one per order it sent)", maxAttempts)
	}
	o.Symbol, o.Side, o.ReduceOnly = a.spec.Symbol, a.spec.Work.Side, a.spec.Work.Reduce
	c, err := e.sendChild(a, LegWork, o, nil, false)
	if errors.Is(err, errUnsettled) && e.runCtx.Err() == nil {
		// (an engine that is stopping leaves it to the next one's
		// reconciliation, which reads the child by its client order id)
		e.needsDecision(a, "a child's send has no known result: "+err.Error())
	}
	return c, err
}

// pollOpen reads the working order's oldest open child from REST when
// the stream has said nothing of it for a while, in case it missed its
// end: at most one read per pollEvery a working order, whatever its size
// (50 chasers must not spend the read budget); a child the stream may
// have missed altogether (missedByStream) is read at once.
func (e *Engine) pollOpen(a *algoState) {
	now := e.cfg.Now()
	every := max(10*e.cfg.Poll, 10*time.Second)
	e.mu.Lock()
	var c *child
	missed := false
	for _, x := range a.children {
		if x.leg != LegWork {
			continue
		}
		if e.missedByStream(x, now) {
			c, missed = x, true
			break
		}
		if x.open() && (c == nil || x.updated.Before(c.updated)) {
			c = x
		}
	}
	due := c != nil && (missed || now.Sub(c.updated) > every && now.Sub(a.work.polled) > every)
	if due {
		a.work.polled, c.polled = now, now
	}
	e.mu.Unlock()
	if due {
		e.lookupChild(c)
	}
}

// progressLocked is a working order's Progress.
func (e *Engine) progressLocked(a *algoState) *Progress {
	w := a.work
	p := &Progress{Total: a.spec.Work.Quantity, Filled: a.exited, Arrival: w.arrival, Paused: a.state == StatePaused}
	if p.Paused {
		p.PausedWhy = a.reason
	}
	var notional decimal.Decimal
	for _, c := range a.children {
		if c.leg != LegWork {
			continue
		}
		notional = notional.Add(c.executed.Mul(c.avg))
		p.Orders++
		switch {
		case c.status == "NEW" || c.status == "PARTIAL_FILLED":
			p.OrdersOpen++
		case c.open():
			p.OrdersInFlight++
		case c.status == "FILLED":
			p.OrdersFilled++
		}
	}
	if a.exited.IsPositive() {
		p.AvgPrice = notional.Div(a.exited).Round(int32(max(fixed.DecimalsOf(w.rule.QuoteTick)+2, 2)))
	}
	switch a.spec.Kind {
	case KindChase:
		e.chaseProgressLocked(a, p)
	case KindTWAP:
		e.twapProgressLocked(a, p)
	case KindScale:
		p.Orders = max(p.Orders, a.spec.Work.Count)
	}
	return p
}

// resolveWork answers "resume" for a working order that needed a
// decision: it works again from what the venue holds now.
func (e *Engine) resolveWork(a *algoState) error {
	e.mu.Lock()
	a.state, a.reason, a.updated = StateWorking, "resumed by the user", e.cfg.Now()
	if a.work.userPause {
		a.state = StatePaused
	}
	e.dropWorkLocked(a)
	e.initWorkLocked(a)
	row := e.algoRowLocked(a)
	e.mu.Unlock()
	if err := e.cfg.Store.Tx(func(tx *store.Tx) error { return tx.UpdateAlgo(row) }); err != nil {
		return fmt.Errorf("%w: %v", errNotJournaled, err)
	}
	e.startWork(a)
	a.work.poke()
	return nil
}

// startWorking starts the runners of the working orders a restart loaded
// (after the reconciliation: their open children were read back by
// client order id first).
func (e *Engine) startWorking() {
	e.mu.Lock()
	var list []*algoState
	for _, a := range e.algos {
		if a.work != nil && a.work.loaded && (a.state == StateWorking || a.state == StatePaused) {
			list = append(list, a)
		}
	}
	e.mu.Unlock()
	for _, a := range list {
		e.emit(Event{Kind: EventEngine, Algo: a.id, Symbol: a.spec.Symbol, Time: e.cfg.Now(),
			Text: sprintf("#%d %s %s resumes after the restart: %s", a.id, a.spec.Kind, a.spec.Symbol, a.state)})
		e.startWork(a)
	}
}
