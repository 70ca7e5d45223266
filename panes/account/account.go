// Package account is the account screen: account information (mode,
// leverage, fee rates, margin rate) with mode and leverage changes, token
// configuration, margin interest rates, interest history and repayment,
// funding fee history, asset history with its filters, deposit addresses,
// and for a main account its subaccounts, their assets and detail,
// transfers with their history, and IP restrictions.
//
// It is a full-screen dialog on the dialog stack. Every venue call is a
// tea.Cmd; results come back as messages tagged with the tab and a
// generation number, so a slow reply for an old page never overwrites a
// newer one. Paged lists page through the reply's meta.
package account

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/shopspring/decimal"

	"tradedeck/panes/common"
	"tradedeck/panes/confirm"
	"tradedeck/trade"
	"tradedeck/venue"
)

// API is the part of the venue client the screen uses (*venue.Client).
type API interface {
	AccountInfo(ctx context.Context) (venue.AccountInfo, error)
	SetAccountMode(ctx context.Context, mode venue.AccountMode) error
	SetLeverage(ctx context.Context, r venue.LeverageRequest) error
	TokenConfig(ctx context.Context) ([]venue.TokenConfig, error)
	Tokens(ctx context.Context) ([]venue.Token, error)
	InterestRates(ctx context.Context) ([]venue.MarginInterestRate, error)
	InterestHistory(ctx context.Context, f venue.InterestHistoryFilter) ([]venue.InterestHistory, venue.Meta, error)
	RepayInterest(ctx context.Context, token string, amount decimal.Decimal) error
	FundingFeeHistory(ctx context.Context, f venue.FundingFeeFilter) ([]venue.FundingFee, venue.Meta, error)
	AssetHistory(ctx context.Context, f venue.AssetHistoryFilter) ([]venue.AssetHistory, venue.Meta, error)
	DepositAddress(ctx context.Context, token string) (venue.DepositAddress, error)
	SubAccounts(ctx context.Context) ([]venue.SubAccount, error)
	SubAccountAssets(ctx context.Context) ([]venue.SubAccountAssets, error)
	SubAccountAssetDetail(ctx context.Context, applicationID string) (venue.SubAccountAssetDetail, error)
	IPRestrictions(ctx context.Context, f venue.IPRestrictionFilter) ([]venue.IPRestriction, venue.Meta, error)
	TransferHistory(ctx context.Context, f venue.TransferFilter) ([]venue.Transfer, venue.Meta, error)
	Transfer(ctx context.Context, r venue.TransferRequest) (int64, error)
}

var _ API = (*venue.Client)(nil)

// Options configure the screen.
type Options struct {
	API         API
	ReadOnly    bool // no mode/leverage changes, repay or transfers
	ReadOnlyWhy string
	Grace       time.Duration // of the confirmations
	Timeout     time.Duration // per call; 0: 10 s
}

// Tab identifies a section of the screen.
type Tab int

const (
	TabInfo Tab = iota
	TabTokens
	TabInterest
	TabInterestHistory
	TabFunding
	TabAssets
	TabDeposit
	TabSubaccounts
	TabSubAssets
	TabTransfers
	TabIP
	nTabs
)

var tabNames = [nTabs]string{"Info", "Tokens", "Interest", "Interest hist.", "Funding fees", "Asset history",
	"Deposit", "Subaccounts", "Sub assets", "Transfers", "IP restrictions"}

func (t Tab) String() string { return tabNames[t] }

// mainOnly tabs need a main account.
func (t Tab) mainOnly() bool { return t == TabSubaccounts || t == TabSubAssets }

// section is the state of one tab.
type section struct {
	header  []string
	rows    [][]string
	keys    []string // per row: the token / application id actions use
	cursor  int
	page    int
	meta    venue.Meta
	paged   bool
	hasNext bool
	loading bool
	loaded  bool
	gen     uint64
	err     string
	filters []Field // current filter values (Value) of filterable tabs
	detail  []string
}

// Model is the account screen (a common.Dialog).
type Model struct {
	common.Common
	opts   Options
	tab    Tab
	secs   [nTabs]*section
	info   *venue.AccountInfo
	isMain int // 0 unknown, 1 main, -1 subaccount
	subs   []venue.SubAccount
	status string
	gen    uint64
}

// Messages of the screen's commands.
type (
	loadedMsg struct {
		tab     Tab
		gen     uint64
		header  []string
		rows    [][]string
		keys    []string
		meta    venue.Meta
		paged   bool
		info    *venue.AccountInfo
		subs    []venue.SubAccount
		subsErr bool
		err     error
	}
	detailMsg struct {
		tab   Tab
		lines []string
		err   error
	}
	// ActionMsg is the result of a change (mode, leverage, repay, transfer).
	ActionMsg struct {
		What   string
		Err    error
		Reload []Tab
	}
)

// New opens the account screen and starts loading the info tab.
func New(c common.Common, o Options) *Model {
	if o.Timeout == 0 {
		o.Timeout = 10 * time.Second
	}
	if o.ReadOnlyWhy == "" {
		o.ReadOnlyWhy = "read-only mode"
	}
	m := &Model{Common: c, opts: o}
	for i := range m.secs {
		m.secs[i] = &section{page: 1}
	}
	m.secs[TabInterestHistory].filters = []Field{
		{Label: "token", Hint: "all tokens"},
		{Label: "side", Choices: []string{"", "LOAN", "REPAY", "AUTO_REPAY"}},
		{Label: "from", Hint: "YYYY-MM-DD", Date: true}, {Label: "to", Hint: "YYYY-MM-DD", Date: true},
	}
	m.secs[TabFunding].filters = []Field{
		{Label: "symbol", Hint: "all symbols"}, {Label: "from", Hint: "YYYY-MM-DD", Date: true}, {Label: "to", Hint: "YYYY-MM-DD", Date: true},
	}
	m.secs[TabAssets].filters = []Field{
		{Label: "token", Hint: "all tokens"}, {Label: "balance token", Hint: "all"},
		{Label: "type", Choices: []string{"", "BALANCE", "COLLATERAL"}},
		{Label: "side", Choices: []string{"", "DEPOSIT", "WITHDRAW"}},
		{Label: "status", Choices: []string{"", "NEW", "CONFIRMING", "PROCESSING", "COMPLETED", "CANCELED"}},
		{Label: "from", Hint: "YYYY-MM-DD", Date: true}, {Label: "to", Hint: "YYYY-MM-DD", Date: true},
	}
	m.secs[TabIP].filters = []Field{{Label: "application id", Hint: "all"}, {Label: "api key", Hint: "all"}}
	m.secs[TabTransfers].filters = []Field{{Label: "from", Hint: "YYYY-MM-DD", Date: true}, {Label: "to", Hint: "YYYY-MM-DD", Date: true}}
	return m
}

// Init loads the info tab and learns whether the account is a main one.
func (m *Model) Init() tea.Cmd { return tea.Batch(m.load(TabInfo), m.load(TabSubaccounts)) }

// Tab is the tab shown.
func (m *Model) Tab() Tab { return m.tab }

// Rows are the rows of a tab (for tests and the e2e harness).
func (m *Model) Rows(t Tab) [][]string { return m.secs[t].rows }

// Err is the load error of a tab.
func (m *Model) Err(t Tab) string { return m.secs[t].err }

// Detail is the detail lines under a tab (deposit address, sub detail).
func (m *Model) Detail(t Tab) []string { return m.secs[t].detail }

// Page is the page shown on a tab.
func (m *Model) Page(t Tab) int { return m.secs[t].page }

// IsMain reports whether the account is known to be a main account.
func (m *Model) IsMain() bool { return m.isMain > 0 }

// Info is the account information, once loaded.
func (m *Model) Info() *venue.AccountInfo { return m.info }

// SetSize records the screen size.
func (m *Model) SetSize(w, h int) { m.Common.SetSize(w, h) }

// Select shows a tab and loads it if needed.
func (m *Model) Select(t Tab) tea.Cmd {
	if t.mainOnly() && m.isMain < 0 {
		m.status = t.String() + " needs a main account"
		return nil
	}
	m.tab = t
	if s := m.secs[t]; !s.loaded && !s.loading {
		return m.load(t)
	}
	return nil
}

func (m *Model) ctx() (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.Background(), m.opts.Timeout)
}

// load fetches the current page of a tab.
func (m *Model) load(t Tab) tea.Cmd {
	s := m.secs[t]
	m.gen++
	s.gen, s.loading = m.gen, true
	gen, page, api := s.gen, s.page, m.opts.API
	filters := values(s.filters)
	return func() tea.Msg {
		ctx, cancel := m.ctx()
		defer cancel()
		msg := fetch(ctx, api, t, page, filters)
		msg.tab, msg.gen = t, gen
		return msg
	}
}

func values(fs []Field) []string {
	out := make([]string, len(fs))
	for i, f := range fs {
		out[i] = f.Value
	}
	return out
}

// day parses an optional YYYY-MM-DD filter (UTC); end dates are inclusive.
func day(s string, end bool) (time.Time, error) {
	if s == "" {
		return time.Time{}, nil
	}
	t, err := time.Parse("2006-01-02", s)
	if err != nil {
		return time.Time{}, fmt.Errorf("date %q is not YYYY-MM-DD", s)
	}
	if end {
		t = t.Add(24*time.Hour - time.Millisecond)
	}
	return t, nil
}

func dates(from, to string) (time.Time, time.Time, error) {
	a, err := day(from, false)
	if err != nil {
		return a, a, err
	}
	b, err := day(to, true)
	return a, b, err
}

func ts(t venue.SecTime) string {
	if t.IsZero() {
		return "-"
	}
	return t.UTC().Format("2006-01-02 15:04:05")
}

// fetch runs in a command goroutine: one venue call, rendered into rows.
func fetch(ctx context.Context, api API, t Tab, page int, f []string) loadedMsg {
	var msg loadedMsg
	switch t {
	case TabInfo:
		info, err := api.AccountInfo(ctx)
		msg.err = err
		if err == nil {
			a := info.Application
			msg.info = &info
			msg.header = []string{"field", "value"}
			msg.rows = [][]string{
				{"account", a.Account}, {"alias", a.Alias}, {"application id", a.ApplicationID},
				{"account mode", string(a.AccountMode)},
				{"leverage (margin)", a.Leverage.String()}, {"leverage (futures)", a.FuturesLeverage.String()},
				{"taker fee rate", a.TakerFeeRate.String() + " bps"}, {"maker fee rate", a.MakerFeeRate.String() + " bps"},
				{"futures taker fee rate", a.FuturesTakerFeeRate.String() + " bps"},
				{"futures maker fee rate", a.FuturesMakerFeeRate.String() + " bps"},
				{"interest rate", a.InterestRate.String()}, {"margin rate", info.MarginRate.String()},
				{"two-factor (otpauth)", fmt.Sprint(bool(a.OTPAuth))},
			}
		}
	case TabTokens:
		rows, err := api.TokenConfig(ctx)
		msg.err = err
		msg.header = []string{"token", "collateral ratio", "margin factor", "futures margin factor", "collateral", "can collateral", "can short", "stable"}
		for _, r := range rows {
			msg.rows = append(msg.rows, []string{r.Token, r.CollateralRatio.String(), r.MarginFactor.String(),
				r.FuturesMarginFactor.String(), yes(bool(r.Collateral)), yes(bool(r.CanCollateral)), yes(bool(r.CanShort)), yes(bool(r.Stable))})
			msg.keys = append(msg.keys, r.Token)
		}
	case TabInterest:
		rows, err := api.InterestRates(ctx)
		msg.err = err
		msg.header = []string{"token", "hourly now", "hourly est.", "annual now", "annual est.", "est. time"}
		for _, r := range rows {
			msg.rows = append(msg.rows, []string{r.Token, r.CurrentHourlyBaseRate.String(), r.EstHourlyBaseRate.String(),
				r.CurrentAnnualBaseRate.String(), r.EstAnnualBaseRate.String(), ts(r.EstTime)})
			msg.keys = append(msg.keys, r.Token)
		}
	case TabInterestHistory:
		from, to, err := dates(f[2], f[3])
		if err != nil {
			msg.err = err
			break
		}
		rows, meta, err := api.InterestHistory(ctx, venue.InterestHistoryFilter{Token: f[0], Side: f[1], Start: from, End: to, Page: page})
		msg.err, msg.meta, msg.paged = err, meta, true
		msg.header = []string{"time", "token", "side", "interest"}
		for _, r := range rows {
			msg.rows = append(msg.rows, []string{ts(r.CreatedTime), r.Token, r.Side, r.Interest.String()})
			msg.keys = append(msg.keys, r.Token)
		}
	case TabFunding:
		from, to, err := dates(f[1], f[2])
		if err != nil {
			msg.err = err
			break
		}
		rows, meta, err := api.FundingFeeHistory(ctx, venue.FundingFeeFilter{Symbol: strings.ToUpper(f[0]), Start: from, End: to, Page: page})
		msg.err, msg.meta, msg.paged = err, meta, true
		msg.header = []string{"time", "symbol", "funding rate", "mark price", "funding fee", "type", "status"}
		for _, r := range rows {
			msg.rows = append(msg.rows, []string{ts(r.CreatedTime), r.Symbol, r.FundingRate.String(), r.MarkPrice.String(),
				r.FundingFee.String(), r.PaymentType, r.Status})
			msg.keys = append(msg.keys, r.Symbol)
		}
	case TabAssets:
		from, to, err := dates(f[5], f[6])
		if err != nil {
			msg.err = err
			break
		}
		rows, meta, err := api.AssetHistory(ctx, venue.AssetHistoryFilter{Token: f[0], BalanceToken: f[1], Type: f[2],
			TokenSide: f[3], Status: f[4], Start: from, End: to, Page: page})
		msg.err, msg.meta, msg.paged = err, meta, true
		msg.header = []string{"time", "token", "side", "type", "amount", "status", "fee", "tx id", "address"}
		for _, r := range rows {
			fee := "-"
			if r.FeeAmount.Valid {
				fee = r.FeeAmount.Decimal.String() + " " + r.FeeToken
			}
			addr := r.TargetAddress
			if r.TokenSide == "DEPOSIT" {
				addr = r.SourceAddress
			}
			msg.rows = append(msg.rows, []string{ts(r.CreatedTime), r.Token, r.TokenSide, r.Type, r.Amount.String(), r.Status, fee, r.TxID, addr})
			msg.keys = append(msg.keys, r.Token)
		}
	case TabDeposit:
		rows, err := api.Tokens(ctx)
		msg.err = err
		msg.header = []string{"token", "balance token", "name", "decimals"}
		for _, r := range rows {
			msg.rows = append(msg.rows, []string{r.Token, r.BalanceToken, r.Fullname, r.Decimals.String()})
			msg.keys = append(msg.keys, r.Token)
		}
	case TabSubaccounts:
		rows, err := api.SubAccounts(ctx)
		msg.err = err
		msg.subs, msg.subsErr = rows, err != nil
		msg.header = []string{"application id", "account", "created"}
		for _, r := range rows {
			msg.rows = append(msg.rows, []string{r.ApplicationID, r.Account, ts(r.CreatedTime)})
			msg.keys = append(msg.keys, r.ApplicationID)
		}
	case TabSubAssets:
		rows, err := api.SubAccountAssets(ctx)
		msg.err = err
		msg.header = []string{"application id", "account", "USDT balance"}
		for _, r := range rows {
			msg.rows = append(msg.rows, []string{r.ApplicationID, r.Account, r.USDTBalance.String()})
			msg.keys = append(msg.keys, r.ApplicationID)
		}
	case TabTransfers:
		from, to, err := dates(f[0], f[1])
		if err != nil {
			msg.err = err
			break
		}
		rows, meta, err := api.TransferHistory(ctx, venue.TransferFilter{Start: from, End: to, Page: page})
		msg.err, msg.meta, msg.paged = err, meta, true
		msg.header = []string{"id", "time", "token", "amount", "status", "from", "to"}
		for _, r := range rows {
			msg.rows = append(msg.rows, []string{r.ID.String(), ts(r.CreatedTime), r.Token, r.Amount.String(), r.Status,
				nonEmpty(r.FromUser, r.FromApplicationID), nonEmpty(r.ToUser, r.ToApplicationID)})
			msg.keys = append(msg.keys, r.ID.String())
		}
	case TabIP:
		rows, _, err := api.IPRestrictions(ctx, venue.IPRestrictionFilter{ApplicationID: f[0], APIKey: f[1]})
		msg.err = err
		msg.header = []string{"api key", "restricted", "ip list", "updated"}
		for _, r := range rows {
			msg.rows = append(msg.rows, []string{r.APIKey, yes(bool(r.Restrict)), r.IPList, ts(r.UpdateTime)})
			msg.keys = append(msg.keys, r.APIKey)
		}
	}
	return msg
}

func yes(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

func nonEmpty(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

var keys = struct {
	next, prev, up, down, pgNext, pgPrev, enter, reload, filter, mode, leverage, repay, transfer, close key.Binding
}{
	next:     key.NewBinding(key.WithKeys("tab", "right"), key.WithHelp("tab/→", "next tab")),
	prev:     key.NewBinding(key.WithKeys("shift+tab", "left"), key.WithHelp("shift+tab/←", "previous tab")),
	up:       key.NewBinding(key.WithKeys("up", "k")),
	down:     key.NewBinding(key.WithKeys("down", "j")),
	pgNext:   key.NewBinding(key.WithKeys("]", "pgdown"), key.WithHelp("]/pgdn", "next page")),
	pgPrev:   key.NewBinding(key.WithKeys("[", "pgup"), key.WithHelp("[/pgup", "previous page")),
	enter:    key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "detail")),
	reload:   key.NewBinding(key.WithKeys("r"), key.WithHelp("r", "reload")),
	filter:   key.NewBinding(key.WithKeys("f"), key.WithHelp("f", "filters")),
	mode:     key.NewBinding(key.WithKeys("m"), key.WithHelp("m", "account mode")),
	leverage: key.NewBinding(key.WithKeys("l"), key.WithHelp("l", "leverage")),
	repay:    key.NewBinding(key.WithKeys("p"), key.WithHelp("p", "repay interest")),
	transfer: key.NewBinding(key.WithKeys("t"), key.WithHelp("t", "transfer")),
	close:    key.NewBinding(key.WithKeys("esc", "q"), key.WithHelp("esc", "close")),
}

// Update handles keys and the results of the screen's commands.
func (m *Model) Update(msg tea.Msg) (common.Dialog, tea.Cmd) {
	switch msg := msg.(type) {
	case loadedMsg:
		m.loaded(msg)
	case detailMsg:
		s := m.secs[msg.tab]
		s.detail = msg.lines
		if msg.err != nil {
			s.detail = []string{"error: " + trade.Explain(msg.err)}
		}
	case ActionMsg:
		if msg.Err != nil {
			m.status = msg.What + " failed: " + trade.Explain(msg.Err)
			return m, common.Notify(common.NoticeError, m.status)
		}
		m.status = msg.What + ": done"
		cmds := []tea.Cmd{common.Notify(common.NoticeSuccess, m.status)}
		for _, t := range msg.Reload {
			cmds = append(cmds, m.load(t))
		}
		return m, tea.Batch(cmds...)
	case tea.KeyPressMsg:
		return m, m.key(msg)
	}
	return m, nil
}

func (m *Model) loaded(msg loadedMsg) {
	if msg.tab == TabSubaccounts {
		switch {
		case msg.err == nil:
			m.isMain, m.subs = 1, msg.subs
		case venue.IsAuth(msg.err):
			m.isMain = -1 // insufficient permission: a subaccount
		}
	}
	s := m.secs[msg.tab]
	if msg.gen != s.gen {
		return // a reply for a page or filter no longer shown
	}
	s.loading, s.loaded = false, true
	if msg.err != nil {
		s.err = trade.Explain(msg.err)
		if msg.tab.mainOnly() && m.isMain < 0 {
			s.err = "needs a main account (" + s.err + ")"
		}
		return
	}
	if msg.info != nil {
		m.info = msg.info
	}
	s.err = ""
	s.header, s.rows, s.keys, s.meta, s.paged = msg.header, msg.rows, msg.keys, msg.meta, msg.paged
	s.hasNext = msg.paged && msg.meta.HasNext(len(msg.rows))
	s.cursor = min(s.cursor, max(len(s.rows)-1, 0))
}

func (m *Model) key(k tea.KeyPressMsg) tea.Cmd {
	s := m.secs[m.tab]
	m.status = ""
	switch {
	case key.Matches(k, keys.close):
		return common.Close
	case key.Matches(k, keys.next):
		return m.Select(m.step(1))
	case key.Matches(k, keys.prev):
		return m.Select(m.step(-1))
	case key.Matches(k, keys.up):
		s.cursor = max(s.cursor-1, 0)
	case key.Matches(k, keys.down):
		s.cursor = min(s.cursor+1, max(len(s.rows)-1, 0))
	case key.Matches(k, keys.pgNext):
		if s.paged && s.hasNext && !s.loading {
			s.page++
			return m.load(m.tab)
		}
		m.status = "no next page"
	case key.Matches(k, keys.pgPrev):
		if s.paged && s.page > 1 && !s.loading {
			s.page--
			return m.load(m.tab)
		}
		m.status = "no previous page"
	case key.Matches(k, keys.reload):
		return m.load(m.tab)
	case key.Matches(k, keys.filter):
		return m.openFilters()
	case key.Matches(k, keys.enter):
		return m.detail()
	case key.Matches(k, keys.mode):
		return m.guard(m.changeMode)
	case key.Matches(k, keys.leverage):
		return m.guard(m.changeLeverage)
	case key.Matches(k, keys.repay):
		return m.guard(m.repay)
	case key.Matches(k, keys.transfer):
		return m.guard(m.transfer)
	default:
		if r := k.String(); len(r) == 1 && r[0] >= '1' && r[0] <= '9' {
			return m.Select(Tab(r[0] - '1'))
		}
	}
	return nil
}

// step finds the next tab in a direction, skipping main-only tabs on a
// subaccount.
func (m *Model) step(d int) Tab {
	t := m.tab
	for range nTabs {
		t = (t + Tab(d) + nTabs) % nTabs
		if !t.mainOnly() || m.isMain >= 0 {
			return t
		}
	}
	return m.tab
}

func (m *Model) selectedKey() (string, bool) {
	s := m.secs[m.tab]
	if s.cursor < len(s.keys) {
		return s.keys[s.cursor], true
	}
	return "", false
}

func (m *Model) openFilters() tea.Cmd {
	s := m.secs[m.tab]
	if s.filters == nil {
		m.status = m.tab.String() + " has no filters"
		return nil
	}
	t := m.tab
	return common.Open(NewPrompt(m.Common, m.tab.String()+" filters", s.filters, func(v []string) (tea.Cmd, string) {
		for i, f := range s.filters {
			if _, err := day(v[i], false); f.Date && err != nil {
				return nil, f.Label + ": " + err.Error()
			}
		}
		for i := range s.filters {
			s.filters[i].Value = v[i]
		}
		s.page = 1
		return m.load(t), ""
	}))
}

func (m *Model) detail() tea.Cmd {
	k, ok := m.selectedKey()
	if !ok {
		return nil
	}
	t, api := m.tab, m.opts.API
	switch t {
	case TabDeposit, TabTokens:
		t = TabDeposit
		m.secs[t].detail = []string{"loading the deposit address of " + k + "…"}
		return func() tea.Msg {
			ctx, cancel := m.ctx()
			defer cancel()
			a, err := api.DepositAddress(ctx, k)
			lines := []string{"deposit address of " + k + ": " + a.Address}
			if a.Extra != "" {
				lines = append(lines, "extra (memo/tag): "+a.Extra)
			}
			return detailMsg{tab: t, lines: lines, err: err}
		}
	case TabSubaccounts, TabSubAssets:
		m.secs[t].detail = []string{"loading the assets of " + k + "…"}
		return func() tea.Msg {
			ctx, cancel := m.ctx()
			defer cancel()
			d, err := api.SubAccountAssetDetail(ctx, k)
			lines := []string{fmt.Sprintf("assets of %s (%s):", d.Account, d.ApplicationID)}
			for _, tok := range sortedTokens(d.Balances) {
				b := d.Balances[tok]
				lines = append(lines, fmt.Sprintf("  %-6s holding %s  frozen %s  interest %s  staked %s  unbonding %s  vault %s",
					tok, b.Holding, b.Frozen, b.Interest, b.Staked, b.Unbonding, b.Vault))
			}
			return detailMsg{tab: t, lines: lines, err: err}
		}
	}
	return nil
}

// guard refuses account-changing actions in read-only mode.
func (m *Model) guard(action func() tea.Cmd) tea.Cmd {
	if m.opts.ReadOnly {
		return common.Notify(common.NoticeWarn, "account changes are disabled: "+m.opts.ReadOnlyWhy)
	}
	return action()
}

// confirmThen asks for confirmation and then runs call as an ActionMsg.
func (m *Model) confirmThen(title string, lines []string, strong bool, warning string, what string, reload []Tab, call func(context.Context) error) tea.Cmd {
	run := func() tea.Msg {
		ctx, cancel := m.ctx()
		defer cancel()
		return ActionMsg{What: what, Err: call(ctx), Reload: reload}
	}
	return common.Open(confirm.New(m.Common, confirm.Options{Title: title, Lines: lines, Strong: strong,
		Warning: warning, Action: what, OnConfirm: run, Grace: m.opts.Grace}))
}

func (m *Model) currentMode() venue.AccountMode {
	if m.info == nil {
		return ""
	}
	return m.info.Application.AccountMode
}

func (m *Model) changeMode() tea.Cmd {
	if m.info == nil {
		m.status = "account info not loaded yet"
		return nil
	}
	modes := []string{string(venue.PureSpot), string(venue.Margin), string(venue.Futures)}
	cur := string(m.currentMode())
	return common.Open(NewPrompt(m.Common, "Account mode", []Field{{Label: "mode", Choices: modes, Value: cur}},
		func(v []string) (tea.Cmd, string) {
			mode := venue.AccountMode(v[0])
			if string(mode) == cur {
				return nil, "the account is already in " + cur + " mode"
			}
			api := m.opts.API
			return m.confirmThen("Change account mode", []string{"account mode " + cur + " → " + string(mode)}, true,
				"changes how every position and order is margined", "set mode "+string(mode), []Tab{TabInfo},
				func(ctx context.Context) error { return api.SetAccountMode(ctx, mode) }), ""
		}))
}

// LeverageChoices are the leverages the spec allows in a mode.
func LeverageChoices(mode venue.AccountMode) []int { return venue.LeverageChoices[mode] }

func (m *Model) changeLeverage() tea.Cmd {
	mode := m.currentMode()
	choices := LeverageChoices(mode)
	if len(choices) == 0 {
		m.status = "no leverage in " + string(mode) + " mode (margin: 3, 4, 5; futures: 1-20)"
		return common.Notify(common.NoticeWarn, m.status)
	}
	cur := m.info.Application.Leverage
	if mode == venue.Futures {
		cur = m.info.Application.FuturesLeverage
	}
	labels := make([]string, len(choices))
	for i, c := range choices {
		labels[i] = fmt.Sprint(c)
	}
	return common.Open(NewPrompt(m.Common, "Leverage ("+string(mode)+")", []Field{{Label: "leverage", Choices: labels, Value: cur.String()}},
		func(v []string) (tea.Cmd, string) {
			var lev int
			fmt.Sscan(v[0], &lev)
			api := m.opts.API
			return m.confirmThen("Change leverage", []string{fmt.Sprintf("%s leverage %s → %d", mode, cur, lev)}, false, "",
				fmt.Sprintf("set leverage %d", lev), []Tab{TabInfo},
				func(ctx context.Context) error {
					return api.SetLeverage(ctx, venue.LeverageRequest{Leverage: lev, Mode: mode})
				}), ""
		}))
}

func (m *Model) repay() tea.Cmd {
	token, _ := m.selectedKey()
	if m.tab != TabInterest && m.tab != TabInterestHistory {
		token = ""
	}
	return common.Open(NewPrompt(m.Common, "Repay interest", []Field{{Label: "token", Value: token, Hint: "e.g. USDT"}, {Label: "amount", Hint: "amount to repay"}},
		func(v []string) (tea.Cmd, string) {
			tok := strings.ToUpper(v[0])
			amt, err := decimal.NewFromString(v[1])
			switch {
			case tok == "":
				return nil, "token is required"
			case err != nil || !amt.IsPositive():
				return nil, "amount must be a positive number"
			}
			api := m.opts.API
			return m.confirmThen("Repay interest", []string{"repay " + amt.String() + " " + tok}, false, "",
				"repay "+amt.String()+" "+tok, []Tab{TabInterestHistory},
				func(ctx context.Context) error { return api.RepayInterest(ctx, tok, amt) }), ""
		}))
}

// accounts are the application ids a transfer can name: this account and
// its subaccounts.
func (m *Model) accounts() []string {
	var out []string
	if m.info != nil {
		out = append(out, m.info.Application.ApplicationID)
	}
	for _, s := range m.subs {
		if s.ApplicationID != "" && (m.info == nil || s.ApplicationID != m.info.Application.ApplicationID) {
			out = append(out, s.ApplicationID)
		}
	}
	return out
}

func (m *Model) transfer() tea.Cmd {
	accts := m.accounts()
	if len(accts) < 2 {
		m.status = "transfers need the main account and a subaccount (none known yet)"
		return common.Notify(common.NoticeWarn, m.status)
	}
	return common.Open(NewPrompt(m.Common, "Transfer between accounts", []Field{
		{Label: "token", Value: "USDT"}, {Label: "amount", Hint: "amount"},
		{Label: "from", Choices: accts, Value: accts[0]}, {Label: "to", Choices: accts, Value: accts[1]},
	}, func(v []string) (tea.Cmd, string) {
		amt, err := decimal.NewFromString(v[1])
		req := venue.TransferRequest{Token: strings.ToUpper(v[0]), Amount: amt, FromApplicationID: v[2], ToApplicationID: v[3]}
		if err != nil {
			return nil, "amount must be a number"
		}
		if err := req.Validate(); err != nil {
			var pe *venue.ParamError
			if errors.As(err, &pe) {
				return nil, pe.Param + ": " + pe.Reason
			}
			return nil, err.Error()
		}
		api := m.opts.API
		return m.confirmThen("Transfer", []string{fmt.Sprintf("move %s %s", req.Amount, req.Token), "from " + req.FromApplicationID, "to   " + req.ToApplicationID},
			false, "", fmt.Sprintf("transfer %s %s", req.Amount, req.Token), []Tab{TabTransfers, TabSubAssets},
			func(ctx context.Context) error { _, err := api.Transfer(ctx, req); return err }), ""
	}))
}

func sortedTokens(m map[string]venue.AssetBalance) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && out[j] < out[j-1]; j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
}

// ShortHelp lists the screen's keys (changes hidden in read-only mode).
func (m *Model) ShortHelp() []key.Binding {
	b := []key.Binding{keys.next, keys.pgNext, keys.filter, keys.enter, keys.reload}
	if !m.opts.ReadOnly {
		b = append(b, keys.mode, keys.leverage, keys.repay, keys.transfer)
	}
	return append(b, keys.close)
}

// FullHelp lists the keys in one column.
func (m *Model) FullHelp() [][]key.Binding { return [][]key.Binding{m.ShortHelp()} }

// View renders the screen.
func (m *Model) View() string {
	t := m.Theme
	w, h := max(m.Width-2, 60), max(m.Height-2, 16)
	var body []string
	title := "Account"
	if m.info != nil {
		a := m.info.Application
		title = fmt.Sprintf("Account %s (%s) · %s · margin rate %s", a.Alias, a.Account, a.AccountMode, m.info.MarginRate)
		if m.isMain > 0 {
			title += " · main account"
		} else if m.isMain < 0 {
			title += " · subaccount"
		}
	}
	// Tab bar.
	var bar strings.Builder
	for i := Tab(0); i < nTabs; i++ {
		if i.mainOnly() && m.isMain < 0 {
			continue
		}
		name := fmt.Sprintf("%d %s", int(i)+1, i)
		if i >= 9 {
			name = i.String()
		}
		if i == m.tab {
			bar.WriteString(t.Reverse + " " + name + " " + t.Text)
		} else {
			bar.WriteString(t.Muted + " " + name + " " + t.Text)
		}
	}
	body = append(body, bar.String(), "")
	s := m.secs[m.tab]
	tableH := h - 8 - len(s.detail)
	switch {
	case s.loading && !s.loaded:
		body = append(body, t.Muted+"loading…"+t.Text)
		tableH--
	case s.err != "":
		body = append(body, t.Error+s.err+t.Text)
		tableH--
	}
	if s.loaded && s.err == "" && len(s.rows) == 0 {
		body = append(body, t.Muted+"no rows"+t.Text)
		tableH--
	}
	if len(s.header) > 0 && len(s.rows) > 0 {
		body = append(body, table(t, s.header, s.rows, s.cursor, w-2, max(tableH, 2), m.tab != TabInfo)...)
	}
	body = append(body, s.detail...)
	body = append(body, "")
	var info []string
	if s.paged {
		p := fmt.Sprintf("page %d", s.page)
		if s.meta.RecordsPerPage > 0 {
			p += fmt.Sprintf(" · %d per page", s.meta.RecordsPerPage)
		}
		if s.meta.Total != nil {
			p += fmt.Sprintf(" · %d total", int64(*s.meta.Total))
		}
		if s.hasNext {
			p += " · ] next"
		}
		if s.page > 1 {
			p += " · [ previous"
		}
		info = append(info, p)
	}
	if fs := activeFilters(s.filters); fs != "" {
		info = append(info, "filters: "+fs)
	}
	if len(info) > 0 {
		body = append(body, t.Muted+strings.Join(info, " · ")+t.Text)
	}
	if m.status != "" {
		body = append(body, t.Warn+m.status+t.Text)
	}
	body = append(body, t.Muted+m.footer()+t.Text)
	return confirm.Frame(t, title, body, w, t.BorderFocus)
}

func activeFilters(fs []Field) string {
	var parts []string
	for _, f := range fs {
		if f.Value != "" {
			parts = append(parts, f.Label+"="+f.Value)
		}
	}
	return strings.Join(parts, " ")
}

func (m *Model) footer() string {
	parts := []string{"tab/1-9 section", "↑↓ row"}
	s := m.secs[m.tab]
	if s.paged {
		parts = append(parts, "[ ] page")
	}
	if s.filters != nil {
		parts = append(parts, "f filters")
	}
	switch m.tab {
	case TabDeposit, TabTokens:
		parts = append(parts, "enter deposit address")
	case TabSubaccounts, TabSubAssets:
		parts = append(parts, "enter detail")
	}
	parts = append(parts, "r reload")
	if !m.opts.ReadOnly {
		switch m.tab {
		case TabInfo:
			parts = append(parts, "m mode", "l leverage")
		case TabInterest, TabInterestHistory:
			parts = append(parts, "p repay")
		case TabTransfers, TabSubaccounts, TabSubAssets:
			parts = append(parts, "t transfer")
		}
	}
	return strings.Join(append(parts, "esc close"), " · ")
}
