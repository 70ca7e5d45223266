package trade

import (
	"sync"
	"time"
)

// ClientIDs hands out client order ids that are unique among open orders.
// It counts up from a clock-derived start so that ids of one session do not
// repeat those of the previous one (the venue's get/cancel by client id
// picks the latest order with the id), and stays short enough to type in
// ":cancel cid N": seconds within a ~115-day cycle times 100, 9-10 digits.
type ClientIDs struct {
	mu   sync.Mutex
	next int64
}

// NewClientIDs starts the counter from the clock.
func NewClientIDs(now time.Time) *ClientIDs {
	const cycle = 100_000_000 // seconds (~3.2 years): ids stay below 10^10
	return &ClientIDs{next: (now.Unix()%cycle)*100 + 1}
}

// Next returns a fresh id not in open (the client ids of open orders).
func (g *ClientIDs) Next(open map[int64]bool) int64 {
	g.mu.Lock()
	defer g.mu.Unlock()
	id := FreeClientID(g.next, open)
	g.next = id + 1
	return id
}

// FreeClientID is the first id from id on that no open order uses
// (wrapping to 1 at the top of the venue's range; 0 means "none").
func FreeClientID(id int64, open map[int64]bool) int64 {
	if id <= 0 {
		id = 1
	}
	for open[id] {
		if id == MaxClientOrderID {
			id = 1
			continue
		}
		id++
	}
	return id
}
