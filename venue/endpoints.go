package venue

import "fmt"

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
// text form: String and GoString redact it, so a stray %v cannot leak it.
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
func (c Credentials) GoString() string { return c.String() }

func redacted(s string) string {
	if s == "" {
		return "(none)"
	}
	return "(redacted)"
}
