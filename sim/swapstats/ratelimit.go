package swapstats

import (
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// limiter is a token bucket per client IP (golang.org/x/time/rate): perMinute
// requests a minute with bursts up to perMinute, like the public service.
type limiter struct {
	perMinute int
	now       func() time.Time

	mu      sync.Mutex
	buckets map[string]*rate.Limiter
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
	b, ok := l.buckets[ip]
	if !ok {
		if len(l.buckets) >= 4096 {
			l.prune(now)
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
func (l *limiter) prune(now time.Time) {
	for ip, b := range l.buckets {
		if b.TokensAt(now) >= float64(l.perMinute) {
			delete(l.buckets, ip)
		}
	}
}
