package swapstats

import (
	"sync"
	"time"
)

// limiter is a token bucket per client IP: perMinute requests a minute with
// bursts up to perMinute, like the public service's ~120/min.
type limiter struct {
	perMinute int
	now       func() time.Time

	mu      sync.Mutex
	buckets map[string]*bucket
}

type bucket struct {
	tokens float64
	last   time.Time
}

func newLimiter(perMinute int, now func() time.Time) *limiter {
	return &limiter{perMinute: perMinute, now: now, buckets: map[string]*bucket{}}
}

// allow takes a token for ip, or says how long until one is available.
func (l *limiter) allow(ip string) (time.Duration, bool) {
	if l.perMinute <= 0 {
		return 0, true
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.now()
	rate := float64(l.perMinute) / 60 // tokens per second
	b, ok := l.buckets[ip]
	if !ok {
		if len(l.buckets) >= 4096 {
			l.prune(now, rate)
		}
		b = &bucket{tokens: float64(l.perMinute), last: now}
		l.buckets[ip] = b
	}
	b.tokens = min(float64(l.perMinute), b.tokens+now.Sub(b.last).Seconds()*rate)
	b.last = now
	if b.tokens < 1 {
		return time.Duration((1 - b.tokens) / rate * float64(time.Second)), false
	}
	b.tokens--
	return 0, true
}

// prune forgets clients whose bucket has refilled: they are as good as new.
func (l *limiter) prune(now time.Time, rate float64) {
	for ip, b := range l.buckets {
		if b.tokens+now.Sub(b.last).Seconds()*rate >= float64(l.perMinute) {
			delete(l.buckets, ip)
		}
	}
}
