package stats

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// DefaultRateLimit is what the client allows itself by default: the public
// service allows about 120 requests a minute; 100 a minute with bursts of 16
// stays under it in any 60 s window, whichever way the service counts.
const DefaultRateLimit = 100

// maxBody bounds a reply: the longest real one ("all" of a network, a few
// thousand rows) is well under a megabyte.
const maxBody = 8 << 20

// Client talks to one stats service. It is safe for concurrent use.
type Client struct {
	base    string
	hc      *http.Client
	limiter *rate.Limiter
	now     func() time.Time

	mu           sync.Mutex
	backoffUntil time.Time // after a 429: no requests before this
	backoff      time.Duration
}

// Option configures a Client.
type Option func(*Client)

// WithHTTPClient sets the HTTP client (timeouts, proxies, transport).
func WithHTTPClient(hc *http.Client) Option { return func(c *Client) { c.hc = hc } }

// WithRateLimit sets the requests a minute the client allows itself, with
// bursts of a sixth of that; 0 or less removes the client-side limit.
func WithRateLimit(perMinute int) Option {
	return func(c *Client) {
		if perMinute <= 0 {
			c.limiter = rate.NewLimiter(rate.Inf, 1)
			return
		}
		c.limiter = rate.NewLimiter(rate.Limit(float64(perMinute)/60), max(1, perMinute/6))
	}
}

// withClock is for tests of the 429 back-off.
func withClock(now func() time.Time) Option { return func(c *Client) { c.now = now } }

// NewClient returns a client of the service at baseURL, e.g.
// "https://api.woofi.com" or the simulator's "http://127.0.0.1:P/woofi".
func NewClient(baseURL string, opts ...Option) *Client {
	c := &Client{
		base: strings.TrimRight(baseURL, "/"),
		hc:   &http.Client{Timeout: 15 * time.Second},
		now:  time.Now,
	}
	WithRateLimit(DefaultRateLimit)(c)
	for _, o := range opts {
		o(c)
	}
	return c
}

// BaseURL is the service address the client was made with.
func (c *Client) BaseURL() string { return c.base }

// RateLimitedError means the service answered 429 (or the client is still
// backing off from one): no request is sent before RetryAt.
type RateLimitedError struct {
	RetryAt time.Time
	Message string
}

func (e *RateLimitedError) Error() string {
	msg := "rate limited by the stats service"
	if e.Message != "" {
		msg += ": " + e.Message
	}
	return msg + "; retrying after " + e.RetryAt.UTC().Format("15:04:05") + " UTC"
}

// Stat fetches the statistics of a network over a period.
func (c *Client) Stat(ctx context.Context, network, period string) (Series, error) {
	status, body, err := c.get(ctx, "/stat", network, period)
	if err != nil {
		return Series{}, err
	}
	return DecodeStat(network, period, status, body)
}

// SourceStat fetches the split of a network's volume by source, ranked.
func (c *Client) SourceStat(ctx context.Context, network, period string) ([]Source, error) {
	status, body, err := c.get(ctx, "/source_stat", network, period)
	if err != nil {
		return nil, err
	}
	return DecodeSourceStat(status, body)
}

// validName accepts what a network name can be without escaping: the list is
// open-ended (configurable), but nothing odd goes into a URL.
func validName(s string) bool {
	if s == "" || len(s) > 32 {
		return false
	}
	for _, r := range s {
		if (r < 'a' || r > 'z') && (r < '0' || r > '9') && r != '-' && r != '_' {
			return false
		}
	}
	return true
}

func (c *Client) get(ctx context.Context, path, network, period string) (int, []byte, error) {
	if !validName(network) {
		return 0, nil, fmt.Errorf("stats: bad network name %q (lower-case letters, digits, - and _)", network)
	}
	if !ValidPeriod(period) {
		return 0, nil, fmt.Errorf("stats: unknown period %q: one of %s", period, strings.Join(Periods, ", "))
	}
	if err := c.checkBackoff(); err != nil {
		return 0, nil, err
	}
	if err := c.limiter.Wait(ctx); err != nil {
		return 0, nil, fmt.Errorf("stats: waiting for the client-side rate limit: %w", err)
	}
	u := c.base + path + "?" + url.Values{"network": {network}, "period": {period}}.Encode()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return 0, nil, fmt.Errorf("stats: %w", err)
	}
	req.Header.Set("Accept", "application/json")
	resp, err := c.hc.Do(req)
	if err != nil {
		return 0, nil, fmt.Errorf("stats: GET %s: %w", path, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxBody+1))
	if err != nil {
		return 0, nil, fmt.Errorf("stats: GET %s: reading the reply: %w", path, err)
	}
	if len(body) > maxBody {
		return 0, nil, fmt.Errorf("stats: GET %s: reply larger than %d bytes", path, maxBody)
	}
	if resp.StatusCode == http.StatusTooManyRequests {
		return 0, nil, c.rateLimited(resp.Header.Get("Retry-After"), body)
	}
	c.mu.Lock()
	c.backoff = 0
	c.mu.Unlock()
	return resp.StatusCode, body, nil
}

func (c *Client) checkBackoff() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.now().Before(c.backoffUntil) {
		return &RateLimitedError{RetryAt: c.backoffUntil, Message: "backing off after a 429"}
	}
	return nil
}

// rateLimited records a 429: wait what Retry-After says, or back off
// exponentially from 5 s up to 2 min when it says nothing.
func (c *Client) rateLimited(retryAfter string, body []byte) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	wait := time.Duration(0)
	if secs, err := strconv.Atoi(strings.TrimSpace(retryAfter)); err == nil && secs >= 0 {
		wait = time.Duration(secs) * time.Second
	} else if t, err := http.ParseTime(retryAfter); err == nil {
		wait = t.Sub(c.now())
	}
	if wait <= 0 {
		c.backoff = min(max(2*c.backoff, 5*time.Second), 2*time.Minute)
		wait = c.backoff
	}
	c.backoffUntil = c.now().Add(wait)
	e := &RateLimitedError{RetryAt: c.backoffUntil}
	var apiErr *APIError
	if _, err := decodeEnvelope("", http.StatusTooManyRequests, body); errors.As(err, &apiErr) {
		e.Message = apiErr.Message
	}
	return e
}
