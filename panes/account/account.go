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
	"fmt"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/shopspring/decimal"

	"tradedeck/panes/common"
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
	at      time.Time // when it loaded
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

// freshFor is how long a reopened screen shows a section without asking
// the venue again: opening and closing the screen must not spend the
// account endpoints' budgets (10 a minute) on data seconds old; r
// reloads at once.
const freshFor = 30 * time.Second

// Reopen shows the screen again as it was left: the section shown is
// fetched again if older than freshFor, the others when next shown. A
// fetch the closed screen never received is asked again.
func (m *Model) Reopen() tea.Cmd {
	m.status = ""
	now := m.Clock()
	for _, s := range m.secs {
		if s.loading || now.Sub(s.at) >= freshFor {
			s.loading, s.loaded = false, false
		}
	}
	return m.Select(m.tab)
}

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
	s.loading, s.loaded, s.at = false, true, m.Clock()
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
	case TabDeposit: // Tokens lists balance tokens (USDT), not the network tokens (ETH_USDT) addresses are of
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
