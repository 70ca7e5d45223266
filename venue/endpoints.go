package venue

import (
	"fmt"
	"io"
)

// Endpoints are the venue's addresses. Every one is configurable: the
// embedded simulator fills them with loopback URLs, live mode with the real
// venue's (see docs/config.md).
type Endpoints struct {
	BaseURL          string `json:"base_url" toml:"base_url"`
	PublicHistoryURL string `json:"public_history_url" toml:"public_history_url"`
	WSMarketURL      string `json:"ws_market_url" toml:"ws_market_url"`
	WSPrivateURL     string `json:"ws_private_url" toml:"ws_private_url"`
	StatsURL         string `json:"stats_url" toml:"stats_url"`
}

// MarketStreamURL is the market data stream of an application.
func (e Endpoints) MarketStreamURL(applicationID string) string {
	return e.WSMarketURL + "/ws/stream/" + applicationID
}

// PrivateStreamURL is the private user data stream of an application.
func (e Endpoints) PrivateStreamURL(applicationID string) string {
	return e.WSPrivateURL + "/v2/ws/private/stream/" + applicationID
}

// Credentials identify an account. The secret never leaves this struct in
// text form: Format redacts it in every fmt verb (%v, %+v, %#v, %s, %q,
// %x, %d, ...), and String and GoString (used by the runtime's panic
// printer and by %#v) do too.
type Credentials struct {
	APIKey        string `json:"api_key" toml:"api_key"`
	APISecret     string `json:"api_secret" toml:"api_secret"`
	ApplicationID string `json:"application_id" toml:"application_id"`
}

// HasKeys reports whether the credentials can sign requests.
func (c Credentials) HasKeys() bool { return c.APIKey != "" && c.APISecret != "" }

func (c Credentials) String() string {
	return fmt.Sprintf("Credentials{APIKey:%s ApplicationID:%s APISecret:%s}", c.APIKey, c.ApplicationID, redacted(c.APISecret))
}

// GoString keeps %#v from printing the secret too.
func (c Credentials) GoString() string {
	return fmt.Sprintf("venue.Credentials{APIKey:%q, APISecret:%q, ApplicationID:%q}", c.APIKey, redacted(c.APISecret), c.ApplicationID)
}

// Format prints the redacted form whatever the verb: without it, %d or
// %x of a struct print its fields, the secret among them.
func (c Credentials) Format(f fmt.State, verb rune) {
	formatRedacted(f, verb, c.String(), c.GoString())
}

// formatRedacted writes s (gs for %#v) with the verb's string formatting.
func formatRedacted(f fmt.State, verb rune, s, gs string) {
	switch {
	case verb == 'v' && f.Flag('#'):
		_, _ = io.WriteString(f, gs)
	case verb == 's' || verb == 'q' || verb == 'x' || verb == 'X' || verb == 'v':
		_, _ = fmt.Fprintf(f, fmt.FormatString(f, verb), s)
	default:
		_, _ = io.WriteString(f, s)
	}
}

func redacted(s string) string {
	if s == "" {
		return "(none)"
	}
	return "(redacted)"
}
