package engine

import "math"

// nilIdx marks the end of an intrusive list or an absent slab entry.
const nilIdx int32 = -1

// order is a resting order in the slab. Its level's FIFO is an intrusive doubly linked list
// through prev/next; a free slab entry chains the free list through next.
type order struct {
	id     OrderID
	price  int64
	qty    int64 // remaining
	vis    int64 // display cap as submitted
	filled int64
	owner  uint32
	prev   int32
	next   int32
	level  int32
	side   Side
}

// shown is the quantity this order contributes to Depth.
func shown(vis, qty int64) int64 { return min(vis, qty) }

// level is one price level in the level slab: a FIFO of orders plus running totals.
type level struct {
	price int64
	qty   int64 // total remaining, hidden included
	vis   int64 // total shown
	head  int32
	tail  int32
}

// levelRef is an entry of a side's sorted level list. key is the price for bids and its negation
// for asks, so that both lists sort ascending with the best level last: taking liquidity and
// resting near the touch, the common cases, touch only the end of the slice.
type levelRef struct {
	key int64
	idx int32
}

type bookSide struct {
	refs    []levelRef
	byPrice table // price -> level slab index
}

func sideKey(s Side, price int64) int64 {
	if s == Buy {
		return price
	}
	return -price
}

// search returns the position of key in refs, or where it would be inserted.
func (bs *bookSide) search(key int64) int {
	refs := bs.refs
	n := len(refs)
	// Makers cluster near the touch: look at the last few levels before searching.
	for i := n - 1; i >= max(n-4, 0); i-- {
		if refs[i].key < key {
			return i + 1
		}
	}
	n = max(n-4, 0)
	if n == 0 {
		return 0
	}
	// Branch-free binary search: the compiler emits a conditional move, so no mispredictions.
	base := 0
	for n > 1 {
		half := n >> 1
		if refs[base+half-1].key < key {
			base += half
		}
		n -= half
	}
	if refs[base].key < key {
		base++
	}
	return base
}

// Book is one symbol's limit order book.
type Book struct {
	priceDec, qtyDec int

	sides   [3]bookSide // indexed by Side
	orders  []order
	freeOrd int32
	levels  []level
	freeLvl int32
	index   table // OrderID -> order slab index
	resting int
}

// New returns an empty book. The decimals document the scales of prices and quantities; the
// engine itself only compares and adds the integers.
func New(priceDec, qtyDec int) *Book {
	b := &Book{
		priceDec: priceDec,
		qtyDec:   qtyDec,
		freeOrd:  nilIdx,
		freeLvl:  nilIdx,
	}
	b.index.init(0)
	b.sides[Buy].byPrice.init(0)
	b.sides[Sell].byPrice.init(0)
	return b
}

// PriceDecimals returns the price scale given to New.
func (b *Book) PriceDecimals() int { return b.priceDec }

// QtyDecimals returns the quantity scale given to New.
func (b *Book) QtyDecimals() int { return b.qtyDec }

// Len returns the number of resting orders.
func (b *Book) Len() int { return b.resting }

func validSide(s Side) bool { return s == Buy || s == Sell }

// valid checks what the engine needs to stay consistent; business rules (ticks, steps, notional)
// belong to the caller.
func valid(o *Order) bool {
	if !validSide(o.Side) || o.Price < 0 || o.Qty < 0 || o.QuoteAmt < 0 {
		return false
	}
	switch o.Kind {
	case Limit, PostOnly:
		return o.Price > 0 && o.Qty > 0 && o.QuoteAmt == 0 && o.Visible >= 0 && o.Visible <= o.Qty
	case Market:
		return o.Qty > 0 || o.QuoteAmt > 0
	case IOC, FOK:
		return o.Qty > 0 && o.QuoteAmt == 0
	}
	return false
}

// Submit executes o against the book and rests what its kind lets rest. Fills are appended to
// fills (no allocation when it has capacity) in execution order.
func (b *Book) Submit(o Order, fills []Fill) (Result, []Fill) {
	if !valid(&o) {
		return Result{Remaining: o.Qty, Rejected: true}, fills
	}
	if _, dup := b.index.get(uint64(o.ID)); dup {
		return Result{Remaining: o.Qty, Rejected: true}, fills
	}
	// The level a remainder would join. Matching only removes opposite levels, so it stays valid.
	li := nilIdx
	if o.Kind == Limit || o.Kind == PostOnly {
		var ok bool
		if li, ok = b.sides[o.Side].byPrice.get(uint64(o.Price)); !ok {
			li = nilIdx
		} else if b.levels[li].qty > math.MaxInt64-o.Qty {
			return Result{Remaining: o.Qty, Rejected: true}, fills // the level total would overflow
		}
	}
	switch o.Kind {
	case PostOnly:
		if b.crosses(o.Side, o.Price) {
			return Result{Remaining: o.Qty, Rejected: true}, fills
		}
		b.rest(&o, o.Qty, li)
		return Result{Remaining: o.Qty, Rested: true}, fills
	case FOK:
		if b.FillableQty(o.Side, o.Price, o.Qty) < o.Qty {
			return Result{Remaining: o.Qty}, fills
		}
	}
	want := o.Qty
	if want == 0 {
		want = math.MaxInt64 // by quote amount only
	}
	filled, fills := b.match(&o, want, fills)
	if o.Qty == 0 {
		return Result{Filled: filled}, fills
	}
	res := Result{Filled: filled, Remaining: o.Qty - filled}
	if o.Kind == Limit && res.Remaining > 0 {
		b.rest(&o, res.Remaining, li)
		res.Rested = true
	}
	return res, fills
}

// crosses reports whether a taker of side at price would meet the opposite best.
func (b *Book) crosses(s Side, price int64) bool {
	opp := &b.sides[s.Opposite()]
	n := len(opp.refs)
	if n == 0 {
		return false
	}
	best := b.levels[opp.refs[n-1].idx].price
	if s == Buy {
		return price >= best
	}
	return price <= best
}

// within reports whether a maker price is acceptable to a taker of side with limit (0 = unbounded).
func within(s Side, price, limit int64) bool {
	if limit == 0 {
		return true
	}
	if s == Buy {
		return price <= limit
	}
	return price >= limit
}

// match takes liquidity for o up to want quantity (and o.QuoteAmt when set), best price first.
func (b *Book) match(o *Order, want int64, fills []Fill) (int64, []Fill) {
	opp := &b.sides[o.Side.Opposite()]
	quoteLeft := o.QuoteAmt
	var filled int64
	for want > 0 && len(opp.refs) > 0 {
		ref := opp.refs[len(opp.refs)-1]
		lv := &b.levels[ref.idx]
		price := lv.price
		if !within(o.Side, price, o.Price) {
			break
		}
		levelWant := want
		if o.QuoteAmt > 0 {
			// Whole quantity units only: the taker stops when the rest of its amount cannot
			// pay for one more unit at this level.
			levelWant = min(levelWant, quoteLeft/price)
			if levelWant == 0 {
				break
			}
		}
		took := levelWant
		for levelWant > 0 && lv.head != nilIdx {
			mi := lv.head
			m := &b.orders[mi]
			x := min(m.qty, levelWant)
			before := m.qty
			m.qty -= x
			m.filled += x
			lv.qty -= x
			lv.vis -= shown(m.vis, before) - shown(m.vis, m.qty)
			levelWant -= x
			done := m.qty == 0
			fills = append(fills, Fill{
				MakerID: m.id, TakerID: o.ID,
				MakerOwner: m.owner, TakerOwner: o.Owner,
				Price: price, Qty: x, MakerDone: done,
			})
			if done {
				lv.head = m.next
				if m.next != nilIdx {
					b.orders[m.next].prev = nilIdx
				} else {
					lv.tail = nilIdx
				}
				b.dropOrder(mi)
			}
		}
		took -= levelWant
		filled += took
		want -= took
		quoteLeft -= took * price
		if lv.head != nilIdx {
			break // the level outlasted the taker
		}
		opp.refs = opp.refs[:len(opp.refs)-1]
		opp.byPrice.del(uint64(price))
		b.freeLevel(ref.idx)
	}
	return filled, fills
}

// rest puts qty of o on its side of the book at o.Price, last in time at that price, in level li
// (nilIdx: create it).
func (b *Book) rest(o *Order, qty int64, li int32) {
	if li == nilIdx {
		li = b.newLevel(o.Side, o.Price)
	}
	oi := b.allocOrder()
	m := &b.orders[oi]
	*m = order{
		id: o.ID, price: o.Price, qty: qty, vis: o.Visible, owner: o.Owner,
		prev: nilIdx, next: nilIdx, level: li, side: o.Side, filled: o.Qty - qty,
	}
	lv := &b.levels[li]
	if lv.tail == nilIdx {
		lv.head = oi
	} else {
		b.orders[lv.tail].next = oi
		m.prev = lv.tail
	}
	lv.tail = oi
	lv.qty += qty
	lv.vis += shown(m.vis, qty)
	b.index.put(uint64(o.ID), oi)
	b.resting++
}

// newLevel creates the level at price on side s, which must not exist.
func (b *Book) newLevel(s Side, price int64) int32 {
	bs := &b.sides[s]
	key := sideKey(s, price)
	i := bs.search(key)
	li := b.allocLevel(price)
	bs.byPrice.put(uint64(price), li)
	bs.refs = append(bs.refs, levelRef{})
	copy(bs.refs[i+1:], bs.refs[i:])
	bs.refs[i] = levelRef{key: key, idx: li}
	return li
}

func (b *Book) allocOrder() int32 {
	if i := b.freeOrd; i != nilIdx {
		b.freeOrd = b.orders[i].next
		return i
	}
	b.orders = append(b.orders, order{})
	return int32(len(b.orders) - 1)
}

// dropOrder forgets a slab order that is already unlinked from its level.
func (b *Book) dropOrder(i int32) {
	b.index.del(uint64(b.orders[i].id))
	b.orders[i].next = b.freeOrd // the rest is overwritten when the slot is reused
	b.freeOrd = i
	b.resting--
}

func (b *Book) allocLevel(price int64) int32 {
	var i int32
	if i = b.freeLvl; i != nilIdx {
		b.freeLvl = b.levels[i].head
	} else {
		b.levels = append(b.levels, level{})
		i = int32(len(b.levels) - 1)
	}
	b.levels[i] = level{price: price, head: nilIdx, tail: nilIdx}
	return i
}

func (b *Book) freeLevel(i int32) {
	b.levels[i] = level{head: b.freeLvl}
	b.freeLvl = i
}

func (b *Book) snapshot(m *order) Resting {
	return Resting{ID: m.id, Owner: m.owner, Side: m.side, Price: m.price, Qty: m.qty, Visible: m.vis, Filled: m.filled}
}

// Cancel removes a resting order and returns what was left of it; false if it is not resting
// (unknown, already filled or already cancelled).
func (b *Book) Cancel(id OrderID) (Resting, bool) {
	oi, ok := b.index.get(uint64(id))
	if !ok {
		return Resting{}, false
	}
	m := &b.orders[oi]
	r := b.snapshot(m)
	lv := &b.levels[m.level]
	if m.prev == nilIdx {
		lv.head = m.next
	} else {
		b.orders[m.prev].next = m.next
	}
	if m.next == nilIdx {
		lv.tail = m.prev
	} else {
		b.orders[m.next].prev = m.prev
	}
	lv.qty -= m.qty
	lv.vis -= shown(m.vis, m.qty)
	if lv.head == nilIdx {
		bs := &b.sides[m.side]
		i := bs.search(sideKey(m.side, m.price))
		bs.refs = append(bs.refs[:i], bs.refs[i+1:]...)
		bs.byPrice.del(uint64(m.price))
		b.freeLevel(m.level)
	}
	b.dropOrder(oi)
	return r, true
}

// Order returns a resting order.
func (b *Book) Order(id OrderID) (Resting, bool) {
	oi, ok := b.index.get(uint64(id))
	if !ok {
		return Resting{}, false
	}
	return b.snapshot(&b.orders[oi]), true
}

// best returns the best level of side s, hidden-only levels included: this is the true top of
// book that takers meet. Qty is the visible quantity there (possibly 0).
func (b *Book) best(s Side) (Level, bool) {
	refs := b.sides[s].refs
	if len(refs) == 0 {
		return Level{}, false
	}
	lv := &b.levels[refs[len(refs)-1].idx]
	return Level{Price: lv.price, Qty: lv.vis}, true
}

// BestBid returns the highest bid level (see best for hidden liquidity).
func (b *Book) BestBid() (Level, bool) { return b.best(Buy) }

// BestAsk returns the lowest ask level (see best for hidden liquidity).
func (b *Book) BestAsk() (Level, bool) { return b.best(Sell) }

// Depth appends up to maxLevels (all when <= 0) levels of side to dst, best first, with their
// visible quantity; levels with nothing visible are omitted.
func (b *Book) Depth(side Side, maxLevels int, dst []Level) []Level {
	if !validSide(side) {
		return dst
	}
	refs := b.sides[side].refs
	n := 0
	for i := len(refs) - 1; i >= 0; i-- {
		if maxLevels > 0 && n == maxLevels {
			break
		}
		lv := &b.levels[refs[i].idx]
		if lv.vis == 0 {
			continue
		}
		dst = append(dst, Level{Price: lv.price, Qty: lv.vis})
		n++
	}
	return dst
}

// Orders calls fn for each resting order of side, best price first and in time priority within
// a level, until fn returns false. fn must not modify the book.
func (b *Book) Orders(side Side, fn func(Resting) bool) {
	if !validSide(side) {
		return
	}
	refs := b.sides[side].refs
	for i := len(refs) - 1; i >= 0; i-- {
		for oi := b.levels[refs[i].idx].head; oi != nilIdx; oi = b.orders[oi].next {
			if !fn(b.snapshot(&b.orders[oi])) {
				return
			}
		}
	}
}

// FillableQty returns how much of want a taker of side could fill at prices up to limit
// (0 = unbounded), hidden quantity included.
func (b *Book) FillableQty(side Side, limit int64, want int64) int64 {
	if !validSide(side) || want <= 0 {
		return 0
	}
	refs := b.sides[side.Opposite()].refs
	var got int64
	for i := len(refs) - 1; i >= 0 && got < want; i-- {
		lv := &b.levels[refs[i].idx]
		if !within(side, lv.price, limit) {
			break
		}
		got += min(lv.qty, want-got)
	}
	return got
}

// Take executes up to qty of a resting order at its price, as a taker from outside this book
// would: the simulator's mirror fills a resting order from trades printed on another venue. A
// partly taken order keeps its place in the queue; a completely taken one leaves the book.
func (b *Book) Take(id OrderID, qty int64) (Fill, bool) {
	oi, ok := b.index.get(uint64(id))
	if !ok || qty <= 0 {
		return Fill{}, false
	}
	m := &b.orders[oi]
	f := Fill{MakerID: id, MakerOwner: m.owner, Price: m.price, Qty: min(qty, m.qty)}
	if f.Qty == m.qty {
		b.Cancel(id)
		f.MakerDone = true
		return f, true
	}
	lv := &b.levels[m.level]
	before := shown(m.vis, m.qty)
	m.qty -= f.Qty
	m.filled += f.Qty
	lv.qty -= f.Qty
	lv.vis += shown(m.vis, m.qty) - before
	return f, true
}
