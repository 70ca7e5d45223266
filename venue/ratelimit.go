package venue

import (
	"context"
	"fmt"
	"sort"
	"sync"
	"time"
)

// Clock is the time source of the client: the request timestamp and the
// rate-limit waits. Tests inject a fake one.
type Clock interface {
	Now() time.Time
	// Sleep waits d, or returns ctx.Err() when ctx ends first.
	Sleep(ctx context.Context, d time.Duration) error
}

// SystemClock is the real clock.
type SystemClock struct{}

// Now returns time.Now().
func (SystemClock) Now() time.Time { return time.Now() }

// Sleep waits d or until ctx is done.
func (SystemClock) Sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Limiter keeps the client under the venue's rate limits. Each budget is a
// sliding window log: a request may go when fewer than N requests went in
// the last Window (plus a small margin). That is never more than any fixed
// window the server may count in, whatever its alignment, so the server
// never sees a burst it would refuse from this client alone.
type Limiter struct {
	clock  Clock
	limits map[Group]RateLimit
	margin float64 // extra fraction of the window kept between bursts

	mu      sync.Mutex
	windows map[limitKey]*window
}

type limitKey struct {
	group Group
	scope string // symbol for per-symbol budgets
}

type window struct {
	sent         []time.Time // times of the requests in the window, oldest first
	blockedUntil time.Time   // set after a 429: nothing goes before it
	// protective counts the protective requests waiting for this budget:
	// while one waits, no ordinary request takes budget (Protective).
	protective int
}

// protectiveKey marks a context whose requests are protective.
type protectiveKey struct{}

// Protective marks ctx's requests as protective (a stop firing, a cancel
// of the algo engine): they take a budget's next free slot before any
// ordinary request waiting for it, so an order entry or a listing never
// delays a stop. A 429 still blocks them like any request (Block).
func Protective(ctx context.Context) context.Context {
	return context.WithValue(ctx, protectiveKey{}, true)
}

// workingKey marks a context whose requests are a working order's.
type workingKey struct{}

// Working marks ctx's requests as a working order's (a chase's re-price,
// a ladder rung, a TWAP slice): they come after protective requests and
// never take the last slots of a budget (WorkReserve), so a stop that
// must fire finds budget even while a chaser re-prices as fast as it may.
func Working(ctx context.Context) context.Context {
	return context.WithValue(ctx, workingKey{}, true)
}

// IsWorking reports whether ctx was marked with Working.
func IsWorking(ctx context.Context) bool {
	v, _ := ctx.Value(workingKey{}).(bool)
	return v
}

// WorkReserve is how many slots of a budget of n working requests leave
// free: a fifth, at least one (of the 2 orders a second per symbol, one).
func WorkReserve(n int) int { return max(1, n/5) }

// IsProtective reports whether ctx was marked with Protective.
func IsProtective(ctx context.Context) bool {
	v, _ := ctx.Value(protectiveKey{}).(bool)
	return v
}

// NewLimiter returns a limiter for the limit table (nil = RateLimits) on clock
// (nil = the system clock).
func NewLimiter(clock Clock, limits map[Group]RateLimit) *Limiter {
	if clock == nil {
		clock = SystemClock{}
	}
	if limits == nil {
		limits = RateLimits
	}
	return &Limiter{clock: clock, limits: limits, margin: 0.05, windows: map[limitKey]*window{}}
}

// SetMargin sets the safety margin as a fraction of each window (default
// 0.05: 50 ms of a 1 s window), absorbing network jitter between the
// client's and the server's clocks of arrival.
func (l *Limiter) SetMargin(fraction float64) {
	l.mu.Lock()
	l.margin = fraction
	l.mu.Unlock()
}

func (l *Limiter) key(g Group, symbol string) (limitKey, RateLimit, bool) {
	lim, ok := l.limits[g]
	if !ok {
		return limitKey{}, lim, false
	}
	k := limitKey{group: g}
	if lim.PerSymbol {
		k.scope = symbol
	}
	return k, lim, true
}

func (l *Limiter) span(lim RateLimit) time.Duration {
	return lim.Window + time.Duration(float64(lim.Window)*l.margin)
}

// Wait takes one request of budget g (per symbol where the group is), and
// waits for it when the budget is spent. It fails without waiting when the
// wait would outlast ctx's deadline, and stops waiting when ctx ends.
func (l *Limiter) Wait(ctx context.Context, g Group, symbol string) error {
	k, lim, ok := l.key(g, symbol)
	if !ok {
		return nil
	}
	prio := IsProtective(ctx)
	if prio {
		l.queue(k, 1)
		defer l.queue(k, -1)
	}
	working := !prio && IsWorking(ctx)
	for {
		wait := l.reserve(k, lim, prio, working)
		if wait <= 0 {
			return nil
		}
		// The deadline is wall time even when the clock is a fake.
		if dl, ok := ctx.Deadline(); ok && time.Until(dl) < wait {
			return fmt.Errorf("%w: %s needs %v", ErrRateLimitWait, g, wait.Round(time.Millisecond))
		}
		if err := l.clock.Sleep(ctx, wait); err != nil {
			return err
		}
	}
}

// queue counts a protective request waiting for budget k (d +1 or -1).
func (l *Limiter) queue(k limitKey, d int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	w := l.windows[k]
	if w == nil {
		w = &window{}
		l.windows[k] = w
	}
	w.protective += d
}

// yieldWait is how long an ordinary request waits before looking again
// while protective requests are queued for its budget.
const yieldWait = 5 * time.Millisecond

// reserve records a request and returns 0, or returns how long to wait.
// An ordinary request yields to queued protective ones; a working one
// also leaves the budget's last WorkReserve slots alone.
func (l *Limiter) reserve(k limitKey, lim RateLimit, prio, working bool) time.Duration {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.clock.Now()
	w := l.windows[k]
	if w == nil {
		w = &window{sent: make([]time.Time, 0, lim.N)}
		l.windows[k] = w
	}
	span := l.span(lim)
	w.prune(now, span)
	if now.Before(w.blockedUntil) {
		return w.blockedUntil.Sub(now)
	}
	if len(w.sent) >= lim.N {
		return w.sent[0].Add(span).Sub(now)
	}
	if !prio && w.protective > 0 {
		return yieldWait
	}
	if working && lim.N > WorkReserve(lim.N) && len(w.sent) >= lim.N-WorkReserve(lim.N) {
		return w.sent[0].Add(span).Sub(now)
	}
	w.sent = append(w.sent, now)
	return 0
}

// prune drops the requests that left the window.
func (w *window) prune(now time.Time, span time.Duration) {
	i := 0
	for i < len(w.sent) && !w.sent[i].Add(span).After(now) {
		i++
	}
	if i > 0 {
		n := copy(w.sent, w.sent[i:])
		w.sent = w.sent[:n]
	}
}

// Block spends budget g (for symbol) until the given time: the venue said
// 429, so its count differs from ours (another client on the same key or IP).
func (l *Limiter) Block(g Group, symbol string, until time.Time) {
	k, _, ok := l.key(g, symbol)
	if !ok {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	w := l.windows[k]
	if w == nil {
		w = &window{}
		l.windows[k] = w
	}
	if until.After(w.blockedUntil) {
		w.blockedUntil = until
	}
}

// Budget is the state of one rate-limit budget, for the status bar.
type Budget struct {
	Group     Group
	Symbol    string // for per-symbol budgets; "" otherwise
	Limit     int
	Window    time.Duration
	Remaining int           // requests that may go now without waiting
	ResetIn   time.Duration // until the next request frees budget; 0 when nothing is spent
}

// Budget returns the state of budget g (for symbol when per symbol).
func (l *Limiter) Budget(g Group, symbol string) Budget {
	k, lim, _ := l.key(g, symbol)
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.budgetLocked(k, lim, l.clock.Now())
}

func (l *Limiter) budgetLocked(k limitKey, lim RateLimit, now time.Time) Budget {
	b := Budget{Group: k.group, Symbol: k.scope, Limit: lim.N, Window: lim.Window, Remaining: lim.N}
	w := l.windows[k]
	if w == nil {
		return b
	}
	span := l.span(lim)
	w.prune(now, span)
	if now.Before(w.blockedUntil) {
		b.Remaining = 0
		b.ResetIn = w.blockedUntil.Sub(now)
		return b
	}
	b.Remaining = lim.N - len(w.sent)
	if len(w.sent) > 0 {
		b.ResetIn = w.sent[0].Add(span).Sub(now)
	}
	return b
}

// Budgets returns every budget used since the limiter was made, the
// tightest first (least remaining, then longest reset); budgets never used
// are full and left out. Per-symbol budgets appear once per symbol.
func (l *Limiter) Budgets() []Budget {
	l.mu.Lock()
	now := l.clock.Now()
	out := make([]Budget, 0, len(l.windows))
	for k := range l.windows {
		out = append(out, l.budgetLocked(k, l.limits[k.group], now))
	}
	l.mu.Unlock()
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.Remaining != b.Remaining {
			return a.Remaining < b.Remaining
		}
		if a.ResetIn != b.ResetIn {
			return a.ResetIn > b.ResetIn
		}
		if a.Group != b.Group {
			return a.Group < b.Group
		}
		return a.Symbol < b.Symbol
	})
	return out
}
