package feed

import (
	"context"
	"fmt"
	"time"

	"tradedeck/feed/ws"
	"tradedeck/venue"
	"tradedeck/venue/stream"
)

// authenticate is the private stream's handshake.
func (a *accountState) authenticate(ctx context.Context, s *ws.Session) error {
	ts := s.Now().UnixMilli()
	id := s.NextID()
	creds := a.c.cfg.Credentials
	if err := s.Send(stream.AppendAuth(nil, id, creds.APIKey, venue.SignWS(creds.APISecret, ts), ts)); err != nil {
		return err
	}
	var env stream.Envelope
	for {
		_, perr, err := s.Read(&env)
		if err != nil {
			// The venue closes the connection on a bad key; a few of those
			// in a row are a refusal, not bad luck.
			a.mu.Lock()
			a.authFails++
			n := a.authFails
			a.mu.Unlock()
			if n >= 3 {
				return fmt.Errorf("private stream: closed during authentication %d times: %w", n, ws.ErrAuthFailed)
			}
			return err
		}
		if perr != nil || string(env.Event) != "auth" {
			continue
		}
		a.mu.Lock()
		a.authFails = 0
		a.mu.Unlock()
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

func (a *accountState) onConnect() { a.requestReconcile() }

// onFrame handles one private stream frame.
func (a *accountState) onFrame(frame []byte, env *stream.Envelope, perr error) {
	now := a.c.cfg.Clock()
	if !a.c.health.admit(pStream, now, env, perr) {
		return
	}
	switch string(env.Topic) {
	case "executionreport":
		var r stream.ExecutionReport
		if err := stream.DecodeExecutionReport(env.Data, &r); err != nil {
			a.c.health.frameError(pStream, "executionreport", err)
			a.requestReconcile() // an order update we cannot read: ask REST
			return
		}
		a.onExecutionReport(&r)
	case "balance":
		bs, err := stream.DecodeBalance(env.Data)
		if err != nil {
			a.c.health.frameError(pStream, "balance", err)
			return
		}
		a.mu.Lock()
		for _, b := range bs {
			a.setBalanceLocked(b, msTime(env.TS), now)
		}
		a.mu.Unlock()
	case "positioninfo":
		var pi stream.PositionInfo
		if err := stream.DecodePositionInfo(env.Data, &pi); err != nil {
			a.c.health.frameError(pStream, "positioninfo", err)
			return
		}
		mg := Margin{Mode: pi.MarginMode, MarginRate: pi.MarginRate, Leverage: pi.Leverage, FuturesLeverage: pi.FuturesLeverage,
			TakerFeeRate: pi.TakerFeeRate, MakerFeeRate: pi.MakerFeeRate,
			FuturesTakerFeeRate: pi.FuturesTakerFeeRate, FuturesMakerFeeRate: pi.FuturesMakerFeeRate}
		a.mu.Lock()
		for _, b := range pi.Tokens {
			a.setBalanceLocked(b, msTime(env.TS), now)
		}
		if !a.margin.same(mg) { // the venue repeats it every second (unchanged.go)
			a.margin = mg
			a.version++
			a.changed()
		}
		a.mu.Unlock()
	case "position":
		ps, err := stream.DecodePositions(env.Data)
		if err != nil {
			a.c.health.frameError(pStream, "position", err)
			return
		}
		a.mu.Lock()
		for _, p := range ps {
			a.setPositionLocked(Position{Symbol: p.Symbol, Holding: p.Holding, PendingLong: p.PendingLongQty,
				PendingShort: p.PendingShortQty, AvgOpenPrice: p.AvgOpenPrice, SettlePrice: p.SettlePrice,
				MarkPrice: p.MarkPrice, PnL24h: p.PnL24h, Fee24h: p.Fee24h, Updated: msTime(env.TS)}, now)
		}
		a.mu.Unlock()
	}
}

func (a *accountState) setBalanceLocked(b stream.TokenBalance, at, now time.Time) {
	bal := Balance{Token: b.Token, Holding: b.Holding, Frozen: b.Frozen, Interest: b.Interest,
		OutstandingHolding: b.OutstandingHolding, PendingExposure: b.PendingExposure, Updated: at}
	prev, had := a.balances[b.Token]
	a.balances[b.Token] = bal
	a.balTouched[b.Token] = now
	if had && prev.sameHolding(bal) {
		return // a repeat (unchanged.go)
	}
	a.version++
	a.changed()
}

func (a *accountState) setPositionLocked(p Position, now time.Time) {
	if prev, ok := a.positions[p.Symbol]; ok && prev.Holding.Equal(p.Holding) {
		p.EstLiqPrice = prev.EstLiqPrice // the stream does not carry it; REST does
	} else if !p.Holding.IsZero() {
		a.requestLiq() // a new size: the old price is wrong, REST has the new one
	}
	if p.Holding.IsZero() && p.PendingLong.IsZero() && p.PendingShort.IsZero() {
		delete(a.positions, p.Symbol)
	} else {
		a.positions[p.Symbol] = p
	}
	if a.c.obs != nil {
		a.c.obs.ObservePosition(p)
	}
	a.posTouched[p.Symbol] = now
	a.version++
	a.changed()
}

func (a *accountState) onExecutionReport(r *stream.ExecutionReport) {
	at := msTime(r.Timestamp)
	o := Order{OrderID: r.OrderID, ClientOrderID: r.ClientOrderID, Symbol: r.Symbol, Side: r.Side, Type: r.Type,
		Status: r.Status, Tag: r.OrderTag, Reason: r.Reason, Price: r.Price, Quantity: r.Quantity, Amount: r.Amount,
		Visible: r.Visible, Executed: r.TotalExecutedQuantity, AvgPrice: r.AvgPrice, TotalFee: r.TotalFee,
		FeeAsset: r.FeeAsset, Updated: at}
	a.mu.Lock()
	defer a.mu.Unlock()
	if r.TradeID != 0 && r.ExecutedQuantity.Sign() > 0 {
		a.addFillLocked(Fill{TradeID: r.TradeID, OrderID: r.OrderID, ClientOrderID: r.ClientOrderID, Symbol: r.Symbol,
			Side: r.Side, Price: r.ExecutedPrice, Qty: r.ExecutedQuantity, Fee: r.Fee, FeeAsset: r.FeeAsset,
			Maker: r.Maker, Time: at}, true)
	}
	a.applyOrderLocked(o, true)
}
