package mirror

import (
	"context"
	"encoding/json"

	"tradedeck/sim/exchange"
	"tradedeck/venue"
)

// Direct use: a host that plays recorded market data into the follower
// itself, frame by frame on one goroutine, instead of Run following a
// live upstream (the rehearsal of `tradedeck replay --rehearse`). The
// fills are decided exactly as for a live upstream (docs/paper.md); the
// host owns the order: nothing here runs on its own.

// LoadBook lays a whole upstream book of symbol (a recorded snapshot or
// full-book push) onto the local book, then applies the updates that
// came before it and chain to it.
func (f *Follower) LoadBook(symbol string, ob venue.OrderBook) {
	if s := f.syms[symbol]; s != nil {
		f.layBook(context.Background(), s, ob)
	}
}

// Synced reports a symbol whose local book follows the upstream's (false
// before its first book and after a gap in the updates).
func (f *Follower) Synced(symbol string) bool {
	s := f.syms[symbol]
	return s != nil && s.synced
}

// Push applies one market stream push of the upstream (its JSON frame:
// orderbookupdate, trade, markprice, indexprice, estfundingrate). A gap
// in the book updates unsyncs the symbol until the next LoadBook.
func (f *Follower) Push(raw []byte) error {
	var fr frame
	if err := json.Unmarshal(raw, &fr); err != nil {
		return err
	}
	f.onFrame(context.Background(), fr)
	return nil
}

// Observe hands the follower one event of the local exchange: its order
// events keep the resting user orders (and their queues) in step.
func (f *Follower) Observe(ev exchange.Event) {
	if oe, ok := ev.(exchange.OrderEvent); ok {
		f.onOrderEvent(oe)
	}
}
