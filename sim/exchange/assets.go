package exchange

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"

	"github.com/shopspring/decimal"

	"tradedeck/venue"
)

// Holding is one token balance of an account (holding v2 row).
type Holding struct {
	Token              string
	Holding            decimal.Decimal
	Frozen             decimal.Decimal
	Interest           decimal.Decimal
	OutstandingHolding decimal.Decimal // holding a pending settlement would add: open BUY quantities minus SELLs
	PendingExposure    decimal.Decimal
	UpdatedMs          int64
}

// Holdings returns the account's balances by token; all=true adds every
// listed token even when empty.
func (e *Exchange) Holdings(a *Account, all bool) []Holding {
	e.mu.Lock()
	defer e.mu.Unlock()
	pending := map[string]decimal.Decimal{}
	for _, o := range a.open {
		if o.m.perp() {
			continue
		}
		r := o.m.qty(o.remainingFx())
		if o.Side == Sell {
			r = r.Neg()
		}
		pending[o.m.base] = pending[o.m.base].Add(r)
	}
	toks := map[string]bool{}
	for t := range a.balances {
		toks[t] = true
	}
	if all {
		for t := range e.tokens {
			toks[t] = true
		}
	}
	var out []Holding
	for _, t := range sortedKeys(toks) {
		b := a.balances[t]
		if b == nil {
			b = &balance{updated: e.u.CreatedTime}
		}
		if !all && b.holding.IsZero() && b.frozen.IsZero() && b.interest.IsZero() {
			continue
		}
		out = append(out, Holding{Token: t, Holding: b.holding, Frozen: b.frozen, Interest: b.interest,
			OutstandingHolding: decimal.Zero, PendingExposure: pending[t], UpdatedMs: b.updated})
	}
	return out
}

// Balance returns one token balance (zero when never held).
func (e *Exchange) Balance(a *Account, token string) Holding {
	e.mu.Lock()
	defer e.mu.Unlock()
	h := Holding{Token: token}
	if b, ok := a.balances[token]; ok {
		h.Holding, h.Frozen, h.Interest, h.UpdatedMs = b.holding, b.frozen, b.interest, b.updated
	}
	return h
}

// Tokens lists the token specs in universe order.
func (e *Exchange) Tokens() []TokenSpec {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]TokenSpec(nil), e.u.Tokens...)
}

// CreatedTime is when the universe's records were created (ms).
func (e *Exchange) CreatedTime() int64 { return e.u.CreatedTime }

// AssetRecord is one asset history row (deposits, withdrawals).
type AssetRecord struct {
	ID            string
	ExternalID    string
	ApplicationID string
	Token         string // network-qualified token
	BalanceToken  string
	TargetAddress string
	SourceAddress string
	Extra         string
	Type          string // BALANCE or COLLATERAL
	Side          string // DEPOSIT or WITHDRAW
	Amount        decimal.Decimal
	TxID          string
	FeeToken      string // withdrawals only
	FeeAmount     decimal.Decimal
	Status        string
	CreatedMs     int64
	UpdatedMs     int64
}

// AssetFilter selects asset history rows; empty fields match everything.
type AssetFilter struct {
	Token, BalanceToken, Type, Side, Status string
	Start, End                              int64
}

// AssetHistory returns matching rows, newest first.
func (e *Exchange) AssetHistory(a *Account, f AssetFilter) []AssetRecord {
	e.mu.Lock()
	defer e.mu.Unlock()
	var out []AssetRecord
	for i := len(a.assets) - 1; i >= 0; i-- {
		r := a.assets[i]
		if (f.Token == "" || r.Token == f.Token) && (f.BalanceToken == "" || r.BalanceToken == f.BalanceToken) &&
			(f.Type == "" || r.Type == f.Type) && (f.Side == "" || r.Side == f.Side) &&
			(f.Status == "" || r.Status == f.Status) && inRange(r.CreatedMs, f.Start, f.End) {
			out = append(out, r)
		}
	}
	return out
}

// DepositAddress returns the account's (stable, made-up) address for a
// network-qualified token.
func (e *Exchange) DepositAddress(a *Account, token string) (address, extra string, err *Error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	n, ok := e.networks[token]
	if !ok {
		return "", "", errf(venue.CodeInvalidParam, "token %s is not in the token list", token)
	}
	return depositAddress(a, n)
}

func depositAddress(a *Account, n networkRef) (string, string, *Error) {
	sum := sha256.Sum256([]byte(a.appID + "|" + n.spec.Token))
	h := hex.EncodeToString(sum[:])
	switch n.spec.Protocol {
	case "BTC":
		return "bc1q" + h[:38], "", nil
	case "TRC20":
		return "T" + strings.ToUpper(h[:33]), "", nil
	case "SOL":
		return strings.ToUpper(h[:44]), "", nil
	case "XRP":
		return "r" + h[:33], decimal.NewFromInt(int64(sum[0])<<16 | int64(sum[1])<<8 | int64(sum[2])).String(), nil
	case "DOGE":
		return "D" + h[:33], "", nil
	}
	return "0x" + h[:40], "", nil
}

// Deposit credits a completed demo deposit of a network-qualified (or
// plain) token: it shows in the asset history and the balance at once.
func (e *Exchange) Deposit(a *Account, token string, amount decimal.Decimal) (AssetRecord, *Error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if !amount.IsPositive() {
		return AssetRecord{}, errf(venue.CodeInvalidParam, "amount must be positive")
	}
	if _, ok := e.networks[token]; !ok {
		return AssetRecord{}, errf(venue.CodeInvalidParam, "token %s is not in the token list", token)
	}
	return e.creditDeposit(a, token, amount, e.nowMs()), nil
}

func (e *Exchange) creditDeposit(a *Account, token string, amount decimal.Decimal, now int64) AssetRecord {
	n, ok := e.networks[token]
	if !ok {
		n = networkRef{spec: NetworkSpec{Protocol: token, Token: token}, token: token}
		for _, t := range e.u.Tokens {
			if t.Token == token && len(t.Networks) > 0 {
				n = networkRef{spec: t.Networks[0], token: token}
			}
		}
	}
	addr, extra, _ := depositAddress(a, n)
	e.nextAssetID++
	sum := sha256.Sum256([]byte(a.appID + "|deposit|" + decimal.NewFromInt(e.nextAssetID).String()))
	rec := AssetRecord{
		ID: hex.EncodeToString(sum[:12]), ExternalID: hex.EncodeToString(sum[12:20]), ApplicationID: a.appID,
		Token: n.spec.Token, BalanceToken: n.token, TargetAddress: addr, SourceAddress: "0x" + hex.EncodeToString(sum[:20]),
		Extra: extra, Type: "BALANCE", Side: "DEPOSIT", Amount: amount, TxID: "0x" + hex.EncodeToString(sum[:]),
		Status: "COMPLETED", CreatedMs: now, UpdatedMs: now,
	}
	a.assets = append(a.assets, rec)
	b := a.bal(n.token)
	b.holding = b.holding.Add(amount)
	b.updated = now
	e.publish(BalanceEvent{ApplicationID: a.appID, Token: n.token, Timestamp: now})
	e.userChanged()
	return rec
}

// TokenNetworks lists every network of every token.
func (e *Exchange) TokenNetworks() []NetworkSpec {
	e.mu.Lock()
	defer e.mu.Unlock()
	var out []NetworkSpec
	for _, t := range e.u.Tokens {
		out = append(out, t.Networks...)
	}
	return out
}

// NetworkToken tells the balance token of a network-qualified token.
func (e *Exchange) NetworkToken(token string) (string, bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	n, ok := e.networks[token]
	return n.token, ok
}

// InterestRecord is one interest history row.
type InterestRecord struct {
	Token         string
	ApplicationID string
	Side          string // LOAN (accrued), REPAY, AUTO_REPAY
	Interest      decimal.Decimal
	CreatedMs     int64
}

// accrueInterest charges an hour of interest on every borrowed token.
func (e *Exchange) accrueInterest(ts int64) {
	for _, a := range e.accounts {
		if a.internal {
			continue
		}
		for _, tok := range sortedKeys(a.balances) {
			b := a.balances[tok]
			spec, ok := e.tokens[tok]
			if !ok || !b.holding.IsNegative() {
				continue
			}
			charge := b.holding.Neg().Mul(spec.HourlyRate)
			b.interest = b.interest.Add(charge)
			b.updated = ts
			a.interest = append(a.interest, InterestRecord{Token: tok, ApplicationID: a.appID, Side: "LOAN", Interest: charge, CreatedMs: ts})
			e.publish(BalanceEvent{ApplicationID: a.appID, Token: tok, Timestamp: ts})
		}
	}
	e.userChanged()
}

// InterestHistory returns matching interest rows, newest first.
func (e *Exchange) InterestHistory(a *Account, token, side string, start, end int64) []InterestRecord {
	e.mu.Lock()
	defer e.mu.Unlock()
	var out []InterestRecord
	for i := len(a.interest) - 1; i >= 0; i-- {
		r := a.interest[i]
		if (token == "" || r.Token == token) && (side == "" || r.Side == side) && inRange(r.CreatedMs, start, end) {
			out = append(out, r)
		}
	}
	return out
}

// Repay pays accrued interest of a token from its holding. Paying more
// than is owed is refused (-1008).
func (e *Exchange) Repay(a *Account, token string, amount decimal.Decimal) *Error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if _, ok := e.tokens[token]; !ok {
		return errf(venue.CodeInvalidParam, "token %s is not listed", token)
	}
	if !amount.IsPositive() {
		return errf(venue.CodeInvalidParam, "amount must be positive")
	}
	b := a.bal(token)
	if amount.GreaterThan(b.interest) {
		return errf(venue.CodeQuantityTooHigh, "amount %s exceeds the %s interest owed (%s)", amount, token, b.interest)
	}
	now := e.nowMs()
	b.interest = b.interest.Sub(amount)
	b.holding = b.holding.Sub(amount)
	b.updated = now
	a.interest = append(a.interest, InterestRecord{Token: token, ApplicationID: a.appID, Side: "REPAY", Interest: amount, CreatedMs: now})
	e.publish(BalanceEvent{ApplicationID: a.appID, Token: token, Timestamp: now})
	e.userChanged()
	return nil
}

// InterestRate is a token's margin interest rate.
type InterestRate struct {
	Token      string
	HourlyRate decimal.Decimal // fraction per hour
	EstMs      int64           // next hour
}

// InterestRates lists every token's rate.
func (e *Exchange) InterestRates() []InterestRate {
	e.mu.Lock()
	defer e.mu.Unlock()
	var out []InterestRate
	for _, t := range e.u.Tokens {
		out = append(out, InterestRate{Token: t.Token, HourlyRate: t.HourlyRate, EstMs: e.interestNext})
	}
	return out
}

// Subaccounts of a's family: the subaccounts of its main account.
func (e *Exchange) Subaccounts(a *Account) []*Account {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]*Account(nil), a.family().subs...)
}

// CreatedMs of an account.
func (a *Account) CreatedMs() int64 { return a.created }

// Family lists the main account first, then its subaccounts.
func (e *Exchange) Family(a *Account) []*Account {
	e.mu.Lock()
	defer e.mu.Unlock()
	main := a.family()
	return append([]*Account{main}, main.subs...)
}

// USDTValue is the account's holdings valued in USDT.
func (e *Exchange) USDTValue(a *Account) decimal.Decimal {
	e.mu.Lock()
	defer e.mu.Unlock()
	v := decimal.Zero
	for tok, b := range a.balances {
		v = v.Add(b.holding.Mul(e.tokenPrice(tok)))
	}
	return v
}

// SameFamily reports whether b belongs to a's main account family.
func (a *Account) SameFamily(b *Account) bool { return a.family() == b.family() }

// IPRestriction is one key's allow-list.
type IPRestriction struct {
	APIKey    string
	IPs       []string
	Restrict  bool
	UpdatedMs int64
}

// IPRestrictions lists the keys of an account.
func (e *Exchange) IPRestrictions(a *Account, apiKey string) []IPRestriction {
	e.mu.Lock()
	defer e.mu.Unlock()
	var out []IPRestriction
	for _, k := range a.keys {
		if apiKey != "" && k.Key != apiKey {
			continue
		}
		out = append(out, IPRestriction{APIKey: k.Key, IPs: append([]string(nil), k.IPs...), Restrict: len(k.IPs) > 0, UpdatedMs: k.UpdatedMs})
	}
	return out
}

// Transfer is a main/sub transfer.
type Transfer struct {
	ID        int64
	Token     string
	Amount    decimal.Decimal
	Status    string
	From, To  string // application ids
	FromUser  string
	ToUser    string
	CreatedMs int64
}

// TransferAsset moves a token between two accounts of the same family. A
// subaccount key may only move its own funds.
func (e *Exchange) TransferAsset(caller *Account, token string, amount decimal.Decimal, fromApp, toApp string) (int64, *Error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if _, ok := e.tokens[token]; !ok {
		return 0, errf(venue.CodeInvalidParam, "token %s is not listed", token)
	}
	if !amount.IsPositive() {
		return 0, errf(venue.CodeInvalidParam, "amount must be positive")
	}
	from, ok1 := e.byApp[fromApp]
	to, ok2 := e.byApp[toApp]
	if !ok1 || !ok2 || !caller.SameFamily(from) || !caller.SameFamily(to) || from.internal || to.internal {
		return 0, errf(venue.CodeResourceNotFound, "application id not found in this account family")
	}
	if from == to {
		return 0, errf(venue.CodeInvalidParam, "from_application_id and to_application_id are the same")
	}
	if !caller.IsMain() && from != caller {
		return 0, errf(venue.CodeUnauthorized, "a subaccount may only transfer its own assets")
	}
	fb := from.bal(token)
	avail := fb.holding.Sub(fb.frozen)
	if amount.GreaterThan(avail) {
		return 0, errf(venue.CodeQuantityTooHigh, "amount %s exceeds the available %s %s", amount, avail, token)
	}
	now := e.nowMs()
	tb := to.bal(token)
	fb.holding = fb.holding.Sub(amount)
	tb.holding = tb.holding.Add(amount)
	fb.updated, tb.updated = now, now
	e.nextXferID++
	t := Transfer{ID: e.nextXferID, Token: token, Amount: amount, Status: "COMPLETED", From: from.appID, To: to.appID,
		FromUser: from.name, ToUser: to.name, CreatedMs: now}
	e.transfers = append(e.transfers, t)
	e.publish(BalanceEvent{ApplicationID: from.appID, Token: token, Timestamp: now})
	e.publish(BalanceEvent{ApplicationID: to.appID, Token: token, Timestamp: now})
	e.userChanged()
	return t.ID, nil
}

// Transfers lists transfers touching a's family (a subaccount sees only
// its own), newest first.
func (e *Exchange) Transfers(a *Account, start, end int64) []Transfer {
	e.mu.Lock()
	defer e.mu.Unlock()
	var out []Transfer
	for i := len(e.transfers) - 1; i >= 0; i-- {
		t := e.transfers[i]
		from := e.byApp[t.From]
		mine := t.From == a.appID || t.To == a.appID || (a.IsMain() && from != nil && from.SameFamily(a))
		if mine && inRange(t.CreatedMs, start, end) {
			out = append(out, t)
		}
	}
	return out
}

// AssetDetail is GET /v1/sub_account/asset_detail: every balance of one
// account of the family.
func (e *Exchange) AssetDetail(caller *Account, appID string) (*Account, []Holding, *Error) {
	e.mu.Lock()
	target, ok := e.byApp[appID]
	e.mu.Unlock()
	if !ok || !caller.SameFamily(target) || target.internal {
		return nil, nil, errf(venue.CodeResourceNotFound, "application id %s not found in this account family", appID)
	}
	if !caller.IsMain() && target != caller {
		return nil, nil, errf(venue.CodeUnauthorized, "a subaccount may only read its own assets")
	}
	return target, e.Holdings(target, false), nil
}

// Withdraw sends amount of a network-qualified token to address: the
// amount leaves the balance and the network's withdrawal fee is charged on
// top, recorded as a completed WITHDRAW row. Refused while the account
// owes anything (-1009: negative holdings or interest), below the
// network's minimum (-1005), or beyond the available balance (-1008).
func (e *Exchange) Withdraw(a *Account, token, address, extra string, amount decimal.Decimal) (AssetRecord, *Error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	n, ok := e.networks[token]
	switch {
	case !ok:
		return AssetRecord{}, errf(venue.CodeInvalidParam, "token %s is not in the token list", token)
	case address == "" || len(address) > 128:
		return AssetRecord{}, errf(venue.CodeInvalidParam, "address is required")
	case !amount.IsPositive() || amount.LessThan(n.spec.MinimumWithdrawal):
		return AssetRecord{}, errf(venue.CodeInvalidParam, "amount must be at least the minimum withdrawal %s", n.spec.MinimumWithdrawal)
	}
	for tok, b := range a.balances {
		if b.holding.IsNegative() || b.interest.IsPositive() {
			return AssetRecord{}, errf(venue.CodeCanNotWithdrawal, "repay the %s debt before withdrawing", tok)
		}
	}
	b := a.bal(n.token)
	total := amount.Add(n.spec.WithdrawalFee)
	if avail := b.holding.Sub(b.frozen); total.GreaterThan(avail) {
		return AssetRecord{}, errf(venue.CodeQuantityTooHigh, "amount %s plus fee %s exceeds the available %s %s", amount, n.spec.WithdrawalFee, avail, n.token)
	}
	now := e.nowMs()
	e.nextAssetID++
	src, _, _ := depositAddress(a, n)
	sum := sha256.Sum256([]byte(a.appID + "|withdraw|" + decimal.NewFromInt(e.nextAssetID).String()))
	rec := AssetRecord{
		ID: hex.EncodeToString(sum[:12]), ExternalID: hex.EncodeToString(sum[12:20]), ApplicationID: a.appID,
		Token: n.spec.Token, BalanceToken: n.token, TargetAddress: address, SourceAddress: src, Extra: extra,
		Type: "BALANCE", Side: "WITHDRAW", Amount: amount, TxID: "0x" + hex.EncodeToString(sum[:]),
		FeeToken: n.token, FeeAmount: n.spec.WithdrawalFee, Status: "COMPLETED", CreatedMs: now, UpdatedMs: now,
	}
	a.assets = append(a.assets, rec)
	b.holding = b.holding.Sub(total)
	b.updated = now
	e.publish(BalanceEvent{ApplicationID: a.appID, Token: n.token, Timestamp: now})
	e.userChanged()
	return rec, nil
}
