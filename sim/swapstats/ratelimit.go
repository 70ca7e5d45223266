package swapstats

import (
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// maxBuckets bounds the limiter's table: buckets are dropped once refilled
// (at most a minute after a client's last request), and a flood of new
// addresses inside that minute is refused instead of growing the table.
const maxBuckets = 50_000

// limiter is a token bucket per client IP (golang.org/x/time/rate): perMinute
// requests a minute with bursts up to perMinute, like the public service.
type limiter struct {
	perMinute int
	now       func() time.Time

	mu        sync.Mutex
	buckets   map[string]*rate.Limiter
	nextPrune time.Time
}

func newLimiter(perMinute int, now func() time.Time) *limiter {
	return &limiter{perMinute: perMinute, now: now, buckets: map[string]*rate.Limiter{}}
}

// allow takes a token for ip, or says how long until one is available.
func (l *limiter) allow(ip string) (time.Duration, bool) {
	if l.perMinute <= 0 {
		return 0, true
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.now()
	if !now.Before(l.nextPrune) {
		l.prune(now)
	}
	b, ok := l.buckets[ip]
	if !ok {
		if len(l.buckets) >= maxBuckets {
			return time.Second, false
		}
		b = rate.NewLimiter(rate.Limit(float64(l.perMinute)/60), l.perMinute)
		l.buckets[ip] = b
	}
	r := b.ReserveN(now, 1)
	if d := r.DelayFrom(now); d > 0 {
		r.CancelAt(now)
		return d, false
	}
	return 0, true
}

// prune forgets clients whose bucket has refilled: they are as good as new.
// It runs at most once a second.
func (l *limiter) prune(now time.Time) {
	for ip, b := range l.buckets {
		if b.TokensAt(now) >= float64(l.perMinute) {
			delete(l.buckets, ip)
		}
	}
	l.nextPrune = now.Add(time.Second)
}

// size is the number of buckets held (tests).
func (l *limiter) size() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.buckets)
}
