package book

// Sync keeps a Book in step with the venue by the prevTs rule (the venue
// has no sequence numbers; each `@orderbookupdate` carries the ts of the
// previous push for that symbol):
//
//  1. until a snapshot is applied, buffer deltas (checking their chain);
//  2. on a snapshot with time T, drop buffered deltas with ts <= T; the
//     first kept one must have prevTs <= T < ts; each later one must have
//     prevTs == ts of the last applied;
//  3. a break, a crossed book or a reconnect throws the book away and asks
//     for a new snapshot.
//
// Sync is not safe for concurrent use; the feed calls it under its lock.
type Sync struct {
	Book Book

	live    bool  // a snapshot was applied and the chain holds
	bridged bool  // the first delta after the snapshot was applied
	lastTs  int64 // ts of the snapshot or of the last applied delta
	pending []delta
	npend   int

	// MaxPending bounds the buffer while waiting for a snapshot; the oldest
	// half is dropped when it fills (a snapshot newer than them is needed
	// anyway). Default 256 (about 50 s of 200 ms pushes).
	MaxPending int

	Gaps    uint64 // prevTs chain breaks seen
	Resyncs uint64 // snapshots requested because the book could not be trusted
	Crossed uint64 // crossed books seen (each also a resync)
	Dropped uint64 // deltas older than the book (duplicates, out of order, pre-snapshot)
	Applied uint64 // deltas applied
	// Verified counts snapshots that matched the live book at the same ts;
	// Mismatches those that did not (each also a resync).
	Verified, Mismatches uint64
	everLive             bool
}

type delta struct {
	ts, prevTs int64
	asks, bids []Level
}

// Live reports whether the book is in sync with the venue.
func (s *Sync) Live() bool { return s.live }

// EverLive reports whether the book was ever in sync (Resyncing rather
// than Syncing when it is not now).
func (s *Sync) EverLive() bool { return s.everLive }

// LastTS is the venue time of the book's state.
func (s *Sync) LastTS() int64 { return s.lastTs }

// Pending is the number of buffered deltas waiting for a snapshot.
func (s *Sync) Pending() int { return s.npend }

// Delta handles one orderbookupdate. It returns true when the book is not
// live and needs a snapshot (the caller fetches one unless one is already
// on its way). The level slices are copied when buffered.
func (s *Sync) Delta(ts, prevTs int64, asks, bids []Level) (needSnapshot bool) {
	if !s.live {
		s.buffer(ts, prevTs, asks, bids)
		return true
	}
	if ts <= s.lastTs {
		s.Dropped++
		return false
	}
	if prevTs == s.lastTs || (!s.bridged && prevTs < s.lastTs) {
		s.apply(ts, asks, bids)
		return !s.live
	}
	// The chain broke: an update between lastTs and prevTs never arrived.
	s.Gaps++
	s.resync()
	s.buffer(ts, prevTs, asks, bids)
	return true
}

// Snapshot applies a full book taken at venue time ts, then replays the
// buffered deltas that follow it. It returns true when the snapshot could
// not be bridged to the deltas (too old) and another is needed.
// truncated says the snapshot was cut at the venue's depth limit.
func (s *Sync) Snapshot(ts int64, asks, bids []Level, truncated bool) (needSnapshot bool) {
	if s.live {
		return false // a late reply to a request that is no longer needed
	}
	s.Book.Reset(asks, bids, truncated)
	s.live, s.bridged, s.lastTs = true, false, ts
	if s.Book.Crossed() {
		s.Crossed++
		s.resync()
		s.npend = 0
		return true
	}
	pend := s.pending[:s.npend]
	for i := range pend {
		d := &pend[i]
		if d.ts <= s.lastTs {
			s.Dropped++
			continue
		}
		if d.prevTs == s.lastTs || (!s.bridged && d.prevTs < s.lastTs) {
			s.apply(d.ts, d.asks, d.bids)
			if !s.live {
				break // crossed
			}
			continue
		}
		// The buffered chain starts after the snapshot: the snapshot is
		// older than what we hold. Keep the buffer and ask for a newer one.
		s.live = false
		s.Resyncs++
		s.compact(i)
		return true
	}
	s.npend = 0
	if s.live {
		s.everLive = true
	}
	return !s.live
}

// Break throws the book away as after a gap: a delta that could not be
// decoded is a delta missed.
func (s *Sync) Break() {
	s.Gaps++
	s.resync()
}

// Verify compares a live book with a full snapshot taken at the same ts
// (the venue's periodic @orderbook push). A difference proves the book
// corrupt: it is thrown away and a resync starts, and Verify returns false.
// Snapshots at another ts cannot be compared and are ignored. Only the
// prices both vouch for are compared (a truncated snapshot covers down to
// its last level, a book from a truncated snapshot down to its limit);
// when the snapshot vouches for more than the book, the book takes it, so
// a book cut by an earlier shallow snapshot regains depth.
func (s *Sync) Verify(ts int64, asks, bids []Level, truncated bool) bool {
	if !s.live || ts != s.lastTs {
		return true
	}
	b := &s.Book
	snapAsk, snapBid := int64(0), int64(0)
	if truncated {
		snapAsk, snapBid = lastPrice(asks), lastPrice(bids)
	}
	if !equalLevels(covered(b.Asks, snapAsk, true), covered(asks, b.AskLimit, true)) ||
		!equalLevels(covered(b.Bids, snapBid, false), covered(bids, b.BidLimit, false)) {
		s.Mismatches++
		s.resync()
		return false
	}
	s.Verified++
	if deeper(b.AskLimit, snapAsk, truncated, true) && deeper(b.BidLimit, snapBid, truncated, false) &&
		(b.AskLimit != 0 || b.BidLimit != 0) {
		b.Reset(asks, bids, truncated)
	}
	return true
}

// deeper reports whether a snapshot side (cut at snapLimit when truncated)
// vouches for at least what the book side (cut at bookLimit, 0: uncut) does.
func deeper(bookLimit, snapLimit int64, truncated, asc bool) bool {
	switch {
	case !truncated:
		return true
	case bookLimit == 0:
		return false
	case asc:
		return snapLimit >= bookLimit
	}
	return snapLimit <= bookLimit
}

func lastPrice(side []Level) int64 {
	if len(side) == 0 {
		return 0
	}
	return side[len(side)-1].Price
}

// covered is the best-first prefix of side within limit (0: all of it).
func covered(side []Level, limit int64, asc bool) []Level {
	if limit == 0 {
		return side
	}
	for i, l := range side {
		if (asc && l.Price > limit) || (!asc && l.Price < limit) {
			return side[:i]
		}
	}
	return side
}

func equalLevels(a, b []Level) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// Reset forgets the book after a reconnect: deltas may have been missed.
func (s *Sync) Reset() {
	if s.live {
		s.Resyncs++
	}
	s.live, s.bridged = false, false
	s.npend = 0
}

func (s *Sync) apply(ts int64, asks, bids []Level) {
	s.Book.Apply(asks, bids)
	s.lastTs, s.bridged = ts, true
	s.Applied++
	if s.Book.Crossed() {
		s.Crossed++
		s.resync()
		return
	}
	s.everLive = true
}

func (s *Sync) resync() {
	s.live, s.bridged = false, false
	s.Resyncs++
	s.npend = 0
}

func (s *Sync) buffer(ts, prevTs int64, asks, bids []Level) {
	if s.npend > 0 {
		last := &s.pending[s.npend-1]
		switch {
		case ts <= last.ts:
			s.Dropped++
			return
		case prevTs != last.ts:
			// A break inside the buffer: what came before it can never be
			// bridged to a later snapshot.
			s.Gaps++
			s.npend = 0
		}
	}
	max := s.MaxPending
	if max <= 0 {
		max = 256
	}
	if s.npend >= max {
		s.compact(s.npend / 2)
	}
	if s.npend == len(s.pending) {
		s.pending = append(s.pending, delta{})
	}
	d := &s.pending[s.npend]
	s.npend++
	d.ts, d.prevTs = ts, prevTs
	d.asks = append(d.asks[:0], asks...)
	d.bids = append(d.bids[:0], bids...)
}

// compact drops the first n buffered deltas, keeping their slices for reuse.
func (s *Sync) compact(n int) {
	if n <= 0 {
		return
	}
	kept := s.npend - n
	for i := 0; i < kept; i++ {
		s.pending[i], s.pending[i+n] = s.pending[i+n], s.pending[i]
	}
	s.npend = kept
}
