package engine

import (
	"math/rand/v2"
	"sort"
	"testing"
)

// TestTableAgainstMap drives the hash table and a Go map with the same random inserts, deletes
// and lookups over a small key space, so probe runs collide, wrap around the end and get
// shifted back by deletions; it also crosses several growths.
func TestTableAgainstMap(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	var tb table
	tb.init(0)
	ref := map[uint64]int32{}
	keys := make([]uint64, 300)
	for i := range keys {
		keys[i] = rng.Uint64()
		if i%3 == 0 {
			keys[i] = uint64(i) // small sequential keys, like order ids
		}
	}
	for op := 0; op < 200000; op++ {
		k := keys[rng.IntN(len(keys))]
		switch rng.IntN(3) {
		case 0:
			if _, ok := ref[k]; !ok {
				v := int32(rng.IntN(1 << 30))
				tb.put(k, v)
				ref[k] = v
			}
		case 1:
			tb.del(k)
			delete(ref, k)
		default:
			v, ok := tb.get(k)
			want, wantOK := ref[k]
			if ok != wantOK || v != want {
				t.Fatalf("op %d get(%d) = %d %v, want %d %v", op, k, v, ok, want, wantOK)
			}
		}
		if tb.n != len(ref) {
			t.Fatalf("op %d: %d entries, want %d", op, tb.n, len(ref))
		}
	}
	for k, want := range ref {
		if v, ok := tb.get(k); !ok || v != want {
			t.Fatalf("final get(%d) = %d %v, want %d", k, v, ok, want)
		}
	}
}

// TestTableCollidingKeys packs keys that share one home slot, including the last slot so runs
// wrap, then deletes them in an order that exercises every shift case.
func TestTableCollidingKeys(t *testing.T) {
	var tb table
	tb.init(0)
	var same []uint64 // keys whose home is the last slot
	for k := uint64(0); len(same) < 20; k++ {
		if tb.home(k) == tb.mask {
			same = append(same, k)
		}
	}
	var other []uint64 // keys whose home is slot 1, inside the wrapped run
	for k := uint64(0); len(other) < 5; k++ {
		if tb.home(k) == 1 {
			other = append(other, k)
		}
	}
	for i, k := range append(append([]uint64{}, same[:10]...), other...) {
		tb.put(k, int32(i))
	}
	tb.del(same[0])
	tb.del(same[5])
	for i, k := range same[:10] {
		v, ok := tb.get(k)
		if gone := i == 0 || i == 5; ok == gone || (ok && v != int32(i)) {
			t.Fatalf("same[%d]: %d %v", i, v, ok)
		}
	}
	for i, k := range other {
		if v, ok := tb.get(k); !ok || v != int32(10+i) {
			t.Fatalf("other[%d]: %d %v", i, v, ok)
		}
	}
	tb.del(12345678) // absent: no effect
	if tb.n != 13 {
		t.Fatalf("n = %d", tb.n)
	}
}

// TestSideSearch checks the level search (near-end scan plus branch-free binary search) against
// sort.Search for every length up to 40 and every insertion point.
func TestSideSearch(t *testing.T) {
	for n := 0; n <= 40; n++ {
		var bs bookSide
		for i := range n {
			bs.refs = append(bs.refs, levelRef{key: int64(10 * i)})
		}
		for key := int64(-5); key <= int64(10*n+5); key += 5 {
			want := sort.Search(n, func(i int) bool { return bs.refs[i].key >= key })
			if got := bs.search(key); got != want {
				t.Fatalf("n=%d key=%d: %d, want %d", n, key, got, want)
			}
		}
	}
}
