package algo

import (
	"time"

	"github.com/shopspring/decimal"

	"tradedeck/trade"
)

// The types hosts and screens build on: what a confirmation shows
// (Preview), what the user chose in it (Confirm), what the Algos tab
// lists (Algo), what alerts hear (Event) and what the protection column
// says (Protection). They are plain values, safe to keep and compare.

// ID identifies an algo in its account's database (never reused).
type ID int64

// Preview is what the confirmation shows before an algo is added.
type Preview struct {
	Spec Spec // with the source resolved (never SourceDefault or SourceExit)
	// Side is the side of the exit orders (the one that closes the
	// position); for a bracket, the side of its TP and SL.
	Side trade.Side
	// Size is the exit size now: from the position (perpetual) or the
	// free base balance (spot); for a bracket, the entry quantity. Exits
	// are sized again from the live position when they are sent.
	Size       decimal.Decimal
	Position   decimal.Decimal // signed perpetual position, or free base balance
	ReduceOnly bool            // every exit is reduce-only (perpetuals)
	Legs       []LegPreview
	// Market is the source's price now (zero: no fresh price yet).
	Market decimal.Decimal
	// Through names the legs whose trigger the market is already through:
	// they fire at once only with Confirm.FireIfThrough (or Spec's).
	Through []string
	// Warnings are worth reading but do not refuse the algo (a stop-limit
	// whose limit is beyond the venue's price range, a small remainder).
	Warnings []string
	// Work is a working order's plan (nil for the protective kinds).
	Work *WorkPreview
}

// LegPreview is one trigger or resting order of an algo.
type LegPreview struct {
	Leg     Leg
	Trigger decimal.Decimal // the trigger (or resting price), aligned to the tick
	Order   string          // what it sends: "MARKET", "LIMIT 95000", "resting LIMIT 99000"
	Source  Source
	// Distance from the market to the trigger, in price and percent of
	// the market (positive: not reached yet).
	Distance, DistancePct decimal.Decimal
	Through               bool
}

// Confirm is what the user chose in the confirmation.
type Confirm struct {
	// FireIfThrough: fire at once a trigger the market is already through.
	FireIfThrough bool
	// By names who added it (serve: the SSH key's fingerprint), for the
	// database and the audit.
	By string
}

// Leg names the part of an algo an order or a trigger belongs to; it is
// encoded in every child's client order id.
type Leg uint8

const (
	LegStop  Leg = 1 // a stop (stop, trail, the SL of an OCO or bracket)
	LegTP    Leg = 2 // a take-profit
	LegEntry Leg = 3 // a bracket's entry
	LegFix   Leg = 4 // a reduce-only close of an excess (both legs of an OCO filled)
	// LegWork is a working order's child: the chase's order, a ladder
	// rung, a TWAP slice.
	LegWork Leg = 5
)

func (l Leg) String() string {
	switch l {
	case LegStop:
		return "stop"
	case LegTP:
		return "tp"
	case LegEntry:
		return "entry"
	case LegFix:
		return "fix"
	case LegWork:
		return "work"
	}
	return "leg?"
}

// State is where an algo is in its life.
type State uint8

const (
	StateArmed         State = iota + 1 // watching its trigger(s)
	StateWaiting                        // a bracket waiting for its entry to fill; a trail below its activation
	StateTriggered                      // fired: its exit is being sent or worked
	StateDone                           // the exit filled (or the position it protected is gone)
	StateCancelled                      // cancelled by the user, flatten, panic or read-only
	StateFailed                         // gave up (retries spent, refused); the reason says why
	StateNeedsDecision                  // its state could not be settled with the venue: the user decides
	StateRefused                        // never armed: through the market and not chosen to fire
)

// The working orders' states; neither is final.
const (
	StateWorking State = iota + 9 // working the book: an order resting, a slice scheduled
	StatePaused                   // paused by the user (or its price bound): no child open
)

var stateNames = [...]string{"", "armed", "waiting", "triggered", "done", "cancelled", "failed", "needs decision", "refused", "working", "paused"}

func (s State) String() string {
	if int(s) < len(stateNames) && s > 0 {
		return stateNames[s]
	}
	return "unknown"
}

// Final reports a state nothing follows.
func (s State) Final() bool {
	return s == StateDone || s == StateCancelled || s == StateFailed || s == StateRefused
}

// Algo is one algo as screens and `tradedeck algo list` show it.
type Algo struct {
	ID      ID
	Spec    Spec // source resolved
	Side    trade.Side
	State   State
	Reason  string // why it is in its state (failed, needs decision, cancelled by)
	Created time.Time
	Updated time.Time
	By      string

	// Triggers are the live levels: one for a stop, TP and trail, two for
	// OCO and bracket. A trail's level moves; its Anchor is the best price
	// since activation.
	Triggers []Trigger
	Anchor   decimal.Decimal
	Active   bool // a trail past its activation, a bracket whose entry filled

	Filled   decimal.Decimal // what the exits (bracket: the entry) have filled
	Children []Child
	Fired    *Firing // why it fired, when it did

	// Work is a working order's progress (nil for the protective kinds).
	Work *Progress
}

// Trigger is one level an algo watches.
type Trigger struct {
	Leg    Leg
	Price  decimal.Decimal
	Source Source
	// Distance from the last fresh price of Source (positive: not reached;
	// zero Market: no price seen yet).
	Market      decimal.Decimal
	Distance    decimal.Decimal
	DistancePct decimal.Decimal
}

// Child is an order an algo sent (or journaled before sending).
type Child struct {
	ClientOrderID int64
	OrderID       int64
	Leg           Leg
	Attempt       int
	Side          trade.Side
	Type          trade.Type
	Price         decimal.Decimal
	Quantity      decimal.Decimal
	ReduceOnly    bool
	Status        string // JOURNALED, SENT, NEW, PARTIAL_FILLED, FILLED, CANCELLED, REJECTED, UNKNOWN, NOT_SENT
	Executed      decimal.Decimal
	AvgPrice      decimal.Decimal
	Reason        string
	Updated       time.Time
}

// Child statuses the engine adds to the venue's.
const (
	ChildJournaled = "JOURNALED" // written, not yet sent
	ChildSent      = "SENT"      // sent, no answer yet
	ChildUnknown   = "UNKNOWN"   // the send's result is unknown: looked up by client id before anything else
	ChildNotSent   = "NOT_SENT"  // journaled, then found never to have reached the venue
)

// Firing is why an algo fired: the provenance the Algos tab, alerts and
// the database show.
type Firing struct {
	Leg    Leg
	Level  decimal.Decimal // the trigger
	Price  decimal.Decimal // the price that crossed it
	Source Source
	// VenueTime is the venue's timestamp of the frame (or trade) that
	// crossed; At the local time the engine saw it; Age the frame's age
	// then (local clock minus venue time).
	VenueTime time.Time
	At        time.Time
	Age       time.Duration
	// Why is the one line: "bid 94990 <= stop 95000", "crossed while no
	// engine ran: trade 94950 at 12:01:03", "already through when armed".
	Why string
}

// EventKind classifies an Event.
type EventKind uint8

const (
	EventArmed EventKind = iota + 1
	EventTriggered
	EventPartial       // an exit partly filled
	EventRetried       // an exit re-sent (a stop-market's remainder, a stop-limit's policy)
	EventDone          // the exit filled, or the position is gone
	EventFailed        // gave up; Text says why
	EventNeedsDecision // reconcile could not settle it
	EventCancelled     // cancelled (by whom in Text)
	EventExcess        // both legs of an OCO filled: the excess is being closed (loud)
	EventResized       // resting exits resized to the position
	EventEngine        // the engine itself: reconciled, stream stale, back
)

// The working orders' events.
const (
	EventPaused      EventKind = iota + 12 // paused (by whom or by its bound in Text)
	EventResumed                           // working again
	EventWork                              // a re-price, a slice sent or skipped, a rung placed (not loud)
	EventInterrupted                       // paused because something outside the engine changed its orders (loud)
)

var eventNames = [...]string{"", "armed", "triggered", "partial", "retried", "done", "failed", "needs decision", "cancelled", "excess", "resized", "engine",
	"paused", "resumed", "work", "interrupted"}

func (k EventKind) String() string {
	if int(k) < len(eventNames) && k > 0 {
		return eventNames[k]
	}
	return "unknown"
}

// Loud reports the kinds an alert must ring for (the existing channels:
// notice, bell, OSC 9/777, hook).
func (k EventKind) Loud() bool {
	return k == EventTriggered || k == EventFailed || k == EventNeedsDecision || k == EventExcess || k == EventRetried ||
		k == EventInterrupted
}

// Event is one thing an algo did, for alerts and the headless desk's
// output. Text is the one line a trader reads.
type Event struct {
	Kind   EventKind
	Algo   ID // 0 for engine events
	Symbol string
	Time   time.Time
	Text   string
	Firing *Firing // with EventTriggered
}

// Protection is what protects one position (the positions' column).
type Protection struct {
	Symbol   string
	Position decimal.Decimal // signed perpetual position, or spot base balance
	// Stop and TP are the nearest levels that would close it (zero:
	// none), with the algos that hold them.
	Stop, TP         decimal.Decimal
	StopAlgo, TPAlgo ID
	// Covered is how much of the position the stops close (a partial
	// stop covers less than the position).
	Covered decimal.Decimal
	// Fresh: the stops' price sources are live now; a stale feed protects
	// nothing until it is back.
	Fresh bool
	Text  string // "stop 95000 bid (#12)", "UNPROTECTED", "stop 95000 bid (#12), feed stale"
}

// Unprotected reports a position no stop covers.
func (p Protection) Unprotected() bool { return p.Stop.IsZero() }

// Scope says which algos CancelAll stops: every algo of the account, or
// those of one symbol.
type Scope struct {
	Symbol string // "": every symbol
	// Why is recorded as the cancel reason ("flatten", "panic cancel",
	// "read-only", "user").
	Why string
}

// Service is what hosts and screens use of an account's engine: *Engine
// in the process that runs it, control.Client in a view of the engine
// another process runs (its calls go over the local socket).
type Service interface {
	Preview(s Spec) (Preview, error)
	Add(s Spec, c Confirm) (Algo, error)
	// Cancel's why is the reason recorded ("": cancelled by the user).
	Cancel(id ID, why string) error
	CancelAll(sc Scope) error
	AmendTrigger(id ID, leg Leg, price decimal.Decimal) error
	Resolve(id ID, d Decision) error
	Snapshot() []Algo
	Protection() []Protection
	Subscribe(n int) (<-chan Event, func())
	// Pause, Resume and Tighten: see Engine's.
	Pause(id ID, why string) error
	Resume(id ID) error
	Tighten(id ID, percent, distance decimal.Decimal) error
}

var _ Service = (*Engine)(nil)
