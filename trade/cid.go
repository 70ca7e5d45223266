package trade

import (
	"math/rand/v2"
	"sync"
)

// ClientIDs hands out client order ids that are unique among open orders.
// It counts up from a random 10-digit start: short enough to type in
// ":cancel cid N", and two sessions (a restart, or several SSH viewers
// trading on one account) practically never share a range, which matters
// because the venue's get and cancel by client id pick the latest order
// with that id.
type ClientIDs struct {
	mu   sync.Mutex
	next int64
}

// NewClientIDs starts a counter at a random point of [10^9, 9*10^9).
func NewClientIDs() *ClientIDs {
	return NewClientIDsFrom(1_000_000_000 + rand.Int64N(8_000_000_000))
}

// NewClientIDsFrom starts a counter at a given id (tests).
func NewClientIDsFrom(start int64) *ClientIDs { return &ClientIDs{next: start} }

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
