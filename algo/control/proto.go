package control

import (
	"encoding/json"
	"errors"
	"strings"

	"github.com/shopspring/decimal"

	"tradedeck/algo"
)

// The protocol: one JSON object a line each way. A client sends Requests
// (each with its own ID); the server answers each with a Response of the
// same ID, in any order, and after a "subscribe" also sends Responses
// with no ID carrying one engine Event each. Nothing on the wire is a
// secret: the account is named by the venue's label and address only.

// Ops are the requests a view may send.
const (
	OpHello      = "hello"      // who runs the engine: Info
	OpPreview    = "preview"    // Spec or Line: Preview
	OpAdd        = "add"        // Spec or Line, FireIfThrough, By: Algo
	OpCancel     = "cancel"     // ID, Why ("": cancelled by the user)
	OpCancelAll  = "cancel_all" // Symbol ("": every symbol), Why
	OpAmend      = "amend"      // ID, Leg, Price
	OpResolve    = "resolve"    // ID, Decision
	OpSnapshot   = "snapshot"   // []Algo
	OpProtection = "protection" // []Protection
	OpSubscribe  = "subscribe"  // then Event lines until the connection ends
	OpPause      = "pause"      // ID, Why
	OpResume     = "resume"     // ID
	OpTighten    = "tighten"    // ID, Percent or Distance
)

// MaxRequest bounds a request line: a longer one ends the connection (no
// request of this protocol is near it). MaxResponse bounds what a view
// reads (a snapshot of many algos is long).
const (
	MaxRequest  = 64 << 10
	MaxResponse = 16 << 20
)

// Request is one line from a view.
type Request struct {
	ID uint64 `json:"id"`
	Op string `json:"op"`
	// Line is the grammar's text of a spec (algo.Parse); Spec the spec
	// itself (the order form's, which the grammar may not spell). Spec
	// wins when both are given.
	Line          string           `json:"line,omitempty"`
	Spec          *algo.Spec       `json:"spec,omitempty"`
	FireIfThrough bool             `json:"fire_if_through,omitempty"`
	By            string           `json:"by,omitempty"`
	Algo          algo.ID          `json:"algo,omitempty"`
	Leg           algo.Leg         `json:"leg,omitempty"`
	Price         *decimal.Decimal `json:"price,omitempty"`
	Decision      algo.Decision    `json:"decision,omitempty"`
	Symbol        string           `json:"symbol,omitempty"`
	Why           string           `json:"why,omitempty"`
	Percent       *decimal.Decimal `json:"percent,omitempty"`
	Distance      *decimal.Decimal `json:"distance,omitempty"`
}

// Response is one line from the engine: an answer (ID set) or an event
// of a subscription (Event set, ID zero).
type Response struct {
	ID    uint64          `json:"id,omitempty"`
	Error string          `json:"error,omitempty"`
	Code  string          `json:"code,omitempty"` // the engine's error kind, for errors.Is on the view's side
	Data  json.RawMessage `json:"data,omitempty"`
	Event *algo.Event     `json:"event,omitempty"`
}

// Info is what "hello" answers: the engine's process and account, no key.
type Info struct {
	Holder
	Account string `json:"account"` // the venue's address (never the key)
	Ready   bool   `json:"ready"`   // reconciled with the venue, armed
}

// codes map the engine's errors to names on the wire and back.
var codes = []struct {
	code string
	err  error
}{
	{"not_found", algo.ErrNotFound}, {"not_ready", algo.ErrNotReady}, {"final", algo.ErrFinal},
	{"nothing", algo.ErrNothing}, {"through", algo.ErrThrough}, {"no_price", algo.ErrNoPrice},
	{"no_decision", algo.ErrNoDecision}, {"not_pausable", algo.ErrNotPausable}, {"refused", ErrRefused}, {"bad_request", ErrBadRequest},
}

// ErrRefused: the engine's process does not take this command from a
// view (serve refuses what its viewers ask, for one).
var ErrRefused = errors.New("refused")

// ErrBadRequest: the engine could not read the request.
var ErrBadRequest = errors.New("bad request")

func codeOf(err error) string {
	for _, c := range codes {
		if errors.Is(err, c.err) {
			return c.code
		}
	}
	return ""
}

// RemoteError is an error the engine answered: its text as the engine
// said it, and errors.Is finds the engine's error kind (algo.ErrThrough,
// algo.ErrNothing, ...).
type RemoteError struct {
	Text string
	kind error
}

func (e *RemoteError) Error() string { return e.Text }
func (e *RemoteError) Unwrap() error { return e.kind }

func remoteError(r Response) error {
	e := &RemoteError{Text: r.Error}
	for _, c := range codes {
		if c.code == r.Code {
			e.kind = c.err
		}
	}
	return e
}

// clean keeps an error's text on one line and bounded.
func clean(s string) string {
	s = strings.ReplaceAll(strings.ReplaceAll(s, "\r", " "), "\n", " ")
	if len(s) > 500 {
		s = s[:500] + "…"
	}
	return s
}
