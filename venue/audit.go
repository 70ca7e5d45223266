package venue

import (
	"context"
	"net/http"
)

// AuditEntry is one request that changes the account: every method but
// GET (orders, cancels, account mode, leverage, repayments, transfers).
type AuditEntry struct {
	Action Group  // the endpoint's budget group: send_order, cancel_order, transfer, ...
	Method string // POST, DELETE, PUT
	Path   string // with its path arguments
	Params string // the canonical parameters, as signed; never the secret
}

// Auditor is told of every account-changing request before it is sent;
// the function it returns is called with the outcome (nil: the venue
// accepted it). `tradedeck serve` logs who sent what this way.
type Auditor func(AuditEntry) func(error)

// WithAudit sets the client's auditor.
func WithAudit(a Auditor) Option { return func(c *Client) { c.audit = a } }

// With returns a copy of the client with opts applied on top. The copy
// shares the original's HTTP client and rate limiter (the venue counts
// limits per key, whoever sends), so a server can give each session its
// own auditor on one set of budgets.
func (c *Client) With(opts ...Option) *Client {
	cp := *c
	for _, o := range opts {
		o(&cp)
	}
	return &cp
}

// do sends req, telling the auditor first when it changes the account.
func (c *Client) do(ctx context.Context, req request, out replier) error {
	r := req.route
	if c.audit == nil || r.Method == http.MethodGet {
		return c.roundTrip(ctx, req, out)
	}
	done := c.audit(AuditEntry{Action: r.Group, Method: r.Method, Path: r.path(req.args...), Params: CanonicalParams(req.params)})
	err := c.roundTrip(ctx, req, out)
	if done != nil {
		done(err)
	}
	return err
}
