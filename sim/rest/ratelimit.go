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
	perSymbol              // send order: per key and listed symbol
	perUser                // per account, whatever key
)

// limit is one counter definition; endpoints sharing a name share the counter.
type limit struct {
	name   string
	n      int
	window time.Duration
	scope  scope
}

// maxCounters bounds the limiter's table. Keys are built only from checked
// values (a listed symbol, an authenticated key or account, a client IP) and
// counters expire with their window, so the table holds at most the clients
// of the last minute; the cap is the last line against a flood of addresses.
const maxCounters = 100_000

// limiter counts requests in fixed windows aligned to the clock, as the
// venue's "N per window" limits: once N requests fell in the current
// window the rest are refused until the next one begins.
type limiter struct {
	mu        sync.Mutex
	counts    map[string]*window
	nextSweep int64 // ms: expired counters are dropped at most once a second
}

type window struct {
	start, end int64 // ms
	n          int
}

func newLimiter() *limiter { return &limiter{counts: map[string]*window{}} }

// allow counts one request for key under l at nowMs and reports whether
// it is within the limit, and if not how long until the window ends. With
// the table full of live counters a new key is refused for a second.
func (lm *limiter) allow(l limit, key string, nowMs int64) (bool, time.Duration) {
	w := l.window.Milliseconds()
	start := nowMs - nowMs%w
	lm.mu.Lock()
	defer lm.mu.Unlock()
	if nowMs >= lm.nextSweep {
		lm.sweep(nowMs)
	}
	c, ok := lm.counts[key]
	if !ok {
		if len(lm.counts) >= maxCounters {
			return false, time.Second
		}
		c = &window{}
		lm.counts[key] = c
	}
	if c.start != start {
		c.start, c.end, c.n = start, start+w, 0
	}
	if c.n >= l.n {
		return false, time.Duration(start+w-nowMs) * time.Millisecond
	}
	c.n++
	return true, 0
}

// sweep forgets counters whose window is over: a new request starts a new
// window anyway, so they hold nothing worth keeping.
func (lm *limiter) sweep(nowMs int64) {
	for k, c := range lm.counts {
		if nowMs >= c.end {
			delete(lm.counts, k)
		}
	}
	lm.nextSweep = nowMs + 1000
}

// size is the number of live counters (tests).
func (lm *limiter) size() int {
	lm.mu.Lock()
	defer lm.mu.Unlock()
	return len(lm.counts)
}
