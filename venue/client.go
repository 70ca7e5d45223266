package venue

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"
)

// ContentTypeForm is the content type of every signed request (and of the
// POST/DELETE bodies, which are never JSON).
const ContentTypeForm = "application/x-www-form-urlencoded"

// maxReplyBytes bounds how much of a reply is read: the largest real reply
// (1000 klines, a full listing) is far below it.
const maxReplyBytes = 32 << 20

// Client is the signed REST client of the venue: one method per endpoint.
// It is safe for concurrent use. It starts no goroutines.
//
// Every request with keys set is signed, public ones included: the spec
// says every request is signed and signing does no harm. Without keys,
// public endpoints go unsigned and private ones fail with ErrNoCredentials
// before anything is sent (read-only mode).
type Client struct {
	endpoints  Endpoints
	creds      Credentials
	http       *http.Client
	clock      Clock
	limiter    *Limiter // nil: no client-side limiting
	limiterSet bool
	userAgent  string
	retry429   bool
	audit      Auditor // nil: none
}

// Option configures a Client.
type Option func(*Client)

// WithHTTPClient sets the HTTP client (timeouts, transport).
func WithHTTPClient(h *http.Client) Option { return func(c *Client) { c.http = h } }

// WithClock sets the clock for timestamps and rate-limit waits. The
// client's default limiter follows it.
func WithClock(clk Clock) Option { return func(c *Client) { c.clock = clk } }

// WithLimiter sets the rate limiter; nil turns client-side limiting off.
// By default clients on the system clock share one limiter per (base URL,
// api key) in the process; with WithClock each client gets its own.
func WithLimiter(l *Limiter) Option {
	return func(c *Client) { c.limiter = l; c.limiterSet = true }
}

// WithUserAgent sets the User-Agent header.
func WithUserAgent(ua string) Option { return func(c *Client) { c.userAgent = ua } }

// WithRetryOn429 turns the single retry after a 429 on (default) or off.
func WithRetryOn429(on bool) Option { return func(c *Client) { c.retry429 = on } }

// NewClient returns a client for the venue at ep with the given keys
// (empty keys: public endpoints only).
func NewClient(ep Endpoints, creds Credentials, opts ...Option) *Client {
	c := &Client{
		endpoints: ep,
		creds:     creds,
		http:      &http.Client{Timeout: 30 * time.Second},
		clock:     SystemClock{},
		userAgent: "tradedeck",
		retry429:  true,
	}
	for _, o := range opts {
		o(c)
	}
	c.endpoints.BaseURL = strings.TrimRight(c.endpoints.BaseURL, "/")
	c.endpoints.PublicHistoryURL = strings.TrimRight(c.endpoints.PublicHistoryURL, "/")
	if !c.limiterSet {
		if _, real := c.clock.(SystemClock); real {
			c.limiter = sharedLimiter(c.endpoints.BaseURL, c.creds.APIKey)
		} else {
			c.limiter = NewLimiter(c.clock, nil)
		}
	}
	return c
}

// sharedLimiters: the venue counts limits per api key, so every client of
// one key at one venue in this process draws on one limiter (the feed, the
// order form and the account screens each hold a client).
var sharedLimiters = struct {
	sync.Mutex
	m map[[2]string]*Limiter
}{m: map[[2]string]*Limiter{}}

func sharedLimiter(baseURL, apiKey string) *Limiter {
	sharedLimiters.Lock()
	defer sharedLimiters.Unlock()
	k := [2]string{baseURL, apiKey}
	l := sharedLimiters.m[k]
	if l == nil {
		l = NewLimiter(SystemClock{}, nil)
		sharedLimiters.m[k] = l
	}
	return l
}

// String describes the client without its secret (a panic or a %v of a
// struct holding a client prints this).
func (c *Client) String() string {
	return fmt.Sprintf("venue.Client{BaseURL:%s %s}", c.endpoints.BaseURL, c.creds)
}

// Format redacts in every verb: the credentials are an unexported field,
// which fmt would otherwise print raw.
func (c *Client) Format(f fmt.State, verb rune) { formatRedacted(f, verb, c.String(), c.String()) }

// Endpoints returns the addresses the client talks to.
func (c *Client) Endpoints() Endpoints { return c.endpoints }

// CanTrade reports whether the client has keys for private endpoints.
func (c *Client) CanTrade() bool { return c.creds.HasKeys() }

// Limiter returns the client's rate limiter (nil when limiting is off).
func (c *Client) Limiter() *Limiter { return c.limiter }

// Budgets returns the used rate-limit budgets, tightest first, for the
// status bar (nil when limiting is off).
func (c *Client) Budgets() []Budget {
	if c.limiter == nil {
		return nil
	}
	return c.limiter.Budgets()
}

// request is one call: the route, its path arguments (unescaped), its
// parameters, and the symbol of a per-symbol budget.
type request struct {
	route  Route
	args   []string
	params url.Values
	symbol string
}

// ack is the status part every reply carries.
type ack struct {
	Success *Bool  `json:"success"`
	Code    *Int   `json:"code"`
	Message string `json:"message"`
}

func (a *ack) status() *ack { return a }

// failed reports a 2xx reply that still says success false.
func (a *ack) failed() bool { return a.Success != nil && !bool(*a.Success) }

type replier interface{ status() *ack }

// roundTrip sends req (waiting for rate-limit budget, retrying once after a
// 429) and decodes a successful reply into out.
func (c *Client) roundTrip(ctx context.Context, req request, out replier) error {
	r := req.route
	if !r.Public && !c.creds.HasKeys() {
		return ErrNoCredentials
	}
	base := c.endpoints.BaseURL
	if r.History {
		base = c.endpoints.PublicHistoryURL
	}
	if base == "" {
		return fmt.Errorf("venue: no address configured for %s", r.Path)
	}
	args := make([]string, len(req.args))
	for i, a := range req.args {
		args[i] = url.PathEscape(a)
	}
	path := r.path(args...)
	canonical := CanonicalParams(req.params)
	var refused *APIError // the 429 being retried
	var retryIn time.Duration
	for {
		if err := c.wait(ctx, req, refused != nil, retryIn); err != nil {
			if refused != nil {
				return fmt.Errorf("%w; retry abandoned: %w", refused, err)
			}
			return fmt.Errorf("venue: %s %s: %w", r.Method, path, err)
		}
		status, header, body, err := c.send(ctx, r.Method, base+path, canonical)
		if err != nil {
			return err
		}
		if status >= 200 && status < 300 {
			if err := json.Unmarshal(body, out); err != nil {
				return fmt.Errorf("venue: %s %s: HTTP %d reply not understood: %w", r.Method, path, status, err)
			}
			if !out.status().failed() {
				return nil
			}
		}
		apiErr := parseError(status, r.Method, path, body)
		if !apiErr.RateLimited() || !c.retry429 || refused != nil {
			return apiErr
		}
		// Refused for rate: wait for the next window, then once more.
		refused, retryIn = apiErr, retryAfter(header, r.Group)
	}
}

// wait takes rate-limit budget for req; after a 429 it first holds the
// whole budget for the server's retry delay.
func (c *Client) wait(ctx context.Context, req request, after429 bool, retryIn time.Duration) error {
	if c.limiter == nil {
		if after429 {
			return c.clock.Sleep(ctx, retryIn)
		}
		return nil
	}
	if after429 {
		c.limiter.Block(req.route.Group, req.symbol, c.clock.Now().Add(retryIn))
	}
	return c.limiter.Wait(ctx, req.route.Group, req.symbol)
}

// retryAfter is how long to wait after a 429: the Retry-After header when
// the server sent one, else one window of the group ("wait until the next
// time window").
func retryAfter(h http.Header, g Group) time.Duration {
	if s := h.Get("Retry-After"); s != "" {
		if n, err := strconv.Atoi(strings.TrimSpace(s)); err == nil && n >= 0 && n < 3600 {
			return time.Duration(n) * time.Second
		}
	}
	if lim, ok := RateLimits[g]; ok {
		return lim.Window
	}
	return time.Second
}

// send signs and sends one request, returning the status, headers and body.
func (c *Client) send(ctx context.Context, method, target, canonical string) (int, http.Header, []byte, error) {
	hr, err := c.newRequest(ctx, method, target, canonical)
	if err != nil {
		return 0, nil, nil, err
	}
	resp, err := c.http.Do(hr)
	if err != nil {
		return 0, nil, nil, transportError(method, hr.URL.Path, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxReplyBytes))
	if err != nil {
		return 0, nil, nil, fmt.Errorf("venue: %s %s: HTTP %d, reading reply: %w", method, hr.URL.Path, resp.StatusCode, err)
	}
	return resp.StatusCode, resp.Header, bytes.TrimSpace(data), nil
}

// newRequest builds the HTTP request: GET parameters in the query, others
// in a form body; signed (the three headers) when the client has keys.
func (c *Client) newRequest(ctx context.Context, method, target, canonical string) (*http.Request, error) {
	var body io.Reader
	if method == http.MethodGet {
		if canonical != "" {
			target += "?" + canonical
		}
	} else {
		body = strings.NewReader(canonical)
	}
	hr, err := http.NewRequestWithContext(ctx, method, target, body)
	if err != nil {
		return nil, fmt.Errorf("venue: %s: %w", method, err)
	}
	h := hr.Header
	h.Set("Accept", "application/json")
	if c.userAgent != "" {
		h.Set("User-Agent", c.userAgent)
	}
	if body != nil || c.creds.HasKeys() {
		h.Set("Content-Type", ContentTypeForm)
	}
	if c.creds.HasKeys() {
		ts := c.clock.Now().UnixMilli()
		h.Set(HeaderKey, c.creds.APIKey)
		h.Set(HeaderTimestamp, strconv.FormatInt(ts, 10))
		h.Set(HeaderSignature, Sign(c.creds.APISecret, canonical, ts))
	}
	return hr, nil
}

// transportError keeps the context errors matchable and drops the request
// URL's query from the text (it holds parameters, never secrets, but a
// short error reads better in a status bar).
func transportError(method, path string, err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	return fmt.Errorf("venue: %s %s: %w", method, path, err)
}
