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
// The methods run on the feed's reader goroutines, some while the feed
// holds its lock: they must return quickly, never block, and never call
// back into the Feed.
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

// trackTopics are the full-rate topics of a tracked symbol.
func trackTopics(symbol string) []string {
	t := []string{symbol + "@trade", symbol + "@bbo"}
	if isPerp(symbol) {
		t = append(t, symbol+"@markprice")
	}
	return t
}

// Track keeps the trades, bbo and mark price of symbols subscribed
// whatever the focus and the watchlist (the symbols alerts watch), so the
// Observer sees them at full rate. It replaces the previous set.
func (f *Feed) Track(symbols []string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	symbols = dedupe(symbols)
	old := f.tracked
	f.tracked = symbols
	if !f.isLoaded() {
		return // subscribed once the rules are loaded
	}
	keep := map[string]bool{}
	for _, s := range symbols {
		keep[s] = true
	}
	for _, s := range old {
		if !keep[s] {
			f.market.Unsubscribe(f.notNeeded(trackTopics(s))...)
		}
	}
	f.subscribeTrackedLocked()
}

func (f *Feed) subscribeTrackedLocked() {
	for _, s := range f.tracked {
		if f.known(s) {
			f.market.Subscribe(trackTopics(s)...)
		}
	}
}

// notNeeded filters topics about to be unsubscribed, keeping those a
// tracked symbol still needs.
func (f *Feed) notNeeded(topics []string) []string {
	if len(f.tracked) == 0 {
		return topics
	}
	need := map[string]bool{}
	for _, s := range f.tracked {
		for _, t := range trackTopics(s) {
			need[t] = true
		}
	}
	if f.focus != "" {
		for _, t := range f.focusTopics(f.focus, f.interval) {
			need[t] = true
		}
		for _, t := range watchTopics(f.focus) {
			need[t] = true
		}
	}
	for _, s := range f.watch {
		for _, t := range watchTopics(s) {
			need[t] = true
		}
	}
	out := topics[:0:0]
	for _, t := range topics {
		if !need[t] {
			out = append(out, t)
		}
	}
	return out
}
