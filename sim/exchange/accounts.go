package exchange

import (
	"crypto/sha256"
	"encoding/hex"
	"slices"
	"strings"

	"github.com/shopspring/decimal"

	"tradedeck/venue"
)

// Account is a venue account (main or subaccount, or an internal market
// participant). Its identity fields never change after creation; all
// mutable state is behind the exchange's lock.
type Account struct {
	idx      uint32
	appID    string
	name     string
	alias    string
	main     *Account
	subs     []*Account
	keys     []*APIKey
	internal bool
	created  int64

	mode        string
	leverage    int
	futLeverage int
	taker       decimal.Decimal // fee rates in basis points
	maker       decimal.Decimal
	futTaker    decimal.Decimal
	futMaker    decimal.Decimal

	balances  map[string]*balance
	positions map[string]*position
	open      map[int64]*orderState // open orders by id
	orders    []*orderState         // all orders, oldest first (not kept for internal accounts)
	trades    []*Trade
	assets    []AssetRecord
	interest  []InterestRecord
	funding   []FundingFee
	jmarks    journalMarks // what of the histories the journal holds
}

// ApplicationID of the account.
func (a *Account) ApplicationID() string { return a.appID }

// Name is the account name.
func (a *Account) Name() string { return a.name }

// IsMain reports whether a is a main account (not a subaccount).
func (a *Account) IsMain() bool { return a.main == nil }

// Internal reports whether a is a synthetic market participant.
func (a *Account) Internal() bool { return a.internal }

// family returns the main account of a (a itself when main).
func (a *Account) family() *Account {
	if a.main != nil {
		return a.main
	}
	return a
}

type balance struct {
	holding  decimal.Decimal
	frozen   decimal.Decimal
	interest decimal.Decimal // accrued margin interest owed
	updated  int64
}

// APIKey is an access key of an account.
type APIKey struct {
	Key       string
	Secret    string
	Account   *Account
	Revoked   bool
	IPs       []string // allow-list; empty allows every address
	UpdatedMs int64
}

func (e *Exchange) addAccount(spec AccountSpec, main *Account) *Account {
	a := &Account{
		idx: uint32(len(e.accounts)), appID: spec.ApplicationID, name: spec.Name, alias: spec.Alias,
		main: main, created: e.u.CreatedTime,
		mode: spec.AccountMode, leverage: spec.Leverage, futLeverage: spec.FuturesLeverage,
		taker: spec.TakerFeeBps, maker: spec.MakerFeeBps, futTaker: spec.FuturesTakerFeeBps, futMaker: spec.FuturesMakerFeeBps,
		balances: map[string]*balance{}, positions: map[string]*position{}, open: map[int64]*orderState{},
	}
	if a.alias == "" {
		a.alias = a.name
	}
	if a.leverage == 0 {
		a.leverage = 3
	}
	if a.futLeverage == 0 {
		a.futLeverage = 10
	}
	if main != nil {
		main.subs = append(main.subs, a)
	}
	e.accounts = append(e.accounts, a)
	e.byApp[a.appID] = a
	e.byName[a.name] = a
	if spec.APIKey != "" {
		k := &APIKey{Key: spec.APIKey, Secret: spec.APISecret, Account: a, UpdatedMs: e.u.CreatedTime}
		a.keys = append(a.keys, k)
		e.byKey[k.Key] = k
	}
	return a
}

// InternalAccount returns (creating on first use) a synthetic market
// participant: no balances, no risk checks, no history kept; it trades
// through the same PlaceOrder and Cancel as users.
func (e *Exchange) InternalAccount(name string) *Account {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.internalAccount(name)
}

func (e *Exchange) internalAccount(name string) *Account {
	if a, ok := e.byName[name]; ok {
		return a
	}
	sum := sha256.Sum256([]byte("internal|" + name))
	a := e.addAccount(AccountSpec{Name: name, ApplicationID: "internal-" + hex.EncodeToString(sum[:8]), AccountMode: ModeFutures}, nil)
	a.internal = true
	a.taker, a.maker, a.futTaker, a.futMaker = decimal.Zero, decimal.Zero, decimal.Zero, decimal.Zero
	return a
}

// KeyInfo is what authentication needs to know about an api key.
type KeyInfo struct {
	Key     string
	Secret  string
	Account *Account
	Revoked bool
	IPs     []string
}

// LookupKey finds an api key.
func (e *Exchange) LookupKey(key string) (KeyInfo, bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	k, ok := e.byKey[key]
	if !ok {
		return KeyInfo{}, false
	}
	return KeyInfo{Key: k.Key, Secret: k.Secret, Account: k.Account, Revoked: k.Revoked, IPs: slices.Clone(k.IPs)}, true
}

// RevokeKey makes a key unusable (as a client's revocation request would).
func (e *Exchange) RevokeKey(key string) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	k, ok := e.byKey[key]
	if ok {
		k.Revoked = true
		k.UpdatedMs = e.nowMs()
		e.userChanged()
	}
	return ok
}

// SetIPRestriction ties a key to addresses (none: any address).
func (e *Exchange) SetIPRestriction(key string, ips []string) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	k, ok := e.byKey[key]
	if ok {
		k.IPs = slices.Clone(ips)
		k.UpdatedMs = e.nowMs()
		e.userChanged()
	}
	return ok
}

// AddAPIKey issues another key for an account.
func (e *Exchange) AddAPIKey(a *Account, key, secret string) *Error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if _, dup := e.byKey[key]; dup {
		return errf(venue.CodeDuplicateRequest, "api key exists")
	}
	k := &APIKey{Key: key, Secret: secret, Account: a, UpdatedMs: e.nowMs()}
	a.keys = append(a.keys, k)
	e.byKey[key] = k
	return nil
}

// AccountByName finds an account by name.
func (e *Exchange) AccountByName(name string) (*Account, bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	a, ok := e.byName[name]
	return a, ok
}

// AccountByApplicationID finds an account by application id.
func (e *Exchange) AccountByApplicationID(id string) (*Account, bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	a, ok := e.byApp[id]
	return a, ok
}

// Credentials of the first key of an account (the demo accounts' keys).
func (e *Exchange) Credentials(a *Account) venue.Credentials {
	e.mu.Lock()
	defer e.mu.Unlock()
	if len(a.keys) == 0 {
		return venue.Credentials{ApplicationID: a.appID}
	}
	return venue.Credentials{APIKey: a.keys[0].Key, APISecret: a.keys[0].Secret, ApplicationID: a.appID}
}

// AccountInfo is GET /v1/client/info.
type AccountInfo struct {
	ApplicationID       string
	Account             string
	Alias               string
	Mode                string
	Leverage            int
	FuturesLeverage     int
	TakerFeeRate        decimal.Decimal // basis points, as the real venue reports them
	MakerFeeRate        decimal.Decimal
	FuturesTakerFeeRate decimal.Decimal
	FuturesMakerFeeRate decimal.Decimal
	InterestRate        decimal.Decimal // basis points per day of the quote token
	MarginRate          decimal.Decimal
}

// Info returns an account's information.
func (e *Exchange) Info(a *Account) AccountInfo {
	e.mu.Lock()
	defer e.mu.Unlock()
	return AccountInfo{
		ApplicationID: a.appID, Account: a.name, Alias: a.alias, Mode: a.mode,
		Leverage: a.leverage, FuturesLeverage: a.futLeverage,
		TakerFeeRate: a.taker, MakerFeeRate: a.maker, FuturesTakerFeeRate: a.futTaker, FuturesMakerFeeRate: a.futMaker,
		InterestRate: e.quoteHourlyRate().Mul(decimal.NewFromInt(24 * 10000)),
		MarginRate:   e.marginRate(a),
	}
}

func (e *Exchange) quoteHourlyRate() decimal.Decimal {
	if t, ok := e.tokens["USDT"]; ok {
		return t.HourlyRate
	}
	return decimal.Zero
}

// SetAccountMode is POST /v1/client/account_mode. Leaving FUTURES mode
// with open perpetual positions or orders is refused (-1101), as is
// leaving margin with borrowed tokens.
func (e *Exchange) SetAccountMode(a *Account, mode string) *Error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if _, ok := leverageChoices[mode]; !ok {
		return errf(venue.CodeInvalidParam, "account_mode must be PURE_SPOT, MARGIN or FUTURES")
	}
	if mode == a.mode {
		return nil
	}
	if a.mode == ModeFutures {
		for sym, p := range a.positions {
			if !p.qty.IsZero() {
				return errf(venue.CodeRiskTooHigh, "close the %s position before leaving FUTURES mode", sym)
			}
		}
		for _, o := range a.open {
			if o.m.perp() {
				return errf(venue.CodeRiskTooHigh, "cancel open %s orders before leaving FUTURES mode", o.m.spec.Symbol)
			}
		}
	}
	if mode == ModePureSpot {
		for tok, b := range a.balances {
			if b.holding.IsNegative() || b.interest.IsPositive() {
				return errf(venue.CodeRiskTooHigh, "repay the %s loan before switching to PURE_SPOT", tok)
			}
		}
	}
	a.mode = mode
	e.userChanged()
	return nil
}

// SetLeverage is POST /v1/client/leverage: margin leverage in MARGIN mode,
// futures leverage in FUTURES mode.
func (e *Exchange) SetLeverage(a *Account, lev int) *Error {
	e.mu.Lock()
	defer e.mu.Unlock()
	choices := leverageChoices[a.mode]
	if len(choices) == 0 {
		return errf(venue.CodeInvalidParam, "leverage cannot be set in %s mode", a.mode)
	}
	if !slices.Contains(choices, lev) {
		return errf(venue.CodeInvalidParam, "leverage for %s mode must be one of %s", a.mode, joinInts(choices))
	}
	old := a.leverage
	oldFut := a.futLeverage
	if a.mode == ModeMargin {
		a.leverage = lev
	} else {
		a.futLeverage = lev
	}
	if !e.riskOK(a, decimal.Zero, decimal.Zero) {
		a.leverage, a.futLeverage = old, oldFut
		return errf(venue.CodeRiskTooHigh, "margin too low for leverage %d", lev)
	}
	e.userChanged()
	return nil
}

func joinInts(v []int) string {
	s := make([]string, len(v))
	for i, n := range v {
		s[i] = decimal.NewFromInt(int64(n)).String()
	}
	return strings.Join(s, ", ")
}

func (a *Account) bal(token string) *balance {
	b, ok := a.balances[token]
	if !ok {
		b = &balance{}
		a.balances[token] = b
	}
	return b
}
