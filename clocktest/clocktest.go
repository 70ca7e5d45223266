// Package clocktest is a settable clock for tests: time stands still until
// the test moves it, so what depends on time (rate windows, key grace,
// funding, alert cooldowns) is checked without sleeping. It is safe for
// the goroutines of a server under test.
package clocktest

import (
	"sync"
	"time"
)

// Clock is a time that moves only by Advance.
type Clock struct {
	mu sync.Mutex
	t  time.Time
}

// New returns a clock standing at t.
func New(t time.Time) *Clock { return &Clock{t: t} }

// Now returns the clock's time; its method value is the func() time.Time
// the packages under test take as their time source.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

// Advance moves the clock by d (back when d is negative).
func (c *Clock) Advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}
