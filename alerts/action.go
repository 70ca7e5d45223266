package alerts

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/shopspring/decimal"
)

// Verb is what an alert's action does to an algo of the account.
type Verb string

const (
	VerbPause   Verb = "pause"   // a working order stops placing (its open children cancelled)
	VerbResume  Verb = "resume"  // a paused working order works again
	VerbCancel  Verb = "cancel"  // any algo ends, its orders cancelled
	VerbTighten Verb = "tighten" // a trailing stop's trail, only ever tighter
)

// AlgoKinds are the kind words an action may name before the algo's
// number ("pause chase 12"): the algo must then be of that kind.
var AlgoKinds = []string{"stop", "tp", "oco", "bracket", "trail", "chase", "scale", "twap"}

// Action is what an alert does when it fires, besides telling: pause,
// resume or cancel an algo of the account, or tighten a trailing stop.
// The alerts package only keeps it; the host that runs the account's
// engine checks it when the alert is added and does it when it fires.
type Action struct {
	Verb Verb  `json:"verb"`
	Algo int64 `json:"algo"`
	// Kind is the algo's kind as typed ("" when not): checked against the
	// algo, so a number typed wrong does not act on another algo.
	Kind string `json:"kind,omitempty"`
	// Percent or Distance (exactly one, tighten only) is the trailing
	// stop's new trail.
	Percent  decimal.Decimal `json:"percent,omitzero"`
	Distance decimal.Decimal `json:"distance,omitzero"`
}

// String is the action as typed: "pause chase 12", "tighten 12 1%".
func (a Action) String() string {
	s := string(a.Verb)
	if a.Kind != "" {
		s += " " + a.Kind
	}
	s += " " + strconv.FormatInt(a.Algo, 10)
	switch {
	case a.Percent.IsPositive():
		s += " " + a.Percent.String() + "%"
	case a.Distance.IsPositive():
		s += " " + a.Distance.String()
	}
	return s
}

// Cause names a firing as the reason an algo keeps for what its action
// did: the alert, who added it when known, and what it saw, without the
// action the message already names: "alert 3 (PERP_ETH_USDT last 3501
// crossed above 3500)".
func (f Fired) Cause() string {
	s := "alert " + strconv.Itoa(f.Alert)
	if f.By != "" {
		s += " of " + f.By
	}
	seen := f.Message
	if f.Action != nil {
		seen = strings.TrimSuffix(seen, " (then "+f.Action.String()+")")
	}
	if seen != "" {
		s += " (" + seen + ")"
	}
	return s
}

// ActionSyntax is the action's grammar, after an alert's condition.
const ActionSyntax = "then pause|resume|cancel [KIND] ALGO | then tighten [trail] ALGO PERCENT%|DISTANCE"

// splitThen cuts the words at "then": the condition and mode before it,
// the action (and optionally the mode) after it.
func splitThen(args []string) (cond, then []string, ok bool) {
	for i, w := range args {
		if strings.EqualFold(w, "then") {
			return args[:i], args[i+1:], true
		}
	}
	return args, nil, false
}

// parseAction reads "VERB [KIND] ALGO [TRAIL]" and returns the words
// after it (a mode may follow the action).
func parseAction(args []string) (Action, []string, error) {
	var a Action
	w := lower(args)
	if len(w) == 0 {
		return a, nil, errors.New("then what? " + ActionSyntax)
	}
	switch Verb(w[0]) {
	case VerbPause, VerbResume, VerbCancel, VerbTighten:
		a.Verb = Verb(w[0])
	default:
		return a, nil, fmt.Errorf("%q: an alert can pause, resume or cancel an algo, or tighten a trailing stop (%s)", args[0], ActionSyntax)
	}
	w = w[1:]
	if len(w) > 0 && isAlgoKind(w[0]) {
		a.Kind, w = w[0], w[1:]
	}
	if len(w) == 0 {
		return a, nil, fmt.Errorf("%s which algo? give its number (the Algos tab, tradedeck algo list)", a.Verb)
	}
	id, err := strconv.ParseInt(strings.TrimPrefix(w[0], "#"), 10, 64)
	if err != nil || id <= 0 {
		return a, nil, fmt.Errorf("%q is not an algo number (the Algos tab, tradedeck algo list)", w[0])
	}
	a.Algo, w = id, w[1:]
	if a.Verb != VerbTighten {
		return a, w, nil
	}
	if a.Kind != "" && a.Kind != "trail" {
		return a, nil, fmt.Errorf("only a trailing stop can be tightened, not a %s", a.Kind)
	}
	if len(w) == 0 {
		return a, nil, fmt.Errorf("tighten %d to what? a trail in percent (1%%) or in price (150)", a.Algo)
	}
	pct := strings.HasSuffix(w[0], "%")
	v, err := number(w[0], "%")
	if err != nil {
		return a, nil, err
	}
	if v.Sign() <= 0 {
		return a, nil, fmt.Errorf("trail %s must be positive", w[0])
	}
	if pct {
		if v.GreaterThanOrEqual(decimal.NewFromInt(100)) {
			return a, nil, fmt.Errorf("trail %s: a percent below 100", w[0])
		}
		a.Percent = v
	} else {
		a.Distance = v
	}
	return a, w[1:], nil
}

func isAlgoKind(w string) bool {
	for _, k := range AlgoKinds {
		if w == k {
			return true
		}
	}
	return false
}
