package rehearse

import (
	"context"
	"fmt"
	"slices"
	"time"

	"tradedeck/algo"
	"tradedeck/algo/report"
	"tradedeck/feed"
	"tradedeck/sim/exchange"
	"tradedeck/trade"
)

// begin opens the positions, then adds the algos, each settled.
func (r *run) begin() error {
	r.started = true
	for i, p := range r.opts.Positions {
		if err := r.open(p, int64(i+1)); err != nil {
			return err
		}
	}
	for i, s := range r.specs {
		pv, err := r.eng.Preview(s)
		if err != nil {
			return fmt.Errorf("rehearse %q at %s: %w", r.opts.Lines[i], r.clock().UTC().Format("15:04:05.000"), err)
		}
		a, err := r.eng.Add(s, algo.Confirm{By: "rehearsal"})
		if err != nil {
			return fmt.Errorf("rehearse %q at %s: %w", r.opts.Lines[i], r.clock().UTC().Format("15:04:05.000"), err)
		}
		r.starts = append(r.starts, report.Start{Algo: a.ID, At: r.clock(), Arrival: r.mid(s.Symbol), Exit: pv.Size})
		if err := r.settle(); err != nil {
			return err
		}
	}
	return nil
}

// open takes a position with a MARKET order on the paper book; what the
// book could not fill is an error (the position is the premise).
func (r *run) open(p Position, cid int64) error {
	side := trade.Buy
	if p.Qty.IsNegative() {
		side = trade.Sell
	}
	o := trade.Order{Symbol: p.Symbol, Side: side, Type: trade.Market, Quantity: p.Qty.Abs(), ClientOrderID: cid}
	ctx, cancel := context.WithTimeout(context.Background(), r.opts.Settle)
	_, err := r.paper.client.SendOrder(ctx, trade.Request(o))
	cancel()
	if err != nil {
		return fmt.Errorf("rehearse: opening %s %s on paper: %w", p.Symbol, p.Qty, err)
	}
	if err := r.settle(); err != nil {
		return err
	}
	if got := r.openFilled[cid]; got.LessThan(p.Qty.Abs()) {
		return fmt.Errorf("rehearse: opening %s %s on paper: the recorded book filled only %s", p.Symbol, p.Qty, got)
	}
	return nil
}

// settle waits until the engine is quiet and has every order event its
// orders (or the frame just played) caused: Quiet is read before the
// events are taken, so a quiet engine with nothing left to hear is
// settled for good (only new data moves it).
func (r *run) settle() error {
	if r.paper == nil {
		return nil
	}
	deadline := time.Now().Add(r.opts.Settle)
	for {
		quiet := r.eng == nil || r.eng.Quiet()
		n, err := r.drain()
		if err != nil {
			return err
		}
		if quiet && n == 0 {
			return nil
		}
		if n == 0 {
			if time.Now().After(deadline) {
				return fmt.Errorf("rehearse: the engine did not settle within %s at %s", r.opts.Settle, r.clock().UTC().Format(time.RFC3339Nano))
			}
			time.Sleep(50 * time.Microsecond)
		}
	}
}

// drain hands the paper venue's events to the follower (resting orders'
// queues) and the engine (the private stream's order and position
// views), and keeps the fills. The driver and the REST server (after
// each request) both drain; one at a time, in the venue's order.
func (r *run) drain() (int, error) {
	r.drainMu.Lock()
	defer r.drainMu.Unlock()
	n := r.delivered + r.deliverLocked()
	r.delivered = 0
	if r.paper.lost {
		return n, fmt.Errorf("rehearse: the paper venue's events overflowed: the rehearsal cannot go on")
	}
	return n, nil
}

// deliverAfterRequest is the REST server's drain: what it delivered
// counts for the driver's next drain (news the engine has not settled).
func (r *run) deliverAfterRequest() {
	r.drainMu.Lock()
	defer r.drainMu.Unlock()
	if r.paper != nil {
		r.delivered += r.deliverLocked()
	}
}

// deliverLocked hands over the events published so far: the order
// events in the venue's order, then each position they moved, once, as
// the venue's private stream follows executions with the position.
func (r *run) deliverLocked() int {
	n := 0
	var moved []string
	for {
		ev, ok := r.paper.pending()
		if !ok {
			break
		}
		n++
		r.paper.follow.Observe(ev)
		switch ev := ev.(type) {
		case exchange.OrderEvent:
			if ev.ApplicationID == r.paper.appID {
				r.orderEvent(ev)
			}
		case exchange.PositionEvent:
			if ev.ApplicationID == r.paper.appID && !slices.Contains(moved, ev.Symbol) {
				moved = append(moved, ev.Symbol)
			}
		}
	}
	for _, sym := range moved {
		r.observePosition(sym)
	}
	return n
}

// observePosition hands the engine the paper account's position of sym.
func (r *run) observePosition(sym string) {
	if r.eng == nil {
		return
	}
	p := r.paper.position(sym)
	r.eng.ObservePosition(feed.Position{Symbol: sym, Holding: p.Holding, AvgOpenPrice: p.AverageOpen,
		MarkPrice: p.MarkPrice, Updated: time.UnixMilli(p.UpdatedMs)})
}

// orderEvent is one executionreport of the paper account.
func (r *run) orderEvent(ev exchange.OrderEvent) {
	if ev.TradeID != 0 {
		f := report.Fill{Time: time.UnixMilli(ev.Timestamp), Symbol: ev.Symbol, Side: trade.Side(ev.Side), Qty: ev.ExecutedQuantity,
			Price: ev.ExecutedPrice, Fee: ev.Fee, FeeAsset: ev.FeeAsset, Maker: ev.Maker}
		if id, leg, _, ok := r.parseCID(ev.ClientOrderID); ok {
			f.Algo, f.Leg = id, leg
			r.fills = append(r.fills, f)
		} else {
			r.opening = append(r.opening, f)
			r.openFilled[ev.ClientOrderID] = r.openFilled[ev.ClientOrderID].Add(f.Qty)
		}
	}
	r.trackOrder(ev)
	if r.eng != nil {
		r.eng.ObserveOrder(feed.Order{OrderID: ev.OrderID, ClientOrderID: ev.ClientOrderID, Symbol: ev.Symbol,
			Side: string(ev.Side), Type: string(ev.Type), Status: string(ev.Status), Tag: ev.OrderTag, Reason: ev.Reason,
			Price: ev.Price, Quantity: ev.Quantity, Executed: ev.TotalExecutedQuantity, AvgPrice: ev.AvgPrice,
			TotalFee: ev.TotalFee, FeeAsset: ev.FeeAsset, Updated: time.UnixMilli(ev.Timestamp)})
	}
}

// trackOrder keeps each of the engine's child orders for the report:
// placed at its first event, ended at its final one.
func (r *run) trackOrder(ev exchange.OrderEvent) {
	id, leg, attempt, ok := r.parseCID(ev.ClientOrderID)
	if !ok {
		return
	}
	at := time.UnixMilli(ev.Timestamp)
	i, seen := r.orderAt[ev.ClientOrderID]
	if !seen {
		i = len(r.orders)
		r.orderAt[ev.ClientOrderID] = i
		r.orders = append(r.orders, report.Order{Placed: at, Algo: id, Leg: leg.String(), Attempt: attempt,
			Type: string(ev.Type), Side: trade.Side(ev.Side), Price: ev.Price, Qty: ev.Quantity})
	}
	o := &r.orders[i]
	o.Filled, o.Status = ev.TotalExecutedQuantity, string(ev.Status)
	switch ev.Status {
	case exchange.StatusFilled, exchange.StatusCancelled, exchange.StatusRejected:
		o.Ended = at
	}
}

// parseCID reads an engine's child order id (false: not the engine's).
func (r *run) parseCID(cid int64) (algo.ID, algo.Leg, int, bool) {
	if r.st == nil {
		return 0, 0, 0, false
	}
	return algo.ParseClientOrderID(r.st.ClientIDPrefix(), cid)
}

// report builds the dry run's report from the engine's snapshot.
func (r *run) report() (report.Report, error) {
	r.drainMu.Lock()
	defer r.drainMu.Unlock()
	return report.Build(report.Input{Algos: r.eng.Snapshot(), Starts: r.starts, Fills: r.fills, Orders: r.orders, Opening: r.opening,
		Tape: r.tape, From: r.first, To: r.last}), nil
}
