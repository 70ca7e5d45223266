package mirror

import (
	"sort"

	"github.com/shopspring/decimal"

	"tradedeck/fixed"
	"tradedeck/sim/exchange"
)

var sides = [2]exchange.Side{exchange.Buy, exchange.Sell}

// replaceBook lays a whole upstream book onto the local one: every level
// the follower rested before goes, every upstream level is rested anew.
func (f *Follower) replaceBook(s *symbol, up [2]map[int64]int64) {
	for i := range sides {
		for p := range s.local[i] {
			f.cancelLevel(s, i, p)
		}
	}
	s.up = up
	f.restLevels(s, [2][]int64{sortedPrices(up[0]), sortedPrices(up[1])})
}

// changeLevels applies one upstream update: each changed level is
// replaced by the upstream's quantity (what a local taker took of it comes
// back), removed levels go.
func (f *Follower) changeLevels(s *symbol, u update) {
	var changed [2][]int64
	for i, levels := range [2][]level{u.bids, u.asks} {
		for _, l := range levels {
			p, q, ok := s.fx(l.price, l.qty)
			if !ok {
				continue
			}
			f.cancelLevel(s, i, p) // all cancels first: the new levels never meet stale ones
			if q > 0 {
				s.up[i][p] = q
				changed[i] = append(changed[i], p)
			} else {
				delete(s.up[i], p)
			}
		}
	}
	f.restLevels(s, changed)
}

// restLevels rests the upstream quantity of the given prices, best first.
// A level that meets a user's resting order on the other side trades
// through it: the order fills at its price first, as it would have upstream.
func (f *Follower) restLevels(s *symbol, prices [2][]int64) {
	for i, ps := range prices {
		sortBestFirst(i, ps)
		for _, p := range ps {
			f.tradeThrough(s, sides[i], p)
			f.restLevel(s, i, p)
		}
	}
}

// restLevel rests one upstream level as internal orders (split where it is
// larger than one order may be). A level crossing a stale one of the other
// side (a stream hiccup) removes that one first.
func (f *Follower) restLevel(s *symbol, i int, p int64) {
	price := fixed.ToDecimal(p, s.pd)
	left := fixed.ToDecimal(s.up[i][p], s.qd)
	for left.IsPositive() {
		q := left
		if s.maxQty.IsPositive() && q.GreaterThan(s.maxQty) {
			q = s.maxQty
		}
		id, err := f.ex.RestLevel(f.book, s.name, sides[i], price, q)
		if err != nil {
			if !f.dropCrossing(s, 1-i, p) {
				f.log.Warn("mirror: level not rested, the paper book lacks it until the upstream changes it", "symbol", s.name, "price", price, "err", err)
				return
			}
			continue
		}
		s.local[i][p] = append(s.local[i][p], id)
		left = left.Sub(q)
	}
}

// dropCrossing cancels the follower's own levels of side i that a new
// level at p on the other side would cross; false when there are none.
func (f *Follower) dropCrossing(s *symbol, i int, p int64) bool {
	dropped := false
	for q := range s.local[i] {
		if (i == 0 && q >= p) || (i == 1 && q <= p) {
			f.cancelLevel(s, i, q)
			delete(s.up[i], q)
			dropped = true
		}
	}
	return dropped
}

// cancelLevel removes the local orders standing for one upstream level.
func (f *Follower) cancelLevel(s *symbol, i int, p int64) {
	for _, id := range s.local[i][p] {
		_ = f.ex.Cancel(f.book, s.name, id) // fails only for an order a taker filled already: gone either way
	}
	delete(s.local[i], p)
}

// tradeThrough fills every tracked user order on the other side that a
// new upstream level at p on side reaches (a bid at or above a new ask).
func (f *Follower) tradeThrough(s *symbol, side exchange.Side, p int64) {
	for _, o := range f.sortedOrders(s.name) {
		if o.side == side {
			continue
		}
		if (side == exchange.Sell && o.priceFx >= p) || (side == exchange.Buy && o.priceFx <= p) {
			f.fill(o, o.remaining)
		}
	}
}

func sortedPrices(m map[int64]int64) []int64 {
	ps := make([]int64, 0, len(m))
	for p := range m {
		ps = append(ps, p)
	}
	return ps
}

// sortBestFirst orders bids (i 0) descending, asks ascending.
func sortBestFirst(i int, ps []int64) {
	sort.Slice(ps, func(a, b int) bool {
		if i == 0 {
			return ps[a] > ps[b]
		}
		return ps[a] < ps[b]
	})
}

// level is one changed level of an update.
type level struct{ price, qty decimal.Decimal }

// update is one orderbookupdate push.
type update struct {
	ts, prevTs int64
	bids, asks []level
}
