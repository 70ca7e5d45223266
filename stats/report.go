package stats

import (
	"context"
	"errors"
	"sync"
	"time"

	"golang.org/x/sync/singleflight"
)

// Report is everything shown for one (network, period): the series, the
// totals of the period before it (for the change), and the split by source.
type Report struct {
	Series      Series
	Previous    Totals
	HasPrevious bool
	Sources     []Source
}

// Fetch queries /stat, the longer period holding the previous one (see
// PreviousPeriodSource) and, when withSources, /source_stat. A failure of
// the previous-period query only drops the change; the others fail the
// report.
func Fetch(ctx context.Context, c *Client, network, period string, withSources bool) (Report, error) {
	var r Report
	var err error
	if r.Series, err = c.Stat(ctx, network, period); err != nil {
		return Report{}, err
	}
	if longer, ok := PreviousPeriodSource(period); ok {
		if ls, err := c.Stat(ctx, network, longer); err == nil {
			r.Previous, r.HasPrevious = PreviousTotals(r.Series, ls)
		} else if isRateLimited(err) {
			return Report{}, err
		}
	}
	if withSources {
		if r.Sources, err = c.SourceStat(ctx, network, period); err != nil {
			return Report{}, err
		}
	}
	return r, nil
}

func isRateLimited(err error) bool {
	var rl *RateLimitedError
	return errors.As(err, &rl)
}

// Key identifies one cached report.
type Key struct{ Network, Period string }

// Snapshot is what the cache holds for a key: the last good report with its
// fetch time, and the error of the last refresh if it failed (the report is
// then stale but still shown).
type Snapshot struct {
	Key
	Report    Report
	FetchedAt time.Time // zero when no fetch ever succeeded
	Err       error     // last refresh failure; nil after a success
	ErrAt     time.Time
}

// Stale reports whether the last refresh failed.
func (s Snapshot) Stale() bool { return s.Err != nil }

// HasData reports whether a fetch ever succeeded.
func (s Snapshot) HasData() bool { return !s.FetchedAt.IsZero() }

// Cache keeps one report per (network, period), fetched through the client
// and refreshed once it is older than the interval. Concurrent requests for
// the same key share one fetch. Safe for concurrent use.
type Cache struct {
	client   *Client
	interval time.Duration
	now      func() time.Time
	group    singleflight.Group

	mu      sync.Mutex
	entries map[Key]Snapshot
}

// NewCache returns a cache refreshing reports older than interval.
func NewCache(c *Client, interval time.Duration) *Cache {
	return &Cache{client: c, interval: interval, now: time.Now, entries: map[Key]Snapshot{}}
}

// SetClock replaces time.Now (tests, and a dashboard with a fixed clock).
func (c *Cache) SetClock(now func() time.Time) { c.now = now }

// Interval is the refresh interval.
func (c *Cache) Interval() time.Duration { return c.interval }

// Peek returns what is cached without any I/O.
func (c *Cache) Peek(k Key) (Snapshot, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	s, ok := c.entries[k]
	return s, ok
}

// Get returns the cached report when it is fresh, and fetches otherwise.
// A failed fetch keeps the last good report, records the error in the
// snapshot and also returns it.
func (c *Cache) Get(ctx context.Context, k Key) (Snapshot, error) {
	if s, ok := c.Peek(k); ok && s.HasData() && c.now().Sub(s.FetchedAt) < c.interval {
		return s, s.Err
	}
	return c.Refresh(ctx, k)
}

// Refresh fetches now, whatever the age of the cached report.
func (c *Cache) Refresh(ctx context.Context, k Key) (Snapshot, error) {
	v, _, _ := c.group.Do(k.Network+"\x00"+k.Period, func() (any, error) {
		rep, err := Fetch(ctx, c.client, k.Network, k.Period, true)
		c.mu.Lock()
		defer c.mu.Unlock()
		s := c.entries[k]
		s.Key = k
		if err != nil {
			s.Err, s.ErrAt = err, c.now()
		} else {
			s.Report, s.FetchedAt, s.Err, s.ErrAt = rep, c.now(), nil, time.Time{}
		}
		c.entries[k] = s
		return s, nil
	})
	s := v.(Snapshot)
	return s, s.Err
}
