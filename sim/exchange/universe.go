package exchange

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"github.com/shopspring/decimal"

	"tradedeck/fixed"
	"tradedeck/venue"
)

//go:embed universe.json
var defaultUniverse []byte

// Universe is what the venue lists and who trades on it at start: tokens
// with their networks, symbol rules with an initial price, and the demo
// accounts. The default is embedded; `--universe FILE` replaces it.
type Universe struct {
	CreatedTime          int64           `json:"created_time"`
	Tokens               []TokenSpec     `json:"tokens"`
	Symbols              []SymbolSpec    `json:"symbols"`
	Accounts             []AccountSpec   `json:"accounts"`
	FundingIntervalHours int             `json:"funding_interval_hours"`
	SeedLevels           int             `json:"seed_levels"`
	SeedNotional         decimal.Decimal `json:"seed_notional"`
}

// TokenSpec is one token and its deposit/withdrawal networks.
type TokenSpec struct {
	Token               string          `json:"token"`
	Fullname            string          `json:"fullname"`
	Decimals            int             `json:"decimals"`
	Stable              bool            `json:"stable"`
	CollateralRatio     decimal.Decimal `json:"collateral_ratio"`
	MarginFactor        decimal.Decimal `json:"margin_factor"`
	FuturesMarginFactor decimal.Decimal `json:"futures_margin_factor"`
	CanCollateral       bool            `json:"can_collateral"`
	CanShort            bool            `json:"can_short"`
	HourlyRate          decimal.Decimal `json:"hourly_rate"` // margin interest, fraction per hour
	Networks            []NetworkSpec   `json:"networks"`
}

// NetworkSpec is a token on one chain; Token is the network-qualified name
// used by deposit calls (ETH_USDT), the parent token is the balance token.
type NetworkSpec struct {
	Protocol          string          `json:"protocol"`
	Token             string          `json:"token"`
	Name              string          `json:"name"`
	MinimumWithdrawal decimal.Decimal `json:"minimum_withdrawal"`
	WithdrawalFee     decimal.Decimal `json:"withdrawal_fee"`
}

// SymbolSpec is the venue's symbol rule (its fields and JSON names, as
// the universe file spells them) plus the price its book starts around.
// The rule's created and updated times are the universe's, not the file's.
type SymbolSpec struct {
	venue.SymbolRule
	InitialPrice decimal.Decimal `json:"initial_price"`
}

// AccountSpec is a demo account; Main names the parent of a subaccount.
type AccountSpec struct {
	Name               string                     `json:"name"`
	Alias              string                     `json:"alias"`
	Main               string                     `json:"main"`
	APIKey             string                     `json:"api_key"`
	APISecret          string                     `json:"api_secret"`
	ApplicationID      string                     `json:"application_id"`
	AccountMode        string                     `json:"account_mode"`
	Leverage           int                        `json:"leverage"`
	FuturesLeverage    int                        `json:"futures_leverage"`
	TakerFeeBps        decimal.Decimal            `json:"taker_fee_bps"`
	MakerFeeBps        decimal.Decimal            `json:"maker_fee_bps"`
	FuturesTakerFeeBps decimal.Decimal            `json:"futures_taker_fee_bps"`
	FuturesMakerFeeBps decimal.Decimal            `json:"futures_maker_fee_bps"`
	Balances           map[string]decimal.Decimal `json:"balances"`
}

// DefaultUniverse is the embedded universe.
func DefaultUniverse() (*Universe, error) { return ParseUniverse(defaultUniverse) }

// LoadUniverse reads a replacement universe file (empty path: the default).
func LoadUniverse(path string) (*Universe, error) {
	if path == "" {
		return DefaultUniverse()
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	u, err := ParseUniverse(b)
	if err != nil {
		return nil, fmt.Errorf("universe %s: %w", path, err)
	}
	return u, nil
}

// ParseUniverse decodes and validates a universe document.
func ParseUniverse(b []byte) (*Universe, error) {
	var u Universe
	if err := json.Unmarshal(b, &u); err != nil {
		return nil, err
	}
	return &u, u.validate()
}

func (u *Universe) validate() error {
	if u.FundingIntervalHours <= 0 {
		u.FundingIntervalHours = 8
	}
	tokens := map[string]bool{}
	for _, t := range u.Tokens {
		if t.Token == "" || tokens[t.Token] {
			return fmt.Errorf("token %q empty or listed twice", t.Token)
		}
		tokens[t.Token] = true
	}
	seen := map[string]bool{}
	for _, s := range u.Symbols {
		kind, base, quote, ok := SplitSymbol(s.Symbol)
		if !ok || (kind != "SPOT" && kind != "PERP") {
			return fmt.Errorf("symbol %q: want SPOT_<BASE>_<QUOTE> or PERP_<BASE>_<QUOTE>", s.Symbol)
		}
		if seen[s.Symbol] {
			return fmt.Errorf("symbol %s listed twice", s.Symbol)
		}
		seen[s.Symbol] = true
		if !tokens[quote] || (kind == "SPOT" && !tokens[base]) {
			return fmt.Errorf("symbol %s: token %s or %s not listed", s.Symbol, base, quote)
		}
		if !s.QuoteTick.IsPositive() || !s.BaseTick.IsPositive() {
			return fmt.Errorf("symbol %s: ticks must be positive", s.Symbol)
		}
		pd, qd := fixed.DecimalsOf(s.QuoteTick), fixed.DecimalsOf(s.BaseTick)
		for _, v := range []struct {
			d   decimal.Decimal
			dec int
		}{{s.QuoteMin, pd}, {s.QuoteMax, pd}, {s.InitialPrice, pd}, {s.BaseMin, qd}, {s.BaseMax, qd}} {
			if _, ok := fixed.FromDecimal(v.d, v.dec); !ok {
				return fmt.Errorf("symbol %s: %s does not fit the tick scale", s.Symbol, v.d)
			}
		}
		if !s.InitialPrice.IsPositive() || s.QuoteMax.LessThanOrEqual(s.QuoteMin) || s.BaseMax.LessThan(s.BaseMin) {
			return fmt.Errorf("symbol %s: inconsistent bounds", s.Symbol)
		}
	}
	names := map[string]bool{}
	for _, a := range u.Accounts {
		if a.Name == "" || a.APIKey == "" || a.APISecret == "" || a.ApplicationID == "" || names[a.Name] {
			return fmt.Errorf("account %q: name, api_key, api_secret, application_id required and unique", a.Name)
		}
		names[a.Name] = true
	}
	for _, a := range u.Accounts {
		if a.Main != "" && !names[a.Main] {
			return fmt.Errorf("account %s: main account %s not listed", a.Name, a.Main)
		}
		if _, ok := leverageChoices[a.AccountMode]; !ok {
			return fmt.Errorf("account %s: account_mode %q", a.Name, a.AccountMode)
		}
	}
	if len(u.Accounts) == 0 {
		return fmt.Errorf("at least one account is required")
	}
	return nil
}

// SplitSymbol splits TYPE_BASE_QUOTE.
func SplitSymbol(s string) (kind, base, quote string, ok bool) {
	parts := strings.Split(s, "_")
	if len(parts) != 3 || parts[0] == "" || parts[1] == "" || parts[2] == "" {
		return "", "", "", false
	}
	return parts[0], parts[1], parts[2], true
}

// DefaultUniverseJSON is the embedded universe as a document, to edit into
// a replacement (`tradedeck sim --print-universe`).
func DefaultUniverseJSON() []byte { return append([]byte(nil), defaultUniverse...) }

// UsesDemoSecrets reports whether an account of u signs with a secret of
// the embedded universe's demo accounts, which anyone can read.
func (u *Universe) UsesDemoSecrets() bool {
	def, err := DefaultUniverse()
	if err != nil {
		return true
	}
	for _, a := range u.Accounts {
		for _, d := range def.Accounts {
			if a.APISecret == d.APISecret || a.APIKey == d.APIKey {
				return true
			}
		}
	}
	return false
}
