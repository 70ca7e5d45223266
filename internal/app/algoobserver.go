package app

import (
	"sync/atomic"

	"github.com/shopspring/decimal"

	"tradedeck/algo"
	"tradedeck/feed"
)

// engineObserver hands the feed's observations to the engine once this
// process runs one (the feed starts before the lock is known).
type engineObserver struct{ e atomic.Pointer[algo.Engine] }

var _ feed.Observer = (*engineObserver)(nil)

func (o *engineObserver) ObserveTrade(s string, sc feed.Scale, t feed.Trade) {
	if e := o.e.Load(); e != nil {
		e.ObserveTrade(s, sc, t)
	}
}

func (o *engineObserver) ObserveBBO(b feed.BBO) {
	if e := o.e.Load(); e != nil {
		e.ObserveBBO(b)
	}
}

func (o *engineObserver) ObserveTicker(t feed.Ticker) {
	if e := o.e.Load(); e != nil {
		e.ObserveTicker(t)
	}
}

func (o *engineObserver) ObserveMark(s string, p decimal.Decimal, ts int64) {
	if e := o.e.Load(); e != nil {
		e.ObserveMark(s, p, ts)
	}
}

func (o *engineObserver) ObserveOrder(or feed.Order) {
	if e := o.e.Load(); e != nil {
		e.ObserveOrder(or)
	}
}

func (o *engineObserver) ObservePosition(p feed.Position) {
	if e := o.e.Load(); e != nil {
		e.ObservePosition(p)
	}
}

func (o *engineObserver) ObserveHealth(h feed.Health) {
	if e := o.e.Load(); e != nil {
		e.ObserveHealth(h)
	}
}
