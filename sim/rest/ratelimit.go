package rest

import (
	"sync"
	"time"
)

// scope tells what a rate limit counts per.
type scope int

const (
	perIP     scope = iota // public endpoints
	perKey                 // most private endpoints
	perSymbol              // send order: per key and symbol
	perUser                // per account, whatever key
)

// limit is one counter definition; endpoints sharing a name share the counter.
type limit struct {
	name   string
	n      int
	window time.Duration
	scope  scope
}

// limiter counts requests in fixed windows aligned to the clock, as the
// venue's "N per window" limits: once N requests fell in the current
// window the rest are refused until the next one begins.
type limiter struct {
	mu     sync.Mutex
	counts map[string]*window
}

type window struct {
	start int64 // ms
	n     int
}

func newLimiter() *limiter { return &limiter{counts: map[string]*window{}} }

// allow counts one request for key under l at nowMs and reports whether
// it is within the limit, and if not how long until the window ends.
func (lm *limiter) allow(l limit, key string, nowMs int64) (bool, time.Duration) {
	w := l.window.Milliseconds()
	start := nowMs - nowMs%w
	lm.mu.Lock()
	defer lm.mu.Unlock()
	if len(lm.counts) > 50_000 {
		lm.sweep(nowMs)
	}
	c, ok := lm.counts[key]
	if !ok {
		c = &window{}
		lm.counts[key] = c
	}
	if c.start != start {
		c.start, c.n = start, 0
	}
	if c.n >= l.n {
		return false, time.Duration(start+w-nowMs) * time.Millisecond
	}
	c.n++
	return true, 0
}

// sweep forgets counters whose window is long over.
func (lm *limiter) sweep(nowMs int64) {
	for k, c := range lm.counts {
		if nowMs-c.start > 120_000 {
			delete(lm.counts, k)
		}
	}
}
