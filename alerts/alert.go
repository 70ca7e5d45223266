// Package alerts watches the feed for what a trader asked to be told
// about (a price crossing a level, a wide spread, a fill, a stream that
// went down...) and tells them: on screen, with the terminal's bell and
// desktop notifications, and through a hook command.
//
// The Engine is evaluated on every trade, bbo, ticker, mark price, own
// order and stream change at the feed's full rate (it is a
// feed.Observer), never on what was drawn, so a price that crosses a
// level and comes back between two frames still fires, exactly once. The
// Store keeps alerts and what fired in a file in the XDG state directory;
// the Deliverer runs the channels without ever blocking the feed or the
// screen.
package alerts

import (
	"fmt"
	"strings"
	"time"

	"github.com/shopspring/decimal"
)

// Kind is what an alert watches.
type Kind string

const (
	KindPrice  Kind = "price"  // a price (last, mark, bid, ask) crosses above or below a level
	KindChange Kind = "change" // the 24h change goes beyond a percentage
	KindSpread Kind = "spread" // the spread is wider than N basis points
	KindOrder  Kind = "order"  // an own order is filled, partially filled, cancelled or rejected
	KindPnL    Kind = "pnl"    // a position's unrealized PnL goes above or below a level
	KindLiq    Kind = "liq"    // the mark price comes within N % of a position's liquidation price
	KindStream Kind = "stream" // a stream is stale or down for more than N seconds
	// KindAlgo is not an alert one sets: it is what the protective-orders
	// engine delivers through the same channels (triggered, partially
	// done, retried, failed, needs decision); Fired.Value is the event.
	KindAlgo Kind = "algo"
)

// Op is how a value is compared with the alert's level.
type Op string

const (
	Above  Op = "above"  // value >= level
	Below  Op = "below"  // value <= level
	Beyond Op = "beyond" // |value| >= |level| (24h change either way)
	Within Op = "within" // distance <= level (liquidation)
)

// Source is which price a price alert follows.
type Source string

const (
	Last Source = "last" // the last public trade
	Mark Source = "mark" // the perpetual's mark price
	Bid  Source = "bid"  // the best bid
	Ask  Source = "ask"  // the best offer
)

// Order events an order alert can ask for.
const (
	OrderFilled    = "filled"
	OrderPartial   = "partial"
	OrderCancelled = "cancelled"
	OrderRejected  = "rejected"
)

// Streams a stream alert can watch (StreamAny: either).
const (
	StreamMarket  = "market"
	StreamPrivate = "private"
	StreamAny     = "any"
)

// AnySymbol in an order alert matches every symbol.
const AnySymbol = "*"

// Alert is one alert as the user defined it, plus what it did so far.
type Alert struct {
	ID     int             `json:"id"`
	Symbol string          `json:"symbol,omitempty"` // "" for stream alerts, "*" for any symbol
	Kind   Kind            `json:"kind"`
	Op     Op              `json:"op,omitempty"`
	Level  decimal.Decimal `json:"level"`
	Source Source          `json:"source,omitempty"` // price alerts
	Events []string        `json:"events,omitempty"` // order alerts
	Stream string          `json:"stream,omitempty"` // stream alerts
	// For is how long a stream must be down (stream alerts).
	For Duration `json:"for,omitempty"`
	// Every: fire every time the condition becomes true (after being
	// false), at most once per Cooldown; otherwise fire once and stop.
	Every    bool     `json:"every,omitempty"`
	Cooldown Duration `json:"cooldown,omitempty"`

	// Then is what the alert does when it fires besides telling (nil:
	// it only tells); By is who added it (serve: "ssh " and the key's
	// fingerprint; "" the local user), for the audit of what it did.
	Then *Action `json:"then,omitempty"`
	By   string  `json:"by,omitempty"`

	Paused  bool      `json:"paused,omitempty"`
	Done    bool      `json:"done,omitempty"` // a once alert that fired
	Count   int       `json:"count,omitempty"`
	Last    time.Time `json:"last_fired,omitzero"`
	Created time.Time `json:"created"`
}

// Active reports whether the alert is still watching.
func (a *Alert) Active() bool { return !a.Paused && !a.Done }

// State is a word for the alert's state in lists.
func (a *Alert) State() string {
	switch {
	case a.Done:
		return "fired"
	case a.Paused:
		return "paused"
	}
	return "active"
}

// Condition describes what the alert waits for, in the command syntax
// (without the mode): "SPOT_BTC_USDT last above 50000".
func (a *Alert) Condition() string {
	switch a.Kind {
	case KindPrice:
		return fmt.Sprintf("%s %s %s %s", a.Symbol, a.Source, a.Op, a.Level)
	case KindChange:
		return fmt.Sprintf("%s change %s %s%%", a.Symbol, a.Op, a.Level)
	case KindSpread:
		return fmt.Sprintf("%s spread above %sbp", a.Symbol, a.Level)
	case KindOrder:
		return fmt.Sprintf("%s order %s", a.Symbol, strings.Join(a.Events, ","))
	case KindPnL:
		return fmt.Sprintf("%s pnl %s %s", a.Symbol, a.Op, a.Level)
	case KindLiq:
		return fmt.Sprintf("%s liq within %s%%", a.Symbol, a.Level)
	case KindStream:
		return fmt.Sprintf("stream %s down %s", a.Stream, a.For)
	}
	return string(a.Kind)
}

// Mode describes when the alert fires: "once" or "every 1m0s".
func (a *Alert) Mode() string {
	if !a.Every {
		return "once"
	}
	if a.Cooldown > 0 {
		return "every " + a.Cooldown.String()
	}
	return "every"
}

// String is the alert as it would be typed: condition, mode and action.
func (a *Alert) String() string {
	s := a.Condition() + " " + a.Mode()
	if a.Then != nil {
		s += " then " + a.Then.String()
	}
	return s
}

// Fired is one time an alert fired.
type Fired struct {
	Seq     int       `json:"seq"`   // increasing per store
	Alert   int       `json:"alert"` // the alert's ID
	Symbol  string    `json:"symbol,omitempty"`
	Kind    Kind      `json:"kind"`
	Value   string    `json:"value"`   // what was seen: a price, a percentage, an order status
	Message string    `json:"message"` // one line for a human
	Time    time.Time `json:"time"`
	Read    bool      `json:"read,omitempty"`
	// Action is the alert's action at this firing (nil: none); By who
	// added the alert.
	Action *Action `json:"action,omitempty"`
	By     string  `json:"by,omitempty"`
	// N is the alert's count at this firing (1 for the first). Key names
	// this firing of this alert in this file wherever it is evaluated:
	// two processes sharing an alerts file fire the same alert, and the
	// one that records the key first acts (never both).
	N   int    `json:"n,omitempty"`
	Key string `json:"-"`
}

// Duration is a time.Duration written as "1m30s" in the file.
type Duration time.Duration

// String is Go's form without the zero tails: 1m, 1h30m, 45s.
func (d Duration) String() string {
	s := time.Duration(d).String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}

// MarshalText writes the duration as Go writes it.
func (d Duration) MarshalText() ([]byte, error) { return []byte(d.String()), nil }

// UnmarshalText reads "30s", "2m" or a plain number of seconds.
func (d *Duration) UnmarshalText(b []byte) error {
	v, err := ParseDuration(string(b))
	*d = Duration(v)
	return err
}

// ParseDuration reads "30s", "1m30s" or a plain number of seconds.
func ParseDuration(s string) (time.Duration, error) {
	if n, err := decimal.NewFromString(s); err == nil {
		if n.Sign() < 0 {
			return 0, fmt.Errorf("negative duration %q", s)
		}
		return time.Duration(n.Mul(decimal.NewFromInt(int64(time.Second))).IntPart()), nil
	}
	v, err := time.ParseDuration(s)
	if err != nil || v < 0 {
		return 0, fmt.Errorf("%q is not a duration (30s, 5m, or seconds)", s)
	}
	return v, nil
}
