// Package desk is the trading desk of a dashboard: it sends orders,
// cancels them (one, a symbol's, or every symbol's in a panic), keeps the
// symbol rules the order form validates against, and tells the feed about
// orders it sent so they show as PENDING at once. It talks to the venue
// only; what the user sees and confirms is the ui's business.
package desk

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"sync"
	"time"

	"github.com/shopspring/decimal"

	"tradedeck/feed"
	"tradedeck/trade"
	"tradedeck/venue"
)

// Tracker follows the orders the desk sends (implemented by *feed.Feed):
// a sent order shows as PENDING until the private stream moves it, and a
// venue refusal ends it at once instead of after the tracker's own lookup.
type Tracker interface {
	TrackPending(o feed.Order)
	RejectPending(clientOrderID int64, reason string)
}

var _ Tracker = (*feed.Feed)(nil)

// Config builds a Desk.
type Config struct {
	Client  *venue.Client // with keys
	Tracker Tracker       // nil: nothing tracks pending orders
	// Rules gives the symbol rules someone already loaded (the feed
	// does, for its fixed-point scales); nil: the desk loads them.
	Rules   func() []venue.SymbolRule
	Timeout time.Duration // per REST call; 0: 10 s
	// Algos, when set, are stopped before a panic cancel touches any
	// order (the algo engine of the account): otherwise an algo could
	// place an order behind the cancel.
	Algos AlgoStopper
}

// AlgoStopper stops the algos of an account, or of one symbol (symbol
// ""), before anything else is cancelled (implemented by *algo.Engine
// itself).
type AlgoStopper interface {
	StopAlgos(symbol, why string) error
}

// Desk sends and cancels on one venue account.
type Desk struct {
	cfg Config
	ids *trade.ClientIDs

	mu    sync.Mutex
	rules map[string]trade.Rule
}

// New builds a desk; it needs a client that can trade.
func New(c Config) (*Desk, error) {
	if c.Client == nil || !c.Client.CanTrade() {
		return nil, errors.New("desk: no API keys")
	}
	if c.Timeout == 0 {
		c.Timeout = 10 * time.Second
	}
	return &Desk{cfg: c, ids: trade.NewClientIDs(), rules: map[string]trade.Rule{}}, nil
}

// Client is the venue client (the account screen reads and changes the
// account through it).
func (d *Desk) Client() *venue.Client { return d.cfg.Client }

// IDs hands out client order ids for new orders.
func (d *Desk) IDs() *trade.ClientIDs { return d.ids }

// Context bounds one REST call.
func (d *Desk) Context() (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.Background(), d.cfg.Timeout)
}

// Timeout is the bound of one REST call.
func (d *Desk) Timeout() time.Duration { return d.cfg.Timeout }

// Rule is a symbol's trading rule, from the cache or the rule source.
func (d *Desk) Rule(symbol string) (trade.Rule, bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if r, ok := d.rules[symbol]; ok {
		return r, ok
	}
	if d.cfg.Rules != nil {
		for _, r := range d.cfg.Rules() {
			d.rules[r.Symbol] = trade.RuleOf(r)
		}
	}
	r, ok := d.rules[symbol]
	return r, ok
}

// LoadRules fetches every symbol rule (one call for all symbols) and keeps
// them.
func (d *Desk) LoadRules(ctx context.Context) (map[string]trade.Rule, error) {
	rows, err := d.cfg.Client.SymbolRules(ctx)
	out := make(map[string]trade.Rule, len(rows))
	for _, r := range rows {
		out[r.Symbol] = trade.RuleOf(r)
	}
	d.mu.Lock()
	for s, r := range out {
		d.rules[s] = r
	}
	d.mu.Unlock()
	return out, err
}

// Send tracks the order as PENDING, then posts it. When the venue surely
// never took it, the pending order ends at once with the reason.
func (d *Desk) Send(ctx context.Context, o trade.Order) (venue.OrderAck, error) {
	if d.cfg.Tracker != nil {
		d.cfg.Tracker.TrackPending(PendingOrder(o, time.Now()))
	}
	ack, err := d.cfg.Client.SendOrder(ctx, trade.Request(o))
	if Refused(err) && d.cfg.Tracker != nil && o.ClientOrderID != 0 {
		d.cfg.Tracker.RejectPending(o.ClientOrderID, trade.Explain(err))
	}
	return ack, err
}

// Cancel cancels one order: by order id, or by client order id when the
// order id is not known yet (a PENDING order, ":cancel cid N").
func (d *Desk) Cancel(ctx context.Context, o feed.Order) error {
	if o.OrderID != 0 {
		return d.cfg.Client.CancelOrder(ctx, o.Symbol, o.OrderID)
	}
	return d.cfg.Client.CancelOrderByClientID(ctx, o.Symbol, o.ClientOrderID)
}

// CancelAll cancels every order of a symbol, after stopping its algos.
func (d *Desk) CancelAll(ctx context.Context, symbol string) error {
	if d.cfg.Algos != nil {
		if err := d.cfg.Algos.StopAlgos(symbol, "cancel all "+symbol); err != nil {
			return fmt.Errorf("algos: %w", err)
		}
	}
	return d.cfg.Client.CancelAll(ctx, symbol)
}

// panicPages bounds the panic cancel's read of incomplete orders: 20
// pages of 25.
const panicPages = 20

// PanicCancel cancels every order on every symbol: the symbols known (the
// dashboard's open orders) plus every symbol the venue lists as having
// incomplete orders when asked now. It returns the symbols it cancelled.
func (d *Desk) PanicCancel(ctx context.Context, known []string) (targets []string, errs []error) {
	if d.cfg.Algos != nil {
		if err := d.cfg.Algos.StopAlgos("", "panic cancel"); err != nil {
			errs = append(errs, fmt.Errorf("algos: %w", err))
		}
	}
	all := map[string]bool{}
	for _, s := range known {
		all[s] = true
	}
	for page := 1; page <= panicPages; page++ {
		rows, meta, err := d.cfg.Client.ListOrders(ctx, venue.OrderFilter{Status: venue.StatusIncomplete, Page: page})
		if err != nil {
			errs = append(errs, err)
			break
		}
		for _, o := range rows {
			all[o.Symbol] = true
		}
		if !meta.HasNext(len(rows)) {
			break
		}
	}
	targets = make([]string, 0, len(all))
	for s := range all {
		targets = append(targets, s)
	}
	sort.Strings(targets)
	for _, s := range targets {
		if err := d.cfg.Client.CancelAll(ctx, s); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", s, err))
		}
	}
	return targets, errs
}

// Refused reports an error after which the order surely does not exist:
// the client did not send it (a parameter error, or its rate limiter
// would have had to wait too long), or the venue answered with a 4xx code.
// Timeouts, network errors and 5xx leave it unknown.
func Refused(err error) bool {
	var pe *venue.ParamError
	var ae *venue.APIError
	switch {
	case errors.As(err, &pe), errors.Is(err, venue.ErrRateLimitWait):
		return true
	case errors.As(err, &ae):
		return ae.Code != 0 && ae.HTTPStatus >= 400 && ae.HTTPStatus < 500
	}
	return false
}

// PendingOrder is how a just-sent order shows until the venue answers.
func PendingOrder(o trade.Order, now time.Time) feed.Order {
	fo := feed.Order{ClientOrderID: o.ClientOrderID, Symbol: o.Symbol, Side: string(o.Side), Type: string(o.Type),
		Status: feed.StatusPending, Tag: o.Tag, Price: o.Price, Quantity: o.Quantity, Amount: o.Amount,
		Created: now, Updated: now}
	if o.Type == trade.Market {
		fo.Price = decimal.Zero
	}
	if o.HasVisible {
		fo.Visible = o.Visible
	} else {
		fo.Visible = o.Quantity
	}
	return fo
}
