package engine

import (
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"
)

// refBook is a deliberately naive reference: one slice of resting orders kept in priority order
// (each side best first), searched linearly.
type refBook struct {
	orders []refOrder
	seq    int
}

type refOrder struct {
	Resting
	seq int
}

// better reports whether maker a has priority over maker b (same side).
func (a refOrder) better(b refOrder) bool {
	if a.Price != b.Price {
		return (a.Side == Buy) == (a.Price > b.Price)
	}
	return a.seq < b.seq
}

func (r *refBook) sorted(s Side) []refOrder {
	var out []refOrder
	for _, o := range r.orders {
		if o.Side == s {
			out = append(out, o)
		}
	}
	return out
}

func (r *refBook) find(id OrderID) int {
	return slices.IndexFunc(r.orders, func(o refOrder) bool { return o.ID == id })
}

func acceptable(s Side, price, limit int64) bool {
	return limit == 0 || (s == Buy && price <= limit) || (s == Sell && price >= limit)
}

func (r *refBook) fillable(s Side, limit, want int64) int64 {
	var got int64
	for _, m := range r.sorted(s.Opposite()) {
		if !acceptable(s, m.Price, limit) {
			break
		}
		got += m.Qty
	}
	return min(got, want)
}

func (r *refBook) submit(o Order) (Result, []Fill) {
	rej := Result{Remaining: o.Qty, Rejected: true}
	okSide := o.Side == Buy || o.Side == Sell
	switch {
	case !okSide || o.Price < 0 || o.Qty < 0 || o.QuoteAmt < 0:
		return rej, nil
	case o.Kind == Limit || o.Kind == PostOnly:
		if o.Price <= 0 || o.Qty <= 0 || o.QuoteAmt != 0 || o.Visible < 0 || o.Visible > o.Qty {
			return rej, nil
		}
	case o.Kind == Market:
		if o.Qty == 0 && o.QuoteAmt == 0 {
			return rej, nil
		}
	case o.Kind == IOC || o.Kind == FOK:
		if o.Qty <= 0 || o.QuoteAmt != 0 {
			return rej, nil
		}
	default:
		return rej, nil
	}
	if r.find(o.ID) >= 0 {
		return rej, nil
	}
	opp := r.sorted(o.Side.Opposite())
	if o.Kind == PostOnly && len(opp) > 0 && acceptable(o.Side, opp[0].Price, o.Price) {
		return rej, nil
	}
	if o.Kind == FOK && r.fillable(o.Side, o.Price, o.Qty) < o.Qty {
		return Result{Remaining: o.Qty}, nil
	}
	var fills []Fill
	var filled int64
	quote := o.QuoteAmt
	for _, m := range opp {
		if o.Kind == PostOnly || !acceptable(o.Side, m.Price, o.Price) || (o.Qty > 0 && filled == o.Qty) {
			break
		}
		x := m.Qty
		if o.Qty > 0 {
			x = min(x, o.Qty-filled)
		}
		if o.QuoteAmt > 0 {
			x = min(x, quote/m.Price)
		}
		if x == 0 {
			break
		}
		quote -= x * m.Price
		filled += x
		i := r.find(m.ID)
		r.orders[i].Qty -= x
		r.orders[i].Filled += x
		done := r.orders[i].Qty == 0
		if done {
			r.orders = slices.Delete(r.orders, i, i+1)
		}
		fills = append(fills, Fill{MakerID: m.ID, TakerID: o.ID, MakerOwner: m.Owner, TakerOwner: o.Owner,
			Price: m.Price, Qty: x, MakerDone: done})
	}
	if o.Qty == 0 {
		return Result{Filled: filled}, fills
	}
	res := Result{Filled: filled, Remaining: o.Qty - filled}
	if (o.Kind == Limit || o.Kind == PostOnly) && res.Remaining > 0 {
		r.seq++
		n := refOrder{Resting{ID: o.ID, Owner: o.Owner, Side: o.Side, Price: o.Price,
			Qty: res.Remaining, Visible: o.Visible, Filled: filled}, r.seq}
		i := 0
		for i < len(r.orders) && (r.orders[i].Side != n.Side || r.orders[i].better(n)) {
			i++
		}
		r.orders = slices.Insert(r.orders, i, n)
		res.Rested = true
	}
	return res, fills
}

func (r *refBook) cancel(id OrderID) (Resting, bool) {
	i := r.find(id)
	if i < 0 {
		return Resting{}, false
	}
	o := r.orders[i]
	r.orders = slices.Delete(r.orders, i, i+1)
	return o.Resting, true
}

func (r *refBook) depth(s Side) []Level {
	var out []Level
	for _, o := range r.sorted(s) {
		v := min(o.Visible, o.Qty)
		if n := len(out); n > 0 && out[n-1].Price == o.Price {
			out[n-1].Qty += v
		} else {
			out = append(out, Level{o.Price, v})
		}
	}
	return slices.DeleteFunc(out, func(l Level) bool { return l.Qty == 0 })
}

func (r *refBook) best(s Side) (Level, bool) {
	o := r.sorted(s)
	if len(o) == 0 {
		return Level{}, false
	}
	var vis int64
	for _, x := range o {
		if x.Price == o[0].Price {
			vis += min(x.Visible, x.Qty)
		}
	}
	return Level{o[0].Price, vis}, true
}

// randomOrder draws orders around a mid of 1000 so that books both cross and build up.
func randomOrder(rng *rand.Rand, id OrderID) Order {
	o := Order{ID: id, Owner: uint32(rng.IntN(4)), Side: Side(1 + rng.IntN(2)), Qty: 1 + rng.Int64N(20)}
	// Mostly on the own side of a mid of 1000, some aggressive, so the book both builds up and trades.
	off := rng.Int64N(25) - 2
	if rng.IntN(8) == 0 {
		off = -rng.Int64N(8)
	}
	if o.Side == Buy {
		o.Price = 1000 - off
	} else {
		o.Price = 1000 + off
	}
	switch p := rng.IntN(100); {
	case p < 55:
		o.Kind = Limit
	case p < 65:
		o.Kind = Market
		switch rng.IntN(4) {
		case 0:
			o.Price = 0
		case 1:
			o.QuoteAmt, o.Qty = rng.Int64N(30000), 0
		case 2:
			o.QuoteAmt = rng.Int64N(30000) // both: the first limit reached stops it
		}
	case p < 85:
		o.Kind = IOC
		if p >= 80 {
			o.Kind = FOK
		}
		if rng.IntN(6) == 0 {
			o.Price = 0 // unbounded
		}
	case p < 97:
		o.Kind = PostOnly
	default: // invalid on purpose
		o.Kind = Kind(rng.IntN(7))
		o.Price = rng.Int64N(3) - 1
		o.Qty = rng.Int64N(3) - 1
	}
	switch rng.IntN(6) {
	case 0:
		o.Visible = 0
	case 1:
		o.Visible = rng.Int64N(max(o.Qty, 1))
	default:
		o.Visible = o.Qty
	}
	return o
}

func TestAgainstReference(t *testing.T) {
	ops := 8000
	if testing.Short() {
		ops = 2000
	}
	for seedN := uint64(1); seedN <= 3; seedN++ {
		rng := rand.New(rand.NewPCG(seedN, 42))
		b, ref := New(0, 0), &refBook{}
		var nextID OrderID
		var fills []Fill
		for op := 0; op < ops; op++ {
			switch p := rng.IntN(100); {
			case p < 65:
				nextID++
				id := nextID
				if rng.IntN(50) == 0 && nextID > 1 { // sometimes reuse an id, resting or not
					id = OrderID(1 + rng.Int64N(int64(nextID-1)))
				}
				o := randomOrder(rng, id)
				var res Result
				res, fills = b.Submit(o, fills[:0])
				wantRes, wantFills := ref.submit(o)
				if res != wantRes || !fillsEqual(fills, wantFills) {
					t.Fatalf("seed %d op %d submit %+v:\n got %+v %+v\nwant %+v %+v", seedN, op, o, res, fills, wantRes, wantFills)
				}
			case p < 95:
				id := OrderID(1 + rng.Int64N(int64(nextID)+1))
				if n := len(ref.orders); n > 0 && rng.IntN(5) != 0 { // mostly a resting one
					id = ref.orders[rng.IntN(n)].ID
				}
				got, ok := b.Cancel(id)
				want, wantOK := ref.cancel(id)
				if got != want || ok != wantOK {
					t.Fatalf("seed %d op %d cancel %d: got %+v %v want %+v %v", seedN, op, id, got, ok, want, wantOK)
				}
			default:
				s, limit, want := Side(1+rng.IntN(2)), 985+rng.Int64N(30), rng.Int64N(200)
				if rng.IntN(4) == 0 {
					limit = 0
				}
				if got, exp := b.FillableQty(s, limit, want), ref.fillable(s, limit, want); got != exp {
					t.Fatalf("seed %d op %d FillableQty(%v,%d,%d) = %d, want %d", seedN, op, s, limit, want, got, exp)
				}
			}
			compareBooks(t, b, ref, rng, nextID)
		}
		checkInvariants(t, b)
		t.Logf("seed %d: %d resting orders at the end", seedN, b.Len())
	}
}

func fillsEqual(a, b []Fill) bool {
	return len(a) == len(b) && (len(a) == 0 || reflect.DeepEqual(a, b))
}

func compareBooks(t *testing.T, b *Book, ref *refBook, rng *rand.Rand, maxID OrderID) {
	t.Helper()
	if b.Len() != len(ref.orders) {
		t.Fatalf("Len %d, want %d", b.Len(), len(ref.orders))
	}
	for _, s := range []Side{Buy, Sell} {
		if got, want := depth(b, s), ref.depth(s); !levelsEqual(got, want) {
			t.Fatalf("%v depth\n got %v\nwant %v", s, got, want)
		}
		got, ok := b.best(s)
		want, wantOK := ref.best(s)
		if got != want || ok != wantOK {
			t.Fatalf("%v best %v %v, want %v %v", s, got, ok, want, wantOK)
		}
	}
	id := OrderID(1 + rng.Int64N(int64(maxID)+1))
	got, ok := b.Order(id)
	i := ref.find(id)
	if ok != (i >= 0) || (ok && got != ref.orders[i].Resting) {
		t.Fatalf("Order(%d) = %+v %v", id, got, ok)
	}
}
