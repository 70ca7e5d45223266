package venue

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"unicode/utf8"
)

// APIError is a request the venue refused (or a reply that was not the
// venue's JSON at all, such as a proxy's HTML 502 page: then Code is 0 and
// Message describes the body). It never carries the secret or signature.
type APIError struct {
	HTTPStatus int
	Code       Code   // 0 when the body carried no code
	Name       string // the error table's name, e.g. INVALID_PARAM
	Message    string // the venue's detail text
	Method     string // request method and path, for context
	Path       string
}

func (e *APIError) Error() string {
	var b strings.Builder
	b.WriteString("venue: ")
	if e.Method != "" {
		b.WriteString(e.Method + " " + e.Path + ": ")
	}
	fmt.Fprintf(&b, "HTTP %d", e.HTTPStatus)
	if e.Code != 0 {
		info := e.Code.Info()
		fmt.Fprintf(&b, " code %d %s", int(e.Code), e.Name)
		if e.Message != "" {
			b.WriteString(": " + e.Message)
		}
		b.WriteString(" (" + info.Meaning + ")")
	} else if e.Message != "" {
		b.WriteString(": " + e.Message)
	}
	return b.String()
}

// Retryable reports whether the same request may succeed later: unknown
// errors (-1000), rate limits (-1003, HTTP 429), the venue's internal
// network errors (-1011, -1012), and gateway failures without a venue code
// (HTTP 502, 503, 504).
func (e *APIError) Retryable() bool {
	switch e.Code {
	case CodeUnknown, CodeTooManyRequest, CodeRPCNotConnect, CodeRPCReject:
		return true
	}
	switch e.HTTPStatus {
	case http.StatusTooManyRequests:
		return true
	case http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout:
		return e.Code == 0
	}
	return false
}

// RateLimited reports a refusal for exceeding a rate limit.
func (e *APIError) RateLimited() bool {
	return e.Code == CodeTooManyRequest || e.HTTPStatus == http.StatusTooManyRequests
}

// IsRetryable reports whether err is an APIError worth retrying later.
func IsRetryable(err error) bool {
	var e *APIError
	return errors.As(err, &e) && e.Retryable()
}

// IsAuth reports whether err is an authentication failure (-1001, -1002).
func IsAuth(err error) bool {
	var e *APIError
	return errors.As(err, &e) && (e.Code == CodeInvalidSignature || e.Code == CodeUnauthorized)
}

// IsFilterReject reports whether err is an order refused by one of the
// symbol's filters or the risk check (-1101..-1105).
func IsFilterReject(err error) bool {
	var e *APIError
	return errors.As(err, &e) && e.Code <= CodeRiskTooHigh && e.Code >= CodePercentageFilter
}

// IsRateLimited reports whether err is a rate-limit refusal by the venue.
func IsRateLimited(err error) bool {
	var e *APIError
	return errors.As(err, &e) && e.RateLimited()
}

// IsNotFound reports -1006 (for example cancelling an order already gone).
func IsNotFound(err error) bool {
	var e *APIError
	return errors.As(err, &e) && e.Code == CodeResourceNotFound
}

// ParamError is a request refused by the client before sending because a
// parameter is missing or has a value the spec forbids.
type ParamError struct {
	Param  string // the wire name, e.g. order_price
	Reason string
}

func (e *ParamError) Error() string { return "venue: parameter " + e.Param + ": " + e.Reason }

func paramErr(param, format string, args ...any) *ParamError {
	return &ParamError{Param: param, Reason: fmt.Sprintf(format, args...)}
}

// ErrNoCredentials: a private endpoint was called without keys.
var ErrNoCredentials = errors.New("venue: this endpoint needs an api key and secret")

// ErrRateLimitWait: the wait for rate-limit budget would outlast the
// caller's context deadline, so the request was not sent.
var ErrRateLimitWait = errors.New("venue: rate-limit wait exceeds the context deadline")

// errorBody is the venue's failure body; code may be a number or a string.
type errorBody struct {
	Success *Bool  `json:"success"`
	Code    *Int   `json:"code"`
	Message string `json:"message"`
}

// parseError builds the error of a failed reply (non-2xx status, or 2xx
// with success false). It never fails: a body that is not the venue's JSON
// is summarised.
func parseError(status int, method, path string, body []byte) *APIError {
	e := &APIError{HTTPStatus: status, Method: method, Path: path}
	var eb errorBody
	if err := json.Unmarshal(body, &eb); err == nil && (eb.Code != nil || eb.Success != nil) {
		if eb.Code != nil {
			e.Code = Code(*eb.Code)
			e.Name = e.Code.Info().Name
		}
		e.Message = sanitize(eb.Message, 300)
		if e.Code == 0 && e.Message == "" {
			e.Message = "request failed without an error code"
		}
		return e
	}
	text := strings.TrimSpace(http.StatusText(status))
	if text == "" {
		text = "unexpected status"
	}
	snippet := sanitize(stripTags(string(body)), 120)
	if snippet == "" {
		e.Message = text + ", empty body"
	} else {
		e.Message = text + ", non-JSON body: " + snippet
	}
	return e
}

// stripTags drops HTML tags so a proxy's error page reads as its text.
func stripTags(s string) string {
	if !strings.Contains(s, "<") {
		return s
	}
	var b strings.Builder
	in := false
	for _, r := range s {
		switch {
		case r == '<':
			in = true
			b.WriteByte(' ')
		case r == '>':
			in = false
		case !in:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// sanitize keeps printable text, collapses whitespace and cuts to max runes.
func sanitize(s string, max int) string {
	var b strings.Builder
	n := 0
	space := false
	for _, r := range s {
		if r == utf8.RuneError || r < 0x20 || r == 0x7f || r == ' ' {
			space = b.Len() > 0
			continue
		}
		if space {
			b.WriteByte(' ')
			space = false
			n++
		}
		if n >= max {
			b.WriteString("...")
			break
		}
		b.WriteRune(r)
		n++
	}
	return b.String()
}
