package feed

// Observer sees every change the feed reads, at full rate, before any
// coalescing: each public trade, bbo, ticker and futures value (mark,
// index, funding, open interest) of every subscribed symbol, each Event
// (own order acks, fills, cancels, rejects, errors), each position and
// balance change, and each change of a stream's health. An alerts engine
// uses it; the UI reads Updates instead.
//
// The feed calls it on its own goroutines (the market and private stream
// readers, reconciliation, housekeeping), so calls for market data and for
// the account may come concurrently: an Observer must be safe for
// concurrent use. It must return quickly and never block: the market
// reader waits for it, and so does every frame behind it. Hand the value
// to a buffered channel (dropping and counting when it is full) or update
// a small structure under a short lock. It must not call back into the
// Feed: Events and account changes are observed while the account's lock
// is held, which keeps them in the same order as Update.Events.
//
// Every value is a copy the observer may keep.
type Observer interface {
	OnTrade(symbol string, sc Scale, t Trade)
	OnBBO(b BBO)
	OnTicker(t Ticker)
	OnFutures(f Futures)
	OnEvent(e Event)
	OnPosition(p Position)
	OnBalance(b Balance)
	OnHealth(h Health)
}

// NopObserver ignores everything; embed it to observe only some kinds.
type NopObserver struct{}

func (NopObserver) OnTrade(string, Scale, Trade) {}
func (NopObserver) OnBBO(BBO)                    {}
func (NopObserver) OnTicker(Ticker)              {}
func (NopObserver) OnFutures(Futures)            {}
func (NopObserver) OnEvent(Event)                {}
func (NopObserver) OnPosition(Position)          {}
func (NopObserver) OnBalance(Balance)            {}
func (NopObserver) OnHealth(Health)              {}
