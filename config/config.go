// Package config reads tradedeck's TOML configuration from the XDG config
// directory ($XDG_CONFIG_HOME/tradedeck/config.toml, default
// ~/.config/tradedeck/config.toml): theme, key bindings, watchlist, layout,
// the live venue's addresses and (preferably via environment variables)
// its keys.
package config

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/BurntSushi/toml"
	"github.com/shopspring/decimal"

	"tradedeck/venue"
	"tradedeck/xdg"
)

// Environment variables for the keys; they override the file.
const (
	EnvAPIKey        = "TRADEDECK_API_KEY"
	EnvAPISecret     = "TRADEDECK_API_SECRET"
	EnvApplicationID = "TRADEDECK_APPLICATION_ID"
)

// Config is the file's content.
type Config struct {
	Theme     string   `toml:"theme"`     // dark, light, contrast, mono
	ASCII     bool     `toml:"ascii"`     // ASCII glyphs only
	FPS       int      `toml:"fps"`       // frame cap of the renderer
	Symbol    string   `toml:"symbol"`    // symbol focused at start
	Interval  string   `toml:"interval"`  // candle interval at start
	Watchlist []string `toml:"watchlist"` // watchlist symbols
	ReadOnly  bool     `toml:"read_only"` // never trade
	// ConfirmNotional is the order notional (quote currency, a decimal
	// string) from which the confirmation uses its strongest wording;
	// empty keeps the default, a negative value turns the rule off.
	ConfirmNotional string              `toml:"confirm_notional"`
	Keys            map[string][]string `toml:"keys"` // binding name -> keys
	Layout          Layout              `toml:"layout"`
	Live            Live                `toml:"live"`
	Staging         Live                `toml:"staging"` // the venue's staging addresses (--staging)
	Alerts          Alerts              `toml:"alerts"`  // config/alerts.go
}

// Layout is the dashboard's arrangement at start.
type Layout struct {
	Focus string `toml:"focus"` // book, chart, trades, watchlist, account
	Zoom  bool   `toml:"zoom"`  // start with the focused pane zoomed
}

// Live is the real venue: addresses and (discouraged in a file) keys.
type Live struct {
	venue.Endpoints
	venue.Credentials
}

// DefaultLive is the real venue's production addresses.
var DefaultLive = venue.Endpoints{
	BaseURL:          "https://api.woo.org",
	PublicHistoryURL: "https://api-pub.woo.org",
	WSMarketURL:      "wss://wss.woo.org",
	WSPrivateURL:     "wss://wss.woo.org",
	StatsURL:         "https://fi-api.woo.org",
}

// DefaultStaging is the real venue's staging addresses (no real money).
// The venue lists no staging swap statistics service: the production one
// is public and read-only, so staging shows it.
var DefaultStaging = venue.Endpoints{
	BaseURL:          "https://api.staging.woo.org",
	PublicHistoryURL: "https://api-pub.staging.woo.org",
	WSMarketURL:      "wss://wss.staging.woo.org",
	WSPrivateURL:     "wss://wss.staging.woo.org",
	StatsURL:         "https://fi-api.woo.org",
}

// Target is the venue a command talks to.
type Target uint8

const (
	TargetSim     Target = iota // the embedded simulated venue
	TargetLive                  // the real venue (--live)
	TargetStaging               // the real venue's staging (--staging)
)

// TargetOf is the venue --live and --staging choose; both is an error.
func TargetOf(live, staging bool) (Target, error) {
	switch {
	case live && staging:
		return TargetSim, errors.New("--live and --staging exclude each other")
	case live:
		return TargetLive, nil
	case staging:
		return TargetStaging, nil
	}
	return TargetSim, nil
}

// Label is the venue's name on the banner and in messages.
func (t Target) Label() string {
	switch t {
	case TargetLive:
		return "LIVE"
	case TargetStaging:
		return "STAGING"
	}
	return "SIM"
}

// Defaults is what the dashboard uses without a config file.
func Defaults() Config {
	return Config{
		Theme:     "dark",
		FPS:       60,
		Interval:  "1m",
		Watchlist: []string{"PERP_BTC_USDT", "PERP_ETH_USDT", "SPOT_BTC_USDT", "SPOT_ETH_USDT", "SPOT_WOO_USDT"},
		Layout:    Layout{Focus: "book"},
		Alerts:    DefaultAlerts(),
	}
}

// Path is the default config file: $XDG_CONFIG_HOME/tradedeck/config.toml,
// falling back to ~/.config.
func Path(getenv func(string) string) string {
	return filepath.Join(xdg.Config(getenv), "config.toml")
}

// Load reads path over the defaults. A missing file is fine unless
// required (the user named it). Unknown keys are an error: a typo must
// not silently keep a default. Errors name the line and key, never a
// value. A file holding api_secret that group or others can read is
// refused. warnings lists non-fatal problems for the caller to show.
func Load(path string, required bool) (c Config, warnings []string, err error) {
	c = Defaults()
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) && !required {
		return c, nil, nil
	}
	if err != nil {
		return c, nil, fmt.Errorf("config: %w", err)
	}
	md, err := toml.Decode(string(data), &c)
	if err != nil {
		return c, nil, decodeError(path, err)
	}
	if und := md.Undecoded(); len(und) > 0 {
		return c, nil, unknownKeys(path, und)
	}
	if err := c.check(path); err != nil {
		return c, nil, err
	}
	if c.ConfirmNotional != "" {
		if _, err := decimal.NewFromString(c.ConfirmNotional); err != nil {
			return c, nil, fmt.Errorf("config %s: key confirm_notional: not a decimal number (e.g. \"10000\")", path)
		}
	}
	if err := c.Alerts.validate(); err != nil {
		return c, nil, fmt.Errorf("config %s: %w", path, err)
	}
	if c.Live.APISecret != "" || c.Staging.APISecret != "" {
		// Refused, as ssh refuses a private key others can read: the
		// secret signs orders on the real account.
		st, err := os.Stat(path)
		if err != nil {
			return c, nil, fmt.Errorf("config: %w", err)
		}
		if perm := st.Mode().Perm(); perm&0o077 != 0 {
			return c, nil, fmt.Errorf("config %s holds api_secret and is readable by others (mode %04o): chmod 600 %s, or remove api_secret from it and set %s", path, perm, path, EnvAPISecret)
		}
	}
	return c, warnings, nil
}

// unknownKeys names the keys nothing reads (a typo must not silently keep
// a default); [venue] gets a pointer to [live], where the venue's
// addresses and keys go.
func unknownKeys(path string, und []toml.Key) error {
	keys := make([]string, len(und))
	venueTable := false
	for i, k := range und {
		keys[i] = k.String()
		venueTable = venueTable || k[0] == "venue"
	}
	sort.Strings(keys)
	err := fmt.Errorf("config %s: unknown keys: %s", path, strings.Join(keys, ", "))
	if venueTable {
		err = fmt.Errorf("%w (the venue's addresses and keys go in the [live] table)", err)
	}
	return err
}

// LoadFlag loads the file a --config flag names; with no flag, the
// default Path, where a missing file is fine.
func LoadFlag(flagPath string) (Config, []string, error) {
	if flagPath == "" {
		return Load(Path(nil), false)
	}
	return Load(flagPath, true)
}

// Endpoints are the live venue's addresses: the file's, else the defaults.
func (c Config) Endpoints() venue.Endpoints { return c.EndpointsOf(TargetLive) }

// EndpointsOf are the addresses of the live or staging venue: the file's
// [live] or [staging] section, else that venue's defaults.
func (c Config) EndpointsOf(t Target) venue.Endpoints {
	e, d := c.Live.Endpoints, DefaultLive
	if t == TargetStaging {
		e, d = c.Staging.Endpoints, DefaultStaging
	}
	pick := func(v, def string) string {
		if v != "" {
			return strings.TrimRight(v, "/")
		}
		return def
	}
	return venue.Endpoints{
		BaseURL:          pick(e.BaseURL, d.BaseURL),
		PublicHistoryURL: pick(e.PublicHistoryURL, d.PublicHistoryURL),
		WSMarketURL:      pick(e.WSMarketURL, d.WSMarketURL),
		WSPrivateURL:     pick(e.WSPrivateURL, d.WSPrivateURL),
		StatsURL:         pick(e.StatsURL, d.StatsURL),
	}
}

// Credentials are the live keys: environment variables over the file.
func (c Config) Credentials(getenv func(string) string) venue.Credentials {
	return c.CredentialsOf(TargetLive, getenv)
}

// CredentialsOf are the keys of the live or staging venue: environment
// variables over the file's [live] or [staging] section (staging keys are
// the staging venue's own: run with the staging keys in the environment).
func (c Config) CredentialsOf(t Target, getenv func(string) string) venue.Credentials {
	if getenv == nil {
		getenv = os.Getenv
	}
	cr := c.Live.Credentials
	if t == TargetStaging {
		cr = c.Staging.Credentials
	}
	if v := getenv(EnvAPIKey); v != "" {
		cr.APIKey = v
	}
	if v := getenv(EnvAPISecret); v != "" {
		cr.APISecret = v
	}
	if v := getenv(EnvApplicationID); v != "" {
		cr.ApplicationID = v
	}
	return cr
}
