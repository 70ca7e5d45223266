package feed

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"time"

	"tradedeck/feed/ws"
	"tradedeck/venue"
	"tradedeck/venue/stream"
)

// account is the private state: orders, fills, balances, positions. The
// stream keeps it current; REST reconciliation repairs what a disconnect
// hid. Every Event it emits is emitted once: fills are keyed by trade id,
// order events by order id and kind.
type account struct {
	open       map[int64]*Order // by order id
	pending    map[int64]*Order // sent, not yet acked; by client order id
	history    []Order          // completed, newest first
	fills      []Fill           // newest first
	seen       map[int64]bool   // trade ids already counted
	seenQ      []int64
	announced  map[int64]uint8 // order id -> events already emitted
	announcedQ []int64
	touched    map[int64]time.Time // local time an open order last changed
	balances   map[string]Balance
	balTouched map[string]time.Time
	positions  map[string]Position
	posTouched map[string]time.Time
	margin     Margin
	reconciled time.Time
	version    uint64
	primed     bool // the first reconciliation is done: later discoveries are news
	authFails  int  // consecutive handshakes the venue closed without a reply
}

const (
	annAck uint8 = 1 << iota
	annCancel
	annReject
)

const memoryLimit = 20000 // trade and order ids remembered for dedup

func (a *account) init() {
	a.open = map[int64]*Order{}
	a.pending = map[int64]*Order{}
	a.seen = map[int64]bool{}
	a.announced = map[int64]uint8{}
	a.touched = map[int64]time.Time{}
	a.balances = map[string]Balance{}
	a.balTouched = map[string]time.Time{}
	a.positions = map[string]Position{}
	a.posTouched = map[string]time.Time{}
}

func statusRank(s string) int {
	switch s {
	case StatusPending:
		return 0
	case "NEW":
		return 1
	case "PARTIAL_FILLED":
		return 2
	case "FILLED", "CANCELLED", "REJECTED":
		return 3
	}
	return 1
}

func terminal(s string) bool { return statusRank(s) == 3 }

// TrackPending shows a just-sent order as PENDING until the venue's
// executionreport (or a REST read) moves it; matched by client order id.
func (f *Feed) TrackPending(o Order) {
	if o.ClientOrderID == 0 {
		return // cannot be matched; the ack will show it
	}
	o.Status = StatusPending
	if o.Created.IsZero() {
		o.Created = f.cfg.Clock()
	}
	o.Updated = o.Created
	f.mu.Lock()
	f.acct.pending[o.ClientOrderID] = &o
	f.acctDirt = true
	f.mu.Unlock()
}

// RejectPending ends a PENDING order at once when the venue refused it
// outright (the REST call failed with a venue error), with an
// EventRejected; an order the venue already acknowledged is not touched.
func (f *Feed) RejectPending(clientOrderID int64, reason string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	p := f.acct.pending[clientOrderID]
	if p == nil {
		return
	}
	f.endPendingLocked(p, reason, fmt.Sprintf("%s %s order (client id %d) rejected%s", p.Symbol, p.Side, clientOrderID, reasonSuffix(reason)))
}

// endPendingLocked moves a pending order to history as REJECTED.
func (f *Feed) endPendingLocked(p *Order, reason, text string) {
	a := &f.acct
	delete(a.pending, p.ClientOrderID)
	o := *p
	o.Status, o.Reason, o.Updated = "REJECTED", reason, f.cfg.Clock()
	a.history = append([]Order{o}, a.history...)
	if len(a.history) > f.cfg.HistoryLimit {
		a.history = a.history[:f.cfg.HistoryLimit]
	}
	a.version++
	f.acctDirt = true
	f.emitLocked(Event{Kind: EventRejected, Symbol: o.Symbol, Order: &o, Text: text})
}

// applyOrderLocked merges a new view of an order (from the stream or REST)
// and emits its ack, cancel or reject once. Views never move an order
// backwards: a late NEW cannot reopen a FILLED order.
func (f *Feed) applyOrderLocked(o Order, news bool) {
	a := &f.acct
	if p := a.pending[o.ClientOrderID]; p != nil && o.ClientOrderID != 0 {
		delete(a.pending, o.ClientOrderID)
		if o.Created.IsZero() {
			o.Created = p.Created
		}
	}
	if cur := a.open[o.OrderID]; cur != nil {
		if statusRank(o.Status) < statusRank(cur.Status) ||
			(statusRank(o.Status) == statusRank(cur.Status) && o.Executed.LessThan(cur.Executed)) {
			return
		}
		if o.Created.IsZero() {
			o.Created = cur.Created
		}
	} else if f.inHistoryLocked(o.OrderID) {
		return // already complete: nothing can follow
	}
	if o.Created.IsZero() {
		o.Created = o.Updated
	}
	if terminal(o.Status) {
		delete(a.open, o.OrderID)
		delete(a.touched, o.OrderID)
		a.history = append([]Order{o}, a.history...)
		if len(a.history) > f.cfg.HistoryLimit {
			a.history = a.history[:f.cfg.HistoryLimit]
		}
	} else {
		oc := o
		a.open[o.OrderID] = &oc
		a.touched[o.OrderID] = f.cfg.Clock()
	}
	a.version++
	f.acctDirt = true
	if !news {
		// Known before we started: history, not news. Only what already
		// happened is marked; a later cancel is still announced.
		if terminal(o.Status) {
			f.announceLocked(o.OrderID, annAck|annCancel|annReject)
		} else {
			f.announceLocked(o.OrderID, annAck)
		}
		return
	}
	if ob := f.cfg.Observer; ob != nil {
		ob.ObserveOrder(o)
	}
	oc := o
	switch o.Status {
	case "NEW", "PARTIAL_FILLED":
		if f.announceLocked(o.OrderID, annAck) {
			f.emitLocked(Event{Kind: EventOrderAck, Symbol: o.Symbol, Order: &oc,
				Text: fmt.Sprintf("%s %s %s %s @ %s accepted (#%d)", o.Symbol, o.Side, o.Type, o.Quantity, o.Price, o.OrderID)})
		}
	case "CANCELLED":
		if f.announceLocked(o.OrderID, annCancel) {
			f.emitLocked(Event{Kind: EventCancelled, Symbol: o.Symbol, Order: &oc,
				Text: fmt.Sprintf("%s %s order #%d cancelled (%s of %s filled)%s", o.Symbol, o.Side, o.OrderID, o.Executed, o.Quantity, reasonSuffix(o.Reason))})
		}
	case "REJECTED":
		if f.announceLocked(o.OrderID, annReject) {
			f.emitLocked(Event{Kind: EventRejected, Symbol: o.Symbol, Order: &oc,
				Text: fmt.Sprintf("%s %s order #%d rejected%s", o.Symbol, o.Side, o.OrderID, reasonSuffix(o.Reason))})
		}
	}
}

func reasonSuffix(r string) string {
	if r == "" {
		return ""
	}
	return ": " + r
}

// announceLocked marks kinds as emitted for an order and reports whether
// any of them was new.
func (f *Feed) announceLocked(orderID int64, kinds uint8) bool {
	a := &f.acct
	prev, ok := a.announced[orderID]
	if prev&kinds == kinds {
		return false
	}
	if !ok {
		a.announcedQ = append(a.announcedQ, orderID)
		if len(a.announcedQ) > memoryLimit {
			delete(a.announced, a.announcedQ[0])
			a.announcedQ = a.announcedQ[1:]
		}
	}
	a.announced[orderID] = prev | kinds
	return true
}

func (f *Feed) inHistoryLocked(id int64) bool {
	for i := range f.acct.history {
		if f.acct.history[i].OrderID == id {
			return true
		}
	}
	return false
}

// addFillLocked records a fill once per trade id; news emits its Event.
func (f *Feed) addFillLocked(fl Fill, news bool) {
	a := &f.acct
	if fl.TradeID == 0 || a.seen[fl.TradeID] {
		return
	}
	a.seen[fl.TradeID] = true
	a.seenQ = append(a.seenQ, fl.TradeID)
	if len(a.seenQ) > memoryLimit {
		delete(a.seen, a.seenQ[0])
		a.seenQ = a.seenQ[1:]
	}
	if fl.ClientOrderID == 0 {
		if o := a.open[fl.OrderID]; o != nil {
			fl.ClientOrderID = o.ClientOrderID
		}
	}
	// Keep fills newest first even when REST delivers them late.
	i := sort.Search(len(a.fills), func(i int) bool { return !a.fills[i].Time.After(fl.Time) })
	a.fills = append(a.fills, Fill{})
	copy(a.fills[i+1:], a.fills[i:])
	a.fills[i] = fl
	if len(a.fills) > f.cfg.HistoryLimit {
		a.fills = a.fills[:f.cfg.HistoryLimit]
	}
	a.version++
	f.acctDirt = true
	if news {
		fc := fl
		f.emitLocked(Event{Kind: EventFill, Symbol: fl.Symbol, Fill: &fc, Time: fl.Time,
			Text: fmt.Sprintf("%s %s %s @ %s filled (order #%d, trade #%d)", fl.Symbol, fl.Side, fl.Qty, fl.Price, fl.OrderID, fl.TradeID)})
	}
}

func msTime(ms int64) time.Time {
	if ms <= 0 {
		return time.Time{}
	}
	return time.UnixMilli(ms)
}

// authenticate is the private stream's handshake.
func (f *Feed) authenticate(ctx context.Context, s *ws.Session) error {
	ts := s.Now().UnixMilli()
	id := s.NextID()
	creds := f.cfg.Credentials
	if err := s.Send(stream.AppendAuth(nil, id, creds.APIKey, venue.SignWS(creds.APISecret, ts), ts)); err != nil {
		return err
	}
	var env stream.Envelope
	for {
		_, perr, err := s.Read(&env)
		if err != nil {
			// The venue closes the connection on a bad key; a few of those
			// in a row are a refusal, not bad luck.
			f.mu.Lock()
			f.acct.authFails++
			n := f.acct.authFails
			f.mu.Unlock()
			if n >= 3 {
				return fmt.Errorf("private stream: closed during authentication %d times: %w", n, ws.ErrAuthFailed)
			}
			return err
		}
		if perr != nil || string(env.Event) != "auth" {
			continue
		}
		f.mu.Lock()
		f.acct.authFails = 0
		f.mu.Unlock()
		if env.Success {
			return nil
		}
		msg := string(env.ErrorMsg)
		if msg == "" {
			msg = "no reason given"
		}
		return fmt.Errorf("private stream: %s: %w", msg, ws.ErrAuthFailed)
	}
}

func (f *Feed) onPrivateConnect() { f.Reconcile() }

// onPrivateFrame handles one private stream frame.
func (f *Feed) onPrivateFrame(frame []byte, env *stream.Envelope, perr error) {
	now := f.cfg.Clock()
	if !f.admit(1, now, env, perr) {
		return
	}
	switch string(env.Topic) {
	case "executionreport":
		var r stream.ExecutionReport
		if err := stream.DecodeExecutionReport(env.Data, &r); err != nil {
			f.frameError(1, "executionreport", err)
			f.Reconcile() // an order update we cannot read: ask REST
			return
		}
		f.onExecutionReport(&r)
	case "balance":
		bs, err := stream.DecodeBalance(env.Data)
		if err != nil {
			f.frameError(1, "balance", err)
			return
		}
		f.mu.Lock()
		for _, b := range bs {
			f.setBalanceLocked(b, msTime(env.TS), now)
		}
		f.mu.Unlock()
	case "positioninfo":
		var pi stream.PositionInfo
		if err := stream.DecodePositionInfo(env.Data, &pi); err != nil {
			f.frameError(1, "positioninfo", err)
			return
		}
		f.mu.Lock()
		a := &f.acct
		a.margin = Margin{Mode: pi.MarginMode, MarginRate: pi.MarginRate, Leverage: pi.Leverage,
			TakerFeeRate: pi.TakerFeeRate, MakerFeeRate: pi.MakerFeeRate,
			FuturesTakerFeeRate: pi.FuturesTakerFeeRate, FuturesMakerFeeRate: pi.FuturesMakerFeeRate}
		for _, b := range pi.Tokens {
			f.setBalanceLocked(b, msTime(env.TS), now)
		}
		a.version++
		f.acctDirt = true
		f.mu.Unlock()
	case "position":
		ps, err := stream.DecodePositions(env.Data)
		if err != nil {
			f.frameError(1, "position", err)
			return
		}
		f.mu.Lock()
		for _, p := range ps {
			f.setPositionLocked(Position{Symbol: p.Symbol, Holding: p.Holding, PendingLong: p.PendingLongQty,
				PendingShort: p.PendingShortQty, AvgOpenPrice: p.AvgOpenPrice, SettlePrice: p.SettlePrice,
				MarkPrice: p.MarkPrice, PnL24h: p.PnL24h, Fee24h: p.Fee24h, Updated: msTime(env.TS)}, now)
		}
		f.mu.Unlock()
	}
}

func (f *Feed) setBalanceLocked(b stream.TokenBalance, at, now time.Time) {
	a := &f.acct
	a.balances[b.Token] = Balance{Token: b.Token, Holding: b.Holding, Frozen: b.Frozen, Interest: b.Interest,
		OutstandingHolding: b.OutstandingHolding, PendingExposure: b.PendingExposure, Updated: at}
	a.balTouched[b.Token] = now
	a.version++
	f.acctDirt = true
}

func (f *Feed) setPositionLocked(p Position, now time.Time) {
	a := &f.acct
	if p.EstLiqPrice.IsZero() {
		p.EstLiqPrice = a.positions[p.Symbol].EstLiqPrice // the stream does not carry it; REST does
	}
	if p.Holding.IsZero() && p.PendingLong.IsZero() && p.PendingShort.IsZero() {
		delete(a.positions, p.Symbol)
	} else {
		a.positions[p.Symbol] = p
	}
	if o := f.cfg.Observer; o != nil {
		o.ObservePosition(p)
	}
	a.posTouched[p.Symbol] = now
	a.version++
	f.acctDirt = true
}

func (f *Feed) onExecutionReport(r *stream.ExecutionReport) {
	at := msTime(r.Timestamp)
	o := Order{OrderID: r.OrderID, ClientOrderID: r.ClientOrderID, Symbol: r.Symbol, Side: r.Side, Type: r.Type,
		Status: r.Status, Tag: r.OrderTag, Reason: r.Reason, Price: r.Price, Quantity: r.Quantity, Amount: r.Amount,
		Visible: r.Visible, Executed: r.TotalExecutedQuantity, AvgPrice: r.AvgPrice, TotalFee: r.TotalFee,
		FeeAsset: r.FeeAsset, Updated: at}
	f.mu.Lock()
	defer f.mu.Unlock()
	if r.TradeID != 0 && r.ExecutedQuantity.Sign() > 0 {
		f.addFillLocked(Fill{TradeID: r.TradeID, OrderID: r.OrderID, ClientOrderID: r.ClientOrderID, Symbol: r.Symbol,
			Side: r.Side, Price: r.ExecutedPrice, Qty: r.ExecutedQuantity, Fee: r.Fee, FeeAsset: r.FeeAsset,
			Maker: r.Maker, Time: at}, true)
	}
	f.applyOrderLocked(o, true)
}

func orderFromREST(v venue.Order) Order {
	return Order{OrderID: int64(v.OrderID), ClientOrderID: int64(v.ClientOrderID), Symbol: v.Symbol,
		Side: string(v.Side), Type: string(v.Type), Status: string(v.Status), Tag: v.OrderTag,
		Price: v.Price.Decimal, Quantity: v.Quantity.Decimal, Amount: v.Amount.Decimal, Visible: v.Visible,
		Executed: v.Executed, AvgPrice: v.AverageExecutedPrice.Decimal, TotalFee: v.TotalFee, FeeAsset: v.FeeAsset,
		Created: v.CreatedTime.Time, Updated: v.UpdatedTime.Time}
}

func fillFromREST(t venue.Trade) Fill {
	return Fill{TradeID: int64(t.ID), OrderID: int64(t.OrderID), Symbol: t.Symbol, Side: string(t.Side),
		Price: t.ExecutedPrice, Qty: t.ExecutedQuantity, Fee: t.Fee, FeeAsset: t.FeeAsset,
		Maker: bool(t.IsMaker), Time: t.ExecutedTimestamp.Time}
}

// reconcileLoop runs a reconciliation after every private (re)connect, on
// request, and periodically.
func (f *Feed) reconcileLoop(ctx context.Context) {
	var every <-chan time.Time
	if f.cfg.ReconcileEvery > 0 {
		t := time.NewTicker(f.cfg.ReconcileEvery)
		defer t.Stop()
		every = t.C
	}
	for {
		select {
		case <-ctx.Done():
			return
		case <-f.reconcileReq:
		case <-every:
		}
		for attempt := 0; ; attempt++ {
			err := f.reconcile(ctx)
			if err == nil || ctx.Err() != nil {
				break
			}
			f.restError(1, "reconciliation", err)
			if attempt >= 8 {
				f.mu.Lock()
				f.emitLocked(Event{Kind: EventError, Text: "account reconciliation keeps failing: " + err.Error()})
				f.mu.Unlock()
				break
			}
			if !f.sleep(ctx, f.cfg.Backoff.Delay(attempt, 0.5)) {
				return
			}
		}
	}
}

// retry repeats a REST call that failed for a passing reason (429, 5xx,
// the venue's internal errors) a few times with backoff, so one unlucky
// call does not throw away a whole reconciliation.
func retry[T any](ctx context.Context, f *Feed, call func() (T, error)) (T, error) {
	for attempt := 0; ; attempt++ {
		v, err := call()
		if err == nil || attempt >= 5 || !venue.IsRetryable(err) || ctx.Err() != nil {
			return v, err
		}
		if !f.sleep(ctx, f.cfg.Backoff.Delay(attempt, 0.5)) {
			return v, ctx.Err()
		}
	}
}

// pages reads every page of a listing (at most max), stopping at the last.
func pages[T any](ctx context.Context, f *Feed, max int, get func(page int) ([]T, venue.Meta, error)) ([]T, error) {
	type page struct {
		rows []T
		meta venue.Meta
	}
	var all []T
	for p := 1; p <= max; p++ {
		pg, err := retry(ctx, f, func() (page, error) {
			rows, meta, err := get(p)
			return page{rows, meta}, err
		})
		if err != nil {
			return nil, err
		}
		all = append(all, pg.rows...)
		per := int(pg.meta.RecordsPerPage)
		if len(pg.rows) == 0 || per <= 0 || len(pg.rows) < per {
			break
		}
		if pg.meta.Total != nil && p*per >= int(*pg.meta.Total) {
			break
		}
	}
	return all, nil
}

// reconcile reads the account from REST and merges it: fills and order
// completions that happened while the stream was down are added (and
// announced) exactly once; balances and positions are replaced unless the
// stream updated them during the reconciliation.
func (f *Feed) reconcile(ctx context.Context) error {
	start := f.cfg.Clock()
	f.mu.Lock()
	since, primed := f.acct.reconciled, f.acct.primed
	f.mu.Unlock()
	// The first reconciliation reads history (silently, bounded); later
	// ones read everything since the previous one began, with a margin for
	// clocks, so nothing that happened in between can be cut off.
	tradePages := 20
	if since.IsZero() {
		since = start.Add(-f.cfg.ReconcileLookback)
	} else {
		since = since.Add(-time.Minute)
		tradePages = 400
	}
	open, err := pages(ctx, f, 40, func(p int) ([]venue.Order, venue.Meta, error) {
		return f.rest.ListOrders(ctx, venue.OrderFilter{Status: venue.StatusIncomplete, Page: p})
	})
	if err != nil {
		return fmt.Errorf("open orders: %w", err)
	}
	done, err := pages(ctx, f, 4, func(p int) ([]venue.Order, venue.Meta, error) {
		return f.rest.ListOrders(ctx, venue.OrderFilter{Status: venue.StatusCompleted, Start: since, Page: p})
	})
	if err != nil {
		return fmt.Errorf("completed orders: %w", err)
	}
	trades, err := pages(ctx, f, tradePages, func(p int) ([]venue.Trade, venue.Meta, error) {
		return f.rest.ListTrades(ctx, venue.TradeFilter{Start: since, Page: p})
	})
	if err != nil {
		return fmt.Errorf("recent trades: %w", err)
	}
	holding, err := retry(ctx, f, func() ([]venue.HoldingV2, error) { return f.rest.HoldingV2(ctx, false) })
	if err != nil {
		return fmt.Errorf("holding: %w", err)
	}
	positions, perr := retry(ctx, f, func() (venue.Positions, error) { return f.rest.Positions(ctx) })
	var info *venue.AccountInfo
	if !primed {
		if ai, err := f.rest.AccountInfo(ctx); err == nil {
			info = &ai
		}
	}

	f.mu.Lock()
	news := f.acct.primed
	sort.Slice(trades, func(i, j int) bool { return trades[i].ExecutedTimestamp.Before(trades[j].ExecutedTimestamp.Time) })
	for _, t := range trades {
		f.addFillLocked(fillFromREST(t), news)
	}
	// Completed orders first (oldest first, so history ends newest first):
	// a cancel that happened while the stream was down is announced here.
	sort.Slice(done, func(i, j int) bool { return done[i].UpdatedTime.Before(done[j].UpdatedTime.Time) })
	for _, v := range done {
		f.applyOrderLocked(orderFromREST(v), news)
	}
	inREST := map[int64]bool{}
	for _, v := range open {
		o := orderFromREST(v)
		inREST[o.OrderID] = true
		f.applyOrderLocked(o, news)
	}
	// Open orders REST no longer lists ended while we were not looking
	// (unless they changed since this reconciliation began).
	var gone []int64
	for id := range f.acct.open {
		if !inREST[id] && f.acct.touched[id].Before(start) {
			gone = append(gone, id)
		}
	}
	var lost []int64
	for cid, p := range f.acct.pending {
		if start.Sub(p.Created) >= f.cfg.PendingTimeout {
			lost = append(lost, cid)
		}
	}
	f.mu.Unlock()

	for _, id := range gone {
		v, err := retry(ctx, f, func() (venue.Order, error) { return f.rest.GetOrder(ctx, id) })
		if err != nil {
			if venue.IsNotFound(err) {
				continue
			}
			return fmt.Errorf("order %d: %w", id, err)
		}
		f.mu.Lock()
		f.applyOrderLocked(orderFromREST(v), news)
		f.mu.Unlock()
	}
	for _, cid := range lost {
		v, err := retry(ctx, f, func() (venue.Order, error) { return f.rest.GetOrderByClientID(ctx, cid) })
		f.mu.Lock()
		switch {
		case err == nil:
			f.applyOrderLocked(orderFromREST(v), true)
		case venue.IsNotFound(err):
			if p := f.acct.pending[cid]; p != nil {
				f.endPendingLocked(p, "the venue has no order with this client id",
					fmt.Sprintf("%s %s order (client id %d) never reached the venue", p.Symbol, p.Side, cid))
			}
		}
		f.mu.Unlock()
		if err != nil && !venue.IsNotFound(err) {
			return fmt.Errorf("order by client id %d: %w", cid, err)
		}
	}

	f.mu.Lock()
	defer f.mu.Unlock()
	a := &f.acct
	seenTok := map[string]bool{}
	for _, h := range holding {
		seenTok[h.Token] = true
		if a.balTouched[h.Token].After(start) {
			continue // the stream is newer
		}
		a.balances[h.Token] = Balance{Token: h.Token, Holding: h.Holding, Frozen: h.Frozen, Interest: h.Interest,
			OutstandingHolding: h.OutstandingHolding, PendingExposure: h.PendingExposure, Updated: h.UpdatedTime.Time}
	}
	for tok := range a.balances {
		if !seenTok[tok] && !a.balTouched[tok].After(start) {
			delete(a.balances, tok)
		}
	}
	if perr == nil {
		seenSym := map[string]bool{}
		for _, p := range positions.Positions {
			seenSym[p.Symbol] = true
			if a.posTouched[p.Symbol].After(start) {
				continue
			}
			pos := Position{Symbol: p.Symbol, Holding: p.Holding, PendingLong: p.PendingLongQty,
				PendingShort: p.PendingShortQty, AvgOpenPrice: p.AverageOpenPrice, SettlePrice: p.SettlePrice,
				MarkPrice: p.MarkPrice, EstLiqPrice: p.EstLiqPrice, PnL24h: p.PnL24h, Fee24h: p.Fee24h, Updated: p.Timestamp.Time}
			if o := f.cfg.Observer; o != nil {
				o.ObservePosition(pos)
			}
			if p.Holding.IsZero() && p.PendingLongQty.IsZero() && p.PendingShortQty.IsZero() {
				delete(a.positions, p.Symbol)
				continue
			}
			a.positions[p.Symbol] = pos
		}
		for sym := range a.positions {
			if !seenSym[sym] && !a.posTouched[sym].After(start) {
				delete(a.positions, sym)
			}
		}
	} else if !errors.Is(perr, context.Canceled) {
		f.health[1].h.Err = "positions: " + perr.Error()
	}
	if info != nil {
		app := info.Application
		a.margin = Margin{Mode: string(app.AccountMode), MarginRate: info.MarginRate, Leverage: app.Leverage,
			TakerFeeRate: app.TakerFeeRate, MakerFeeRate: app.MakerFeeRate,
			FuturesTakerFeeRate: app.FuturesTakerFeeRate, FuturesMakerFeeRate: app.FuturesMakerFeeRate}
	}
	a.reconciled = start // the next one reads from here on
	a.primed = true
	a.version++
	f.acctDirt = true
	f.hlthDirt = true
	if n := len(gone) + len(lost); n > 0 {
		f.logf("reconciliation settled %d orders", n)
	}
	return nil
}

// accountSnapshotLocked copies the account for the UI.
func (f *Feed) accountSnapshotLocked() *Account {
	a := &f.acct
	out := &Account{Margin: a.margin, Reconciled: a.reconciled, Version: a.version}
	for _, o := range a.open {
		out.Open = append(out.Open, *o)
	}
	for _, o := range a.pending {
		out.Open = append(out.Open, *o)
	}
	sort.Slice(out.Open, func(i, j int) bool {
		if !out.Open[i].Created.Equal(out.Open[j].Created) {
			return out.Open[i].Created.After(out.Open[j].Created)
		}
		return out.Open[i].OrderID > out.Open[j].OrderID
	})
	out.History = append([]Order(nil), a.history...)
	out.Fills = append([]Fill(nil), a.fills...)
	for _, b := range a.balances {
		out.Balances = append(out.Balances, b)
	}
	sort.Slice(out.Balances, func(i, j int) bool { return out.Balances[i].Token < out.Balances[j].Token })
	for _, p := range a.positions {
		out.Positions = append(out.Positions, p)
	}
	sort.Slice(out.Positions, func(i, j int) bool { return out.Positions[i].Symbol < out.Positions[j].Symbol })
	return out
}
