package engine

import "math/bits"

// table is an open-addressing hash table from uint64 keys to slab indexes, with linear probing
// and backward-shift deletion (no tombstones), so a steady stream of inserts and deletes never
// allocates or degrades. It replaces a Go map on the hot path: a lookup is one multiply and
// usually one cache line.
type table struct {
	slots []slot
	mask  uint64
	shift uint8
	n     int
}

// slot holds val+1 so that the zero slot is empty whatever the key.
type slot struct {
	key uint64
	val int32
}

const minTableSize = 64

func (t *table) init(size int) {
	c := minTableSize
	for c < size {
		c <<= 1
	}
	t.slots = make([]slot, c)
	t.mask = uint64(c - 1)
	t.shift = uint8(64 - bits.Len64(uint64(c-1)))
	t.n = 0
}

// home is the key's preferred slot: Fibonacci hashing keeps sequential ids and prices apart.
func (t *table) home(key uint64) uint64 { return (key * 0x9E3779B97F4A7C15) >> t.shift }

// get returns the value stored for key.
func (t *table) get(key uint64) (int32, bool) {
	for i := t.home(key); ; i = (i + 1) & t.mask {
		s := &t.slots[i]
		if s.val == 0 {
			return 0, false
		}
		if s.key == key {
			return s.val - 1, true
		}
	}
}

// put stores val for key, which must be absent.
func (t *table) put(key uint64, val int32) {
	if 2*(t.n+1) > len(t.slots) {
		t.grow()
	}
	i := t.home(key)
	for t.slots[i].val != 0 {
		i = (i + 1) & t.mask
	}
	t.slots[i] = slot{key: key, val: val + 1}
	t.n++
}

// del removes key if present.
func (t *table) del(key uint64) {
	i := t.home(key)
	for {
		s := &t.slots[i]
		if s.val == 0 {
			return
		}
		if s.key == key {
			break
		}
		i = (i + 1) & t.mask
	}
	// Shift later members of the probe run back so that lookups never meet a hole early.
	for j := (i + 1) & t.mask; ; j = (j + 1) & t.mask {
		s := t.slots[j]
		if s.val == 0 {
			break
		}
		h := t.home(s.key)
		// s may move to i only if its home is not in the cyclic range (i, j].
		if (j > i && (h <= i || h > j)) || (j < i && h <= i && h > j) {
			t.slots[i] = s
			i = j
		}
	}
	t.slots[i] = slot{}
	t.n--
}

func (t *table) grow() {
	old := t.slots
	t.init(2 * len(old))
	for _, s := range old {
		if s.val != 0 {
			t.put(s.key, s.val-1)
		}
	}
}
