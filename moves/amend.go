package moves

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/shopspring/decimal"

	"tradedeck/trade"
	"tradedeck/venue"
)

// Amend replaces an open order by one with a new price or quantity.
type Amend struct {
	Symbol  string
	OrderID int64
	// New is the replacement. Its Quantity is the order's total as the user
	// now wants it: what the old order already filled is taken off, so the
	// fills of both together never exceed it.
	New trade.Order
}

// AmendResult is both halves of an amend, reported as one action.
type AmendResult struct {
	Cancelled bool            // the venue confirmed the old order is no longer open
	Final     string          // the old order's final status (CANCELLED, or FILLED when it filled first)
	Filled    decimal.Decimal // what the old order had executed
	CancelErr error           // the cancel was refused or not confirmed: nothing new was sent
	Skipped   string          // why no new order was sent after a confirmed cancel
	Sent      trade.Order     // the new order as sent (when sent)
	Ack       venue.OrderAck
	PlaceErr  error // the new order was refused: the old one is cancelled, nothing rests
}

// Placed reports whether the new order was accepted.
func (r AmendResult) Placed() bool {
	return r.Cancelled && r.Skipped == "" && r.PlaceErr == nil && r.CancelErr == nil
}

// String is the one line the user reads: both halves.
func (r AmendResult) String() string {
	if r.CancelErr != nil {
		return "amend: cancel failed (" + trade.Explain(r.CancelErr) + "); no new order sent, the old order is unchanged"
	}
	head := "amend: old order " + r.Final
	if r.Filled.IsPositive() {
		head += " (" + r.Filled.String() + " filled)"
	}
	switch {
	case r.Skipped != "":
		return head + "; no new order: " + r.Skipped
	case r.PlaceErr != nil:
		return head + "; new order refused (" + trade.Explain(r.PlaceErr) + "): nothing rests now"
	}
	return fmt.Sprintf("%s; new order #%d placed: %s %s @ %s", head, int64(r.Ack.OrderID), r.Sent.Side, r.Sent.Quantity, r.Sent.Price)
}

var errNotConfirmed = errors.New("the venue accepted the cancel but did not confirm it in time")

// AmendOrder cancels the old order, waits until the venue reports it no
// longer open, and only then sends the new one: one half failing can
// never leave the order doubled. poll is how often the order is read
// while the cancel is pending; ctx bounds the whole amend.
func AmendOrder(ctx context.Context, v Venue, a Amend, ids *trade.ClientIDs, poll time.Duration) AmendResult {
	var r AmendResult
	if err := v.CancelOrder(ctx, a.Symbol, a.OrderID); err != nil {
		r.CancelErr = err
		return r
	}
	old, err := waitClosed(ctx, v, a.OrderID, poll)
	if err != nil {
		r.CancelErr = err
		return r
	}
	r.Cancelled, r.Final, r.Filled = true, string(old.Status), old.Executed
	if old.Status == venue.StatusFilled {
		r.Skipped = "it filled before the cancel"
		return r
	}
	n := a.New
	n.Quantity = a.New.Quantity.Sub(old.Executed)
	if !n.Quantity.IsPositive() {
		r.Skipped = "the old order already filled " + old.Executed.String() + ", the new quantity " + a.New.Quantity.String()
		return r
	}
	if ids != nil {
		n.ClientOrderID = ids.Next(nil)
	}
	r.Sent = n
	r.Ack, r.PlaceErr = v.SendOrder(ctx, trade.Request(n))
	return r
}

// waitClosed reads the order until the venue reports it no longer open.
func waitClosed(ctx context.Context, v Venue, id int64, poll time.Duration) (venue.Order, error) {
	t := time.NewTicker(max(poll, time.Millisecond))
	defer t.Stop()
	for {
		o, err := v.GetOrder(ctx, id)
		if err == nil && !o.Status.Open() {
			return o, nil
		}
		select {
		case <-ctx.Done():
			if err != nil {
				return o, fmt.Errorf("%w: %v", errNotConfirmed, err)
			}
			return o, errNotConfirmed
		case <-t.C:
		}
	}
}
