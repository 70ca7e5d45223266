package account

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"
	"github.com/shopspring/decimal"

	"tradedeck/panes/common"
	"tradedeck/panes/confirm"
	"tradedeck/panes/confirm/cmdtest"
	"tradedeck/sim"
	"tradedeck/sim/simtest"
	"tradedeck/theme"
	"tradedeck/venue"
)

type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) pass()          { c.add(time.Second) }
func (c *clock) add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

type screen struct {
	*cmdtest.Stack
	m      *Model
	inst   *sim.Instance
	client *venue.Client
	clk    *clock
}

func open(t *testing.T, sub bool, readOnly bool) *screen {
	t.Helper()
	inst := simtest.Start(t, sim.Options{Seed: 5, NoRateLimits: true, Living: sim.LivingOptions{NoMarket: true}})
	creds := inst.Credentials
	if sub {
		creds = inst.SubCredentials
	}
	client := venue.NewClient(inst.Endpoints, creds, venue.WithLimiter(nil))
	th, _ := theme.New("dark", false)
	clk := &clock{t: time.Unix(1_760_000_000, 0)}
	c := common.Common{Theme: th, Store: common.NewStore(), Now: clk.now}
	s := &screen{Stack: &cmdtest.Stack{W: 160, H: 50}, inst: inst, client: client, clk: clk}
	s.m = New(c, Options{API: client, ReadOnly: readOnly, ReadOnlyWhy: "--read-only"})
	s.Run(common.Open(s.m))
	s.Run(s.m.Init())
	return s
}

func (s *screen) view() string { return ansi.Strip(s.m.View()) }

// confirmYes waits out the grace period and confirms the top dialog.
func (s *screen) confirmYes(t *testing.T) {
	t.Helper()
	if _, ok := s.Top().(*confirm.Model); !ok {
		t.Fatalf("no confirmation on top: %T", s.Top())
	}
	s.clk.pass()
	s.Press("y")
}

func rowsText(rows [][]string) string {
	var sb strings.Builder
	for _, r := range rows {
		sb.WriteString(strings.Join(r, "|") + "\n")
	}
	return sb.String()
}

func TestInfoAndEveryTabLoads(t *testing.T) {
	s := open(t, false, false)
	if s.m.Info() == nil || !s.m.IsMain() {
		t.Fatalf("info %v main %v (err %q)", s.m.Info(), s.m.IsMain(), s.m.Err(TabInfo))
	}
	info := rowsText(s.m.Rows(TabInfo))
	for _, want := range []string{"account mode|FUTURES", "taker fee rate|5 bps", "maker fee rate|2 bps", "margin rate|", "leverage (futures)|10"} {
		if !strings.Contains(info, want) {
			t.Errorf("info lacks %q:\n%s", want, info)
		}
	}
	if v := s.view(); !strings.Contains(v, "main account") || !strings.Contains(v, "FUTURES") {
		t.Errorf("header:\n%s", v)
	}
	for tab := TabTokens; tab < nTabs; tab++ {
		s.Press("tab")
		if s.m.Tab() != tab {
			t.Fatalf("tab %v, want %v", s.m.Tab(), tab)
		}
		if e := s.m.Err(tab); e != "" {
			t.Errorf("%v: %s", tab, e)
		}
	}
	if !strings.Contains(rowsText(s.m.Rows(TabTokens)), "BTC|0.95|") {
		t.Errorf("token config:\n%s", rowsText(s.m.Rows(TabTokens)))
	}
	if !strings.Contains(rowsText(s.m.Rows(TabInterest)), "USDT|") {
		t.Errorf("interest rates:\n%s", rowsText(s.m.Rows(TabInterest)))
	}
	if len(s.m.Rows(TabSubaccounts)) != 1 || len(s.m.Rows(TabSubAssets)) != 2 {
		t.Errorf("subaccounts %v, assets %v", s.m.Rows(TabSubaccounts), s.m.Rows(TabSubAssets))
	}
}

// Asset history pages through meta and filters by side and token.
func TestAssetHistoryPagingAndFilters(t *testing.T) {
	s := open(t, false, false)
	acct, _ := s.inst.Exchange.AccountByApplicationID(s.m.Info().Application.ApplicationID)
	for i := 0; i < 30; i++ {
		tok := "BTC"
		if i%3 == 0 {
			tok = "ETH"
		}
		if _, err := s.inst.Exchange.Deposit(acct, tok, decimal.NewFromInt(int64(i+1))); err != nil {
			t.Fatal(err)
		}
	}
	s.Press("6") // Asset history
	if s.m.Tab() != TabAssets {
		t.Fatalf("tab %v", s.m.Tab())
	}
	first := len(s.m.Rows(TabAssets))
	if first != 25 || !strings.Contains(s.view(), "page 1") || !strings.Contains(s.view(), "] next") {
		t.Fatalf("page 1 has %d rows:\n%s", first, s.view())
	}
	all := 0
	for page := 1; ; page++ {
		rows, meta, err := s.client.AssetHistory(context.Background(), venue.AssetHistoryFilter{Page: page})
		if err != nil {
			t.Fatal(err)
		}
		all += len(rows)
		if !meta.HasNext(len(rows)) {
			break
		}
	}
	if all < 30 || all > 50 {
		t.Fatalf("%d asset records", all)
	}
	s.Press("]")
	if s.m.Page(TabAssets) != 2 || len(s.m.Rows(TabAssets)) != all-25 {
		t.Fatalf("page 2: page %d rows %d of %d", s.m.Page(TabAssets), len(s.m.Rows(TabAssets)), all)
	}
	s.Press("]")
	if s.m.Page(TabAssets) != 2 {
		t.Fatal("paged past the end")
	}
	s.Press("[")
	if s.m.Page(TabAssets) != 1 || len(s.m.Rows(TabAssets)) != 25 {
		t.Fatal("back to page 1")
	}
	// Filters: token ETH, side DEPOSIT.
	s.Press("f")
	if _, ok := s.Top().(*Prompt); !ok {
		t.Fatalf("f opened %T", s.Top())
	}
	s.Type("ETH")
	s.Press("tab", "tab", "tab", "right") // token, balance token, type, side -> DEPOSIT
	s.Press("enter")
	rows := s.m.Rows(TabAssets)
	if len(rows) < 10 {
		t.Fatalf("ETH deposits: %d rows\n%s", len(rows), rowsText(rows))
	}
	for _, r := range rows {
		if r[1] != "ETH" || r[2] != "DEPOSIT" {
			t.Fatalf("filtered row %v", r)
		}
	}
	if !strings.Contains(s.view(), "filters: token=ETH side=DEPOSIT") {
		t.Fatalf("view:\n%s", s.view())
	}
	// A bad date is refused in the prompt.
	s.Press("f")
	for range 5 {
		s.Press("tab")
	}
	s.Type("yesterday")
	s.Press("enter")
	if _, ok := s.Top().(*Prompt); !ok || !strings.Contains(ansi.Strip(s.Top().View()), "is not YYYY-MM-DD") {
		t.Fatalf("bad date accepted:\n%s", ansi.Strip(s.Top().View()))
	}
	s.Press("esc")
}

// Mode and leverage changes: only the spec's values are offered, each
// change is confirmed and lands on the venue.
func TestModeAndLeverage(t *testing.T) {
	s := open(t, false, false)
	ctx := context.Background()
	s.Press("l")
	p, ok := s.Top().(*Prompt)
	if !ok || p.fields[0].Choices == nil || strings.Join(p.fields[0].Choices, ",") != "1,2,3,4,5,10,15,20" {
		t.Fatalf("futures leverage choices: %T %v", s.Top(), p)
	}
	s.Press("right") // 10 -> 15
	s.Press("enter")
	s.confirmYes(t)
	info, _ := s.client.AccountInfo(ctx)
	if !info.Application.FuturesLeverage.Equal(decimal.NewFromInt(15)) {
		t.Fatalf("futures leverage %s", info.Application.FuturesLeverage)
	}
	if !strings.Contains(s.LastNotice(), "set leverage 15: done") {
		t.Fatalf("notice %q", s.LastNotice())
	}
	// Mode FUTURES -> MARGIN (a strong confirmation), then the margin choices.
	s.Press("m")
	s.Press("left") // FUTURES -> MARGIN
	s.Press("enter")
	if cf := s.Top().(*confirm.Model); !cf.Strong() {
		t.Fatal("mode change not strong")
	}
	s.confirmYes(t)
	info, _ = s.client.AccountInfo(ctx)
	if info.Application.AccountMode != venue.Margin || s.m.Info().Application.AccountMode != venue.Margin {
		t.Fatalf("mode %s (screen %s)", info.Application.AccountMode, s.m.Info().Application.AccountMode)
	}
	s.Press("l")
	p = s.Top().(*Prompt)
	if strings.Join(p.fields[0].Choices, ",") != "3,4,5" {
		t.Fatalf("margin leverage choices %v", p.fields[0].Choices)
	}
	s.Press("esc")
	// PURE_SPOT has no leverage at all.
	s.Press("m", "left", "enter")
	s.confirmYes(t)
	s.Press("l")
	if s.Top() != common.Dialog(s.m) || !strings.Contains(s.LastNotice(), "no leverage in PURE_SPOT") {
		t.Fatalf("pure spot leverage: top %T notice %q", s.Top(), s.LastNotice())
	}
}

// Transfers between the main account and its subaccount, and the detail
// views (deposit address, subaccount assets).
func TestTransferDepositAndDetail(t *testing.T) {
	s := open(t, false, false)
	ctx := context.Background()
	s.Press("t")
	if _, ok := s.Top().(*Prompt); !ok {
		t.Fatalf("t opened %T (%q)", s.Top(), s.LastNotice())
	}
	s.Press("tab")
	s.Type("25")
	s.Press("enter")
	s.confirmYes(t)
	if !strings.Contains(s.LastNotice(), "transfer 25 USDT: done") {
		t.Fatalf("notice %q", s.LastNotice())
	}
	rows, _, err := s.client.TransferHistory(ctx, venue.TransferFilter{})
	if err != nil || len(rows) != 1 || !rows[0].Amount.Equal(decimal.NewFromInt(25)) {
		t.Fatalf("venue transfers %+v %v", rows, err)
	}
	s.Press("0") // no such tab key: nothing happens
	for s.m.Tab() != TabTransfers {
		s.Press("tab")
	}
	if len(s.m.Rows(TabTransfers)) != 1 {
		t.Fatalf("transfers tab not reloaded: %v", s.m.Rows(TabTransfers))
	}
	// Subaccount detail.
	s.Press("8", "enter")
	det := strings.Join(s.m.Detail(TabSubaccounts), "\n")
	if !strings.Contains(det, "USDT") || !strings.Contains(det, "holding 10025") {
		t.Fatalf("sub detail:\n%s", det)
	}
	// Deposit address of the first token.
	s.Press("7", "enter")
	det = strings.Join(s.m.Detail(TabDeposit), "\n")
	if !strings.Contains(det, "deposit address of ") || strings.Contains(det, "error") {
		t.Fatalf("deposit:\n%s", det)
	}
	// Tokens lists balance tokens (USDT), which have no deposit address
	// (network tokens have): enter is neither offered nor acts there.
	s.Press("2")
	if v := s.view(); strings.Contains(v, "enter ") {
		t.Fatalf("Tokens offers enter:\n%s", v)
	}
	s.Press("enter")
	if det := s.m.Detail(TabTokens); len(det) != 0 {
		t.Fatalf("enter on Tokens: %q", det)
	}
	// Repay without interest owed: the venue's refusal is explained.
	s.Press("3", "p")
	s.Press("tab")
	s.Type("1")
	s.Press("enter")
	s.confirmYes(t)
	if !strings.Contains(s.LastNotice(), "-1008 QUANTITY_TOO_HIGH") {
		t.Fatalf("repay notice %q", s.LastNotice())
	}
}

// A subaccount sees no main-only tabs.
func TestSubaccountView(t *testing.T) {
	s := open(t, true, false)
	if s.m.IsMain() || s.m.isMain != -1 {
		t.Fatalf("subaccount taken for main (%d)", s.m.isMain)
	}
	if strings.Contains(s.view(), "Sub assets") {
		t.Fatalf("main-only tab shown:\n%s", s.view())
	}
	for range nTabs {
		s.Press("tab")
		if s.m.Tab().mainOnly() {
			t.Fatalf("reached %v", s.m.Tab())
		}
	}
}

func TestReadOnlyAccountScreen(t *testing.T) {
	s := open(t, false, true)
	for _, k := range []string{"m", "l", "p", "t"} {
		s.Notices = nil
		s.Press(k)
		if s.Top() != common.Dialog(s.m) || !strings.Contains(s.LastNotice(), "account changes are disabled: --read-only") {
			t.Errorf("%s: top %T notice %q", k, s.Top(), s.LastNotice())
		}
	}
	if strings.Contains(s.view(), "m mode") {
		t.Error("mode key shown in read-only")
	}
	for _, b := range s.m.ShortHelp() {
		if b.Help().Desc == "account mode" || b.Help().Desc == "transfer" {
			t.Errorf("help shows %q in read-only", b.Help().Desc)
		}
	}
}

func TestIPRestrictionsFilter(t *testing.T) {
	s := open(t, false, false)
	for s.m.Tab() != TabIP {
		s.Press("tab")
	}
	all := len(s.m.Rows(TabIP))
	if all == 0 || s.m.Err(TabIP) != "" {
		t.Fatalf("ip restrictions: %d rows, %q", all, s.m.Err(TabIP))
	}
	s.Press("f", "tab")
	s.Type(s.inst.Credentials.APIKey)
	s.Press("enter")
	rows := s.m.Rows(TabIP)
	if len(rows) != 1 || rows[0][0] != s.inst.Credentials.APIKey {
		t.Fatalf("filtered by api key: %v (of %d)", rows, all)
	}
}

// The screen fits the terminal on every tab, small and large.
func TestFitsTheScreen(t *testing.T) {
	s := open(t, false, false)
	for _, sz := range [][2]int{{80, 24}, {200, 60}} {
		s.m.SetSize(sz[0], sz[1])
		for tab := Tab(0); tab < nTabs; tab++ {
			s.Run(s.m.Select(tab))
			s.Press("enter") // detail lines where there are some
			lines := strings.Split(s.m.View(), "\n")
			if len(lines) > sz[1] {
				t.Errorf("%v at %dx%d: %d lines", tab, sz[0], sz[1], len(lines))
			}
			for i, l := range lines {
				if w := ansi.StringWidth(l); w > sz[0] {
					t.Errorf("%v at %dx%d: line %d is %d wide", tab, sz[0], sz[1], i, w)
					break
				}
			}
		}
	}
}

// A section with no rows still fills the whole screen (the dashboard
// never shows around it while the keys come here), and its digit opens
// it: 5 is Funding fees, not pane 5.
func TestEmptySectionFillsTheScreen(t *testing.T) {
	s := open(t, false, false)
	s.Press("5")
	if s.m.Tab() != TabFunding {
		t.Fatalf("5 opened %v", s.m.Tab())
	}
	v := s.view()
	lines := strings.Split(v, "\n")
	if len(lines) != 50 || !strings.Contains(v, "no rows") || !strings.Contains(lines[1], " 5 Funding fees ") {
		t.Fatalf("%d lines:\n%s", len(lines), v)
	}
	for i, l := range lines {
		if w := ansi.StringWidth(l); w != 160 {
			t.Fatalf("line %d is %d cells wide: %q", i, w, l)
		}
	}
	if !strings.Contains(lines[len(lines)-2], "esc close") {
		t.Fatalf("footer not at the bottom:\n%s", v)
	}
}

// At 80x24 the tab bar cannot name every tab: it names a run holding the
// active one, with a marker where tabs are left out, and the footer keeps
// every key.
func TestNarrowTabBarShowsTheActiveTab(t *testing.T) {
	s := open(t, false, false)
	s.m.SetSize(80, 24)
	for tab := TabInfo; tab < nTabs; tab++ {
		for s.m.Tab() != tab {
			s.Press("tab")
		}
		lines := strings.Split(s.view(), "\n")
		if len(lines) != 24 || !strings.Contains(lines[1], tabLabel(tab)) {
			t.Fatalf("%v at 80x24: bar %q (%d lines)", tab, lines[1], len(lines))
		}
		if tab == TabIP && !strings.Contains(lines[1], "…") {
			t.Fatalf("no marker for the tabs left out: %q", lines[1])
		}
		footer := strings.Join(lines[len(lines)-4:], "\n")
		if !strings.Contains(footer, "esc close") || !strings.Contains(footer, "r reload") {
			t.Fatalf("%v footer cut:\n%s", tab, footer)
		}
	}
}

// Sub assets' figure is each account's total value in USDT (the venue's
// usdt_balance), and the column says so.
func TestSubAssetsNameTheirFigure(t *testing.T) {
	s := open(t, false, false)
	s.Press("9")
	v := s.view()
	if !strings.Contains(v, "total value (USDT)") || strings.Contains(v, "USDT balance") {
		t.Fatalf("sub assets header:\n%s", v)
	}
}

// The transfer form names accounts as people know them, not by UUID; the
// confirmation shows both.
func TestTransferNamesAccounts(t *testing.T) {
	s := open(t, false, false)
	main := s.m.Info().Application
	sub := s.m.subs[0]
	s.Press("t")
	p, ok := s.Top().(*Prompt)
	if !ok {
		t.Fatalf("t opened %T", s.Top())
	}
	v := ansi.Strip(p.View())
	if strings.Contains(v, main.ApplicationID) || strings.Contains(v, sub.ApplicationID) || !strings.Contains(v, main.Account) {
		t.Fatalf("transfer form names accounts by id:\n%s", v)
	}
	s.Press("tab")
	s.Type("5")
	s.Press("enter")
	c, ok := s.Top().(*confirm.Model)
	if !ok {
		t.Fatalf("no confirmation: %T", s.Top())
	}
	cv := ansi.Strip(c.View())
	if !strings.Contains(cv, "from "+main.Account+" ("+main.ApplicationID+")") || !strings.Contains(cv, sub.ApplicationID) {
		t.Fatalf("confirmation:\n%s", cv)
	}
}

// Reopening the screen (A again) shows it as it was left and spends the
// venue's account budgets (10 a minute) only on what is stale or was
// never received.
func TestReopenFetchesOnlyWhatIsStale(t *testing.T) {
	s := open(t, false, false)
	if s.m.Info() == nil {
		t.Fatalf("Info not loaded: %q", s.m.Err(TabInfo))
	}
	if cmd := s.m.Reopen(); cmd != nil {
		t.Fatal("reopened at once, the fresh Info was fetched again")
	}
	s.clk.add(freshFor)
	cmd := s.m.Reopen()
	if cmd == nil {
		t.Fatal("Info older than freshFor was not fetched again")
	}
	s.Run(cmd)
	if s.m.Err(TabInfo) != "" || !strings.Contains(s.view(), "account mode") {
		t.Fatalf("Info after the reload:\n%s", s.view())
	}
	// The screen closed before the Tokens answer came: it is asked again.
	if s.m.Select(TabTokens) == nil {
		t.Fatal("Tokens not fetched when first shown")
	}
	if s.m.Reopen() == nil {
		t.Fatal("the Tokens answer the closed screen never got was not asked again")
	}
}
