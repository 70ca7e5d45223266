package trade

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/shopspring/decimal"

	"tradedeck/venue"
)

// RuleOf converts the venue's symbol rule.
func RuleOf(r venue.SymbolRule) Rule {
	return Rule{Symbol: r.Symbol, QuoteMin: r.QuoteMin, QuoteMax: r.QuoteMax, QuoteTick: r.QuoteTick,
		BaseMin: r.BaseMin, BaseMax: r.BaseMax, BaseTick: r.BaseTick, MinNotional: r.MinNotional, PriceRange: r.PriceRange}
}

// Request is the venue request of an order. MARKET orders carry no price;
// ASK and BID carry the best price of their side, which the venue requires
// and then replaces by the book's.
func Request(o Order) venue.OrderRequest {
	r := venue.OrderRequest{Symbol: o.Symbol, ClientOrderID: o.ClientOrderID, OrderTag: o.Tag,
		Type: venue.OrderType(o.Type), Side: venue.Side(o.Side), Quantity: o.Quantity, Amount: o.Amount,
		ReduceOnly: o.ReduceOnly}
	if o.Type != Market {
		r.Price = o.Price
	}
	if o.HasVisible && o.Type.UsesVisible() {
		r.VisibleQuantity = decimal.NewNullDecimal(o.Visible)
	}
	return r
}

// Explain turns an error of a REST call into the one line the user sees:
// code, name and meaning of a venue error, and whether and when a retry
// can help (-1003: next rate-limit window; -1011/-1012: a few seconds).
func Explain(err error) string {
	if err == nil {
		return ""
	}
	var ae *venue.APIError
	var pe *venue.ParamError
	switch {
	case errors.As(err, &pe):
		return "not sent: " + pe.Param + " " + pe.Reason
	case errors.As(err, &ae):
		return explainAPI(ae)
	case errors.Is(err, venue.ErrRateLimitWait):
		return "not sent: " + strings.TrimPrefix(err.Error(), "venue: ") + "; the venue's rate limit would refuse it, retry in a moment"
	case errors.Is(err, context.DeadlineExceeded):
		return "no reply from the venue in time; an order or cancel may still have been applied: check open orders"
	}
	return "request failed: " + err.Error() + "; the request may or may not have reached the venue"
}

func explainAPI(e *venue.APIError) string {
	if e.Code == 0 {
		s := fmt.Sprintf("HTTP %d", e.HTTPStatus)
		if e.Message != "" {
			s += ": " + e.Message
		}
		if e.Retryable() {
			s += "; retry possible in a few seconds"
		}
		return s
	}
	info := e.Code.Info()
	name := e.Name
	if name == "" {
		name = info.Name
	}
	s := fmt.Sprintf("%d %s: %s", int(e.Code), name, info.Meaning)
	if e.Message != "" && e.Message != info.Meaning {
		s += " (" + e.Message + ")"
	}
	switch {
	case e.RateLimited():
		s += "; retry possible in the next rate-limit window (about 1 s for orders)"
	case e.Code == venue.CodeRPCNotConnect || e.Code == venue.CodeRPCReject:
		if !strings.Contains(info.Meaning, "retry") {
			s += "; retry possible after a few seconds"
		}
	case e.Code == venue.CodeUnknown:
		s += "; a retry may help"
	}
	return s
}
