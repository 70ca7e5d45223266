package feed

import (
	"github.com/shopspring/decimal"
)

// Observer sees the feed's data at its full rate, before coalescing:
// every public trade, bbo, ticker and mark price pushed, every new view of
// an own order the venue reported, every position and every stream state
// change. It is how the alert engine sees a price that crosses a level and
// comes back between two frames, which no Update ever shows.
//
// The methods run on the feed's goroutines (the market and private stream
// readers, reconciliation), so market and account calls may come at the
// same time: an Observer must be safe for concurrent use. Order and
// position views are observed while the account part holds its lock (so
// they come in the venue's order): every method must return quickly,
// never block (hand off to a buffered channel, dropping and counting when
// it is full) and never call back into the Feed. The market reader waits
// for each call, and so does every frame behind it.
type Observer interface {
	ObserveTrade(symbol string, sc Scale, t Trade)
	ObserveBBO(b BBO)
	ObserveTicker(t Ticker)
	ObserveMark(symbol string, price decimal.Decimal, ts int64)
	// ObserveOrder gets each new view of an own order that is news (not
	// the history read at start): acks, partial fills, fills, cancels,
	// rejects, from the stream or from a reconciliation.
	ObserveOrder(o Order)
	ObservePosition(p Position)
	ObserveHealth(h Health)
}

// Tee hands every observation to each observer in turn (the alert
// engines' fanout and the algo engine on one feed). nil observers are
// left out.
func Tee(obs ...Observer) Observer {
	var t tee
	for _, o := range obs {
		if o != nil {
			t = append(t, o)
		}
	}
	return t
}

type tee []Observer

func (t tee) ObserveTrade(symbol string, sc Scale, tr Trade) {
	for _, o := range t {
		o.ObserveTrade(symbol, sc, tr)
	}
}

func (t tee) ObserveBBO(b BBO) {
	for _, o := range t {
		o.ObserveBBO(b)
	}
}

func (t tee) ObserveTicker(tk Ticker) {
	for _, o := range t {
		o.ObserveTicker(tk)
	}
}

func (t tee) ObserveMark(symbol string, price decimal.Decimal, ts int64) {
	for _, o := range t {
		o.ObserveMark(symbol, price, ts)
	}
}

func (t tee) ObserveOrder(or Order) {
	for _, o := range t {
		o.ObserveOrder(or)
	}
}

func (t tee) ObservePosition(p Position) {
	for _, o := range t {
		o.ObservePosition(p)
	}
}

func (t tee) ObserveHealth(h Health) {
	for _, o := range t {
		o.ObserveHealth(h)
	}
}
