package ui

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/shopspring/decimal"

	"tradedeck/desk"
	"tradedeck/feed"
	"tradedeck/fixed"
	"tradedeck/internal/testkit"
	"tradedeck/panes/account"
	"tradedeck/panes/common"
	"tradedeck/panes/confirm"
	"tradedeck/panes/confirm/cmdtest"
	"tradedeck/panes/orderform"
	"tradedeck/panes/panetest"
	"tradedeck/sim"
	"tradedeck/sim/simtest"
	"tradedeck/theme"
	"tradedeck/trade"
	"tradedeck/venue"
)

// pendingLog records TrackPending calls (the feed's side of it is tested
// in package feed).
type pendingLog struct {
	mu     sync.Mutex
	orders []feed.Order
}

func (p *pendingLog) TrackPending(o feed.Order) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.orders = append(p.orders, o)
}

func (p *pendingLog) RejectPending(int64, string) {}

// deskOn is a trading desk on a client, tracked by tr (nil: none).
func deskOn(t *testing.T, client *venue.Client, tr desk.Tracker) *desk.Desk {
	t.Helper()
	d, err := desk.New(desk.Config{Client: client, Tracker: tr})
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func tradingKeys() *common.KeyMap {
	b := func(k string) key.Binding { return key.NewBinding(key.WithKeys(k), key.WithHelp(k, k)) }
	return &common.KeyMap{Buy: b("b"), Sell: b("s"), Cancel: b("c"), CancelAll: b("C"), PanicCancel: b("X"), Account: b("A")}
}

// tdesk drives a Trader the way the root model does: a dialog stack, keys
// to the top dialog (else the Trader), other messages to every dialog and
// to the Trader, commands run synchronously (REST calls included).
type tdesk struct {
	*cmdtest.Stack
	t       *testing.T
	inst    *sim.Instance
	client  *venue.Client
	tr      *Trader
	c       common.Common
	clk     *testkit.Clock
	pending *pendingLog
	focus   Focus // what HandleKey sees
}

func newDesk(t *testing.T, o TraderOptions) *tdesk {
	t.Helper()
	inst := simtest.Start(t, sim.Options{Seed: 3, NoRateLimits: true, Living: sim.LivingOptions{NoMarket: true}})
	th, _ := theme.New("dark", false)
	clk := testkit.NewClock(time.Unix(1_760_000_000, 0))
	d := &tdesk{t: t, inst: inst, clk: clk, pending: &pendingLog{}}
	d.client = venue.NewClient(inst.Endpoints, inst.Credentials, venue.WithLimiter(nil))
	d.c = common.Common{Theme: th, Keys: tradingKeys(), Store: common.NewStore(), Now: clk.Now, Width: 120, Height: 40}
	o.Desk = deskOn(t, d.client, d.pending)
	d.tr = NewTrader(o)
	d.Stack = &cmdtest.Stack{W: d.c.Width, H: d.c.Height,
		OnKey: func(k tea.KeyPressMsg) tea.Cmd { cmd, _ := d.tr.HandleKey(d.c, k, d.focus); return cmd },
		OnMsg: func(m tea.Msg) tea.Cmd { cmd, _ := d.tr.Update(d.c, m); return cmd }}
	return d
}

// refresh loads the book and the account into the Store from REST, as the
// feed would.
func (d *tdesk) refresh(symbols ...string) {
	d.t.Helper()
	ctx := context.Background()
	s := d.c.Store
	for _, sym := range symbols {
		rule, err := d.client.SymbolRule(ctx, sym)
		if err != nil {
			d.t.Fatal(err)
		}
		sc := feed.Scale{PriceDec: fixed.DecimalsOf(rule.QuoteTick), QtyDec: fixed.DecimalsOf(rule.BaseTick)}
		ob, err := d.client.OrderBook(ctx, sym, 5)
		if err != nil {
			d.t.Fatal(err)
		}
		b := &feed.Book{Symbol: sym, Scale: sc, State: feed.Live}
		for _, l := range ob.Bids {
			p, _ := fixed.FromDecimal(l.Price, sc.PriceDec)
			q, _ := fixed.FromDecimal(l.Quantity, sc.QtyDec)
			b.Bids = append(b.Bids, feed.Level{Price: p, Qty: q})
		}
		for _, l := range ob.Asks {
			p, _ := fixed.FromDecimal(l.Price, sc.PriceDec)
			q, _ := fixed.FromDecimal(l.Quantity, sc.QtyDec)
			b.Asks = append(b.Asks, feed.Level{Price: p, Qty: q})
		}
		s.Books[sym] = b
	}
	info, err := d.client.AccountInfo(ctx)
	if err != nil {
		d.t.Fatal(err)
	}
	a := &feed.Account{Margin: feed.Margin{Mode: string(info.Application.AccountMode),
		TakerFeeRate: info.Application.TakerFeeRate, MakerFeeRate: info.Application.MakerFeeRate}}
	hold, _ := d.client.HoldingV2(ctx, false)
	for _, h := range hold {
		a.Balances = append(a.Balances, feed.Balance{Token: h.Token, Holding: h.Holding, Frozen: h.Frozen})
	}
	open, _, err := d.client.ListOrders(ctx, venue.OrderFilter{Status: venue.StatusIncomplete})
	if err != nil {
		d.t.Fatal(err)
	}
	for _, o := range open {
		a.Open = append(a.Open, feed.Order{OrderID: o.OrderID.Int64(), ClientOrderID: o.ClientOrderID.Int64(), Symbol: o.Symbol,
			Side: string(o.Side), Type: string(o.Type), Status: string(o.Status), Price: o.Price.Decimal, Quantity: o.Quantity.Decimal})
	}
	s.Account = a
	d.Deliver(common.FeedMsg{Update: &feed.Update{Account: a}})
}

func (d *tdesk) key(keys ...string) {
	for _, k := range keys {
		if _, named := map[string]bool{"enter": true, "tab": true, "right": true, "esc": true}[k]; named || len(k) == 1 {
			d.Press(k)
		} else {
			d.Type(k)
		}
	}
}

func findSeen[T any](d *tdesk) (T, bool) { return cmdtest.Find[T](d.Seen) }

func (d *tdesk) orderByCID(cid int64) venue.Order {
	d.t.Helper()
	o, err := d.client.GetOrderByClientID(context.Background(), cid)
	if err != nil {
		d.t.Fatalf("order with client id %d: %v", cid, err)
	}
	return o
}

// place rests an order directly through REST (setup for cancels).
func (d *tdesk) place(sym string, side venue.Side, below string, qty string, cid int64) venue.OrderAck {
	d.t.Helper()
	ob, _ := d.client.OrderBook(context.Background(), sym, 1)
	rule, _ := d.client.SymbolRule(context.Background(), sym)
	p := ob.Bids[0].Price.Mul(decimal.RequireFromString(below))
	if side == venue.Sell {
		p = ob.Asks[0].Price.Mul(decimal.NewFromInt(2).Sub(decimal.RequireFromString(below)))
	}
	p = trade.RuleOf(rule).AlignPrice(p, trade.Down)
	ack, err := d.client.SendOrder(context.Background(), venue.OrderRequest{Symbol: sym, Side: side, Type: venue.Limit,
		Price: p, Quantity: decimal.RequireFromString(qty), ClientOrderID: cid})
	if err != nil {
		d.t.Fatal(err)
	}
	return ack
}

// The whole path of an order: b opens the form on the focused symbol,
// quantity typed, enter opens the confirmation, keys inside the grace
// period do nothing, y sends; the order is tracked as PENDING before the
// REST call and rests on the venue as NEW.
func TestPlaceLimitOrderFromTheForm(t *testing.T) {
	d := newDesk(t, TraderOptions{})
	const sym = "SPOT_ETH_USDT"
	d.refresh(sym)
	d.focus = Focus{Symbol: sym}
	d.key("b")
	form, ok := d.Top().(*orderform.Form)
	if !ok {
		t.Fatalf("b opened %T, notices %v", d.Top(), d.Notices)
	}
	if !form.Valid() && len(form.Problems()) == 0 {
		t.Fatalf("rules not delivered to the form")
	}
	d.key("0.01")
	if !form.Valid() {
		t.Fatalf("form invalid: %v", form.Problems())
	}
	o := form.Order()
	d.key("enter", "enter", "y") // a double enter and a y typed ahead
	cf, ok := d.Top().(*confirm.Model)
	if !ok {
		t.Fatalf("enter opened %T", d.Top())
	}
	if cf.Ignored() != 2 || len(d.pending.orders) != 0 {
		t.Fatalf("keys inside the grace period acted: ignored %d, pending %d", cf.Ignored(), len(d.pending.orders))
	}
	if cf.Strong() {
		t.Fatal("a small LIMIT order got the strong confirmation")
	}
	d.clk.Advance(confirm.DefaultGrace)
	d.key("y")
	if len(d.Dialogs) != 0 {
		t.Fatalf("dialogs left open: %d", len(d.Dialogs))
	}
	if len(d.pending.orders) != 1 || d.pending.orders[0].Status != feed.StatusPending || d.pending.orders[0].ClientOrderID != o.ClientOrderID {
		t.Fatalf("not tracked as pending: %+v", d.pending.orders)
	}
	res, ok := findSeen[OrderResultMsg](d)
	if !ok || res.Err != nil || res.Ack.OrderID == 0 {
		t.Fatalf("result %+v", res)
	}
	if !strings.Contains(d.LastNotice(), "order sent: BUY LIMIT 0.01 ETH SPOT_ETH_USDT @ ") {
		t.Fatalf("notice %q", d.LastNotice())
	}
	got := d.orderByCID(o.ClientOrderID)
	if got.Status != venue.StatusNew || !got.Quantity.Decimal.Equal(o.Quantity) || !got.Price.Decimal.Equal(o.Price) {
		t.Fatalf("venue has %+v", got)
	}
}

// MARKET orders and large notionals get the strong confirmation: enter
// does not send, only y does.
func TestStrongConfirmationForMarketAndLarge(t *testing.T) {
	d := newDesk(t, TraderOptions{ConfirmNotional: decimal.NewFromInt(500)})
	const sym = "SPOT_SOL_USDT"
	d.refresh(sym)
	d.focus = Focus{Symbol: sym}

	d.key("b")
	form := d.Top().(*orderform.Form)
	d.key("0.1")
	// Move to the type row (side, type, price, quantity: two rows up).
	d.Deliver(tea.KeyPressMsg{Code: tea.KeyTab, Mod: tea.ModShift})
	d.Deliver(tea.KeyPressMsg{Code: tea.KeyTab, Mod: tea.ModShift})
	d.key("right")
	if form.Order().Type != trade.Market {
		t.Fatalf("type %s", form.Order().Type)
	}
	d.key("enter")
	cf := d.Top().(*confirm.Model)
	if !cf.Strong() || !strings.Contains(cf.View(), "MARKET order") {
		t.Fatalf("MARKET not strong:\n%s", cf.View())
	}
	d.clk.Advance(time.Second)
	d.key("enter")
	if len(d.pending.orders) != 0 {
		t.Fatal("enter sent a MARKET order")
	}
	d.key("y")
	res, ok := findSeen[OrderResultMsg](d)
	if !ok || res.Err != nil {
		t.Fatalf("market result %+v", res)
	}
	o, err := d.client.GetOrder(context.Background(), res.Ack.OrderID.Int64())
	if err != nil || o.Status != venue.StatusFilled {
		t.Fatalf("market order on the venue: %+v %v", o, err)
	}

	// A LIMIT whose notional reaches the threshold: strong as well.
	d.key("b", "3") // 3 SOL at ~190 = ~570 USDT
	d.key("enter")
	cf = d.Top().(*confirm.Model)
	if !cf.Strong() || !strings.Contains(cf.View(), "LARGE order") {
		t.Fatalf("large order not strong:\n%s", cf.View())
	}
	d.key("esc", "esc")
	if len(d.Dialogs) != 0 {
		t.Fatalf("esc esc left %d dialogs", len(d.Dialogs))
	}
}

// Venue errors are shown with code, name and meaning and say when a retry
// may help: -1003 from the venue's own rate limit.
func TestRateLimitErrorSaysRetry(t *testing.T) {
	inst := simtest.Start(t, sim.Options{Seed: 4, Living: sim.LivingOptions{NoMarket: true}}) // the venue's rate limits on
	client := venue.NewClient(inst.Endpoints, inst.Credentials, venue.WithLimiter(nil), venue.WithRetryOn429(false))
	tr := NewTrader(TraderOptions{Desk: deskOn(t, client, nil)})
	ob, _ := client.OrderBook(context.Background(), "SPOT_XRP_USDT", 1)
	o := trade.Order{Symbol: "SPOT_XRP_USDT", Side: trade.Buy, Type: trade.Limit,
		Price: ob.Bids[0].Price.Sub(decimal.RequireFromString("0.01")), Quantity: decimal.NewFromInt(10)}
	var last OrderResultMsg
	for i := 0; i < 4; i++ { // the venue allows 2 per second per symbol
		last = tr.send(o)().(OrderResultMsg)
		if last.Err != nil {
			break
		}
	}
	var ae *venue.APIError
	if !errors.As(last.Err, &ae) || ae.Code != venue.CodeTooManyRequest {
		t.Fatalf("no -1003 after 4 fast orders: %v", last.Err)
	}
	cmd, _ := tr.Update(common.Common{}, last)
	n, _ := cmdtest.Find[common.NoticeMsg](cmdtest.Run(cmd))
	if n.Level != common.NoticeError || !strings.Contains(n.Text, "-1003 TOO_MANY_REQUEST: rate limit exceeded") ||
		!strings.Contains(n.Text, "retry possible") {
		t.Fatalf("notice %+v", n)
	}
}

// c cancels the selected order, :cancel cid N by client id, C all of the
// symbol (and only it); each after a confirmation.
func TestCancelVariants(t *testing.T) {
	d := newDesk(t, TraderOptions{})
	const eth, sol = "SPOT_ETH_USDT", "SPOT_SOL_USDT"
	a := d.place(eth, venue.Buy, "0.95", "0.01", 101)
	d.place(eth, venue.Sell, "0.95", "0.01", 102)
	d.place(eth, venue.Buy, "0.94", "0.01", 103)
	d.place(sol, venue.Buy, "0.95", "0.1", 104)
	d.refresh(eth, sol)

	// c without a selection explains itself.
	d.focus = Focus{Symbol: eth}
	d.key("c")
	if len(d.Dialogs) != 0 || !strings.Contains(d.LastNotice(), "select an open order") {
		t.Fatalf("c without selection: %q", d.LastNotice())
	}
	// c on the selected order.
	sel := d.c.Store.Account.Open[0]
	for _, o := range d.c.Store.Account.Open {
		if o.OrderID == a.OrderID.Int64() {
			sel = o
		}
	}
	d.focus = Focus{Symbol: eth, Selected: &sel}
	d.key("c")
	if _, ok := d.Top().(*confirm.Model); !ok {
		t.Fatalf("c opened %T", d.Top())
	}
	d.clk.Advance(time.Second)
	d.key("y")
	if got := d.orderByCID(101); got.Status != venue.StatusCancelled {
		t.Fatalf("selected order is %s", got.Status)
	}
	if !strings.Contains(d.LastNotice(), "cancel order") || !strings.Contains(d.LastNotice(), "cancel sent") {
		t.Fatalf("notice %q", d.LastNotice())
	}
	// Cancelling it again: the venue's -1006 is explained.
	d.key("c")
	d.clk.Advance(time.Second)
	d.key("y")
	if !strings.Contains(d.LastNotice(), "-1006 RESOURCE_NOT_FOUND") {
		t.Fatalf("second cancel: %q", d.LastNotice())
	}
	// :cancel cid N (symbol found from the open orders).
	cmd, ok := d.tr.HandleCommand(d.c, "cancel", []string{"cid", "102"}, Focus{Symbol: sol})
	if !ok {
		t.Fatal("cancel command not handled")
	}
	d.Run(cmd)
	d.clk.Advance(time.Second)
	d.key("y")
	if got := d.orderByCID(102); got.Status != venue.StatusCancelled {
		t.Fatalf("cancel by client id: %s", got.Status)
	}
	// C: every order of the focused symbol, not the others.
	d.focus = Focus{Symbol: eth}
	d.key("C")
	cf := d.Top().(*confirm.Model)
	if !strings.Contains(cf.View(), "on SPOT_ETH_USDT will be cancelled") {
		t.Fatalf("view:\n%s", cf.View())
	}
	d.clk.Advance(time.Second)
	d.key("y")
	if got := d.orderByCID(103); got.Status != venue.StatusCancelled {
		t.Fatalf("cancel all ETH left %s", got.Status)
	}
	if got := d.orderByCID(104); got.Status != venue.StatusNew {
		t.Fatalf("cancel all ETH touched SOL: %s", got.Status)
	}
	// C again: no open order left on ETH, so nothing to confirm and
	// nothing sent (not "0 open order(s) will be cancelled").
	d.refresh(eth, sol)
	d.key("C")
	if len(d.Dialogs) != 0 || !strings.Contains(d.LastNotice(), "no open orders on SPOT_ETH_USDT") {
		t.Fatalf("C with nothing open: %d dialogs, notice %q", len(d.Dialogs), d.LastNotice())
	}
}

// X cancels everything everywhere, including symbols the dashboard did
// not know about, after a strong confirmation.
func TestPanicCancel(t *testing.T) {
	d := newDesk(t, TraderOptions{})
	d.place("SPOT_ETH_USDT", venue.Buy, "0.95", "0.01", 201)
	d.refresh("SPOT_ETH_USDT") // the store knows only this one
	d.place("SPOT_SOL_USDT", venue.Buy, "0.95", "0.1", 202)
	d.place("SPOT_XRP_USDT", venue.Sell, "0.95", "10", 203)
	d.focus = Focus{Symbol: "SPOT_ETH_USDT"}
	d.key("X")
	cf := d.Top().(*confirm.Model)
	if !cf.Strong() {
		t.Fatal("panic cancel not strong")
	}
	d.clk.Advance(time.Second)
	d.key("enter")
	if len(d.Dialogs) != 1 {
		t.Fatal("enter confirmed the panic cancel")
	}
	d.key("y")
	for _, cid := range []int64{201, 202, 203} {
		if got := d.orderByCID(cid); got.Status != venue.StatusCancelled {
			t.Errorf("order %d is %s after panic", cid, got.Status)
		}
	}
	if !strings.Contains(d.LastNotice(), "panic cancel on 3 symbol(s): cancel sent") {
		t.Fatalf("notice %q", d.LastNotice())
	}
}

// Read-only: every trading entry point refuses with a notice and opens
// nothing; the account screen stays readable, its changes refused.
func TestReadOnlyRefuses(t *testing.T) {
	d := newDesk(t, TraderOptions{ReadOnly: "--read-only"})
	d.refresh("SPOT_ETH_USDT") // keys exist, but read-only was asked for
	d.focus = Focus{Symbol: "SPOT_ETH_USDT", Selected: &feed.Order{OrderID: 1, Symbol: "SPOT_ETH_USDT"}}
	d.c.Keys.SetTradingEnabled(false)
	for _, k := range []string{"b", "s", "c", "C", "X"} {
		d.Notices = nil
		d.key(k)
		if len(d.Dialogs) != 0 || !strings.Contains(d.LastNotice(), "disabled: --read-only") {
			t.Errorf("key %s in read-only: stack %d, notice %q", k, len(d.Dialogs), d.LastNotice())
		}
	}
	for _, line := range []string{"buy", "sell SPOT_ETH_USDT 100", "cancel cid 5", "cancel all", "panic"} {
		d.Notices = nil
		f := strings.Fields(line)
		cmd, ok := d.tr.HandleCommand(d.c, f[0], f[1:], d.focus)
		d.Run(cmd)
		if !ok || len(d.Dialogs) != 0 || !strings.Contains(d.LastNotice(), "disabled") {
			t.Errorf(":%s in read-only: stack %d, notice %q", line, len(d.Dialogs), d.LastNotice())
		}
	}
	// A SubmitMsg that somehow arrives is refused too.
	d.Notices = nil
	d.Deliver(orderform.SubmitMsg{Order: trade.Order{Symbol: "SPOT_ETH_USDT", Side: trade.Buy, Type: trade.Market, Quantity: decimal.NewFromInt(1)}})
	if len(d.Dialogs) != 0 || len(d.pending.orders) != 0 {
		t.Fatal("read-only submit went through")
	}
	// The account screen opens; its changes are refused.
	d.key("A")
	acct, ok := d.Top().(*account.Model)
	if !ok {
		t.Fatalf("A opened %T", d.Top())
	}
	for _, k := range []string{"m", "l", "p", "t"} {
		d.Notices = nil
		d.key(k)
		if d.Top() != common.Dialog(acct) || !strings.Contains(d.LastNotice(), "account changes are disabled") {
			t.Errorf("account key %s in read-only: top %T notice %q", k, d.Top(), d.LastNotice())
		}
	}
	if strings.Contains(acct.View(), "m mode") {
		t.Error("read-only account screen shows the mode change")
	}
}

// Without keys the Trader is read-only on its own.
func TestNoKeysIsReadOnly(t *testing.T) {
	tr := NewTrader(TraderOptions{})
	if !tr.ReadOnly() {
		t.Fatal("no client, not read-only")
	}
	msgs := cmdtest.Run(tr.OpenOrderForm(common.Common{}, "SPOT_BTC_USDT", trade.Buy, decimal.Zero))
	n, _ := cmdtest.Find[common.NoticeMsg](msgs)
	if !strings.Contains(n.Text, "no API keys") {
		t.Fatalf("notice %q", n.Text)
	}
}

// rootWith builds the real root model with its trader on a desk (nil:
// no keys).
func rootWith(t *testing.T, d *desk.Desk, readOnly string, threshold decimal.Decimal) *Model {
	t.Helper()
	th, _ := theme.New("dark", false)
	m := New(Options{Venue: "SIM", Symbol: "SPOT_ETH_USDT", Watchlist: []string{"SPOT_ETH_USDT"}, Theme: th,
		Keys: panetest.Keys(), Desk: d, ReadOnly: readOnly, ConfirmNotional: threshold, Now: panetest.Clock})
	m.Update(tea.WindowSizeMsg{Width: 200, Height: 50})
	return m
}

// Through the root: a clicked book level prefills the next form, :buy
// takes a symbol and a price, the help lists the trading keys.
func TestHookInTheRootModel(t *testing.T) {
	inst := simtest.Start(t, sim.Options{Seed: 6, NoRateLimits: true, Living: sim.LivingOptions{NoMarket: true}})
	client := venue.NewClient(inst.Endpoints, inst.Credentials, venue.WithLimiter(nil))
	m := rootWith(t, deskOn(t, client, nil), "", decimal.NewFromInt(2500))
	if got := m.trader.opts.ConfirmNotional; !got.Equal(decimal.NewFromInt(2500)) {
		t.Fatalf("threshold %s", got)
	}
	m.Update(common.UsePriceMsg{Symbol: "SPOT_ETH_USDT", Side: feed.Buy, Price: decimal.RequireFromString("3333.3")})
	_, cmd := m.Update(cmdtest.Key("b"))
	open, ok := cmdtest.Find[common.OpenDialogMsg](cmdtest.Run(cmd))
	if !ok {
		t.Fatal("b opened nothing")
	}
	form := open.Dialog.(*orderform.Form)
	if p := form.Order().Price; !p.Equal(decimal.RequireFromString("3333.3")) {
		t.Fatalf("clicked price not taken: %s", p)
	}
	cmd = m.Run("buy SPOT_SOL_USDT 150.5")
	open, ok = cmdtest.Find[common.OpenDialogMsg](cmdtest.Run(cmd))
	if !ok || open.Dialog.(*orderform.Form).Symbol() != "SPOT_SOL_USDT" || !open.Dialog.(*orderform.Form).Order().Price.Equal(decimal.RequireFromString("150.5")) {
		t.Fatalf(":buy SYMBOL PRICE: %+v", open)
	}
	if _, ok := cmdtest.Find[common.OpenDialogMsg](cmdtest.Run(m.Run("account"))); !ok {
		t.Fatal(":account opened nothing")
	}
	foot := footKeys(m)
	for _, want := range []string{"b", "s", "C", "X", "A"} {
		if !foot[want] {
			t.Errorf("footer lacks %q: %v", want, foot)
		}
	}
	// c cancels the selected open order: offered only while one is
	// selected (issue 29)
	if foot["c"] {
		t.Errorf("footer offers c with no order selected: %v", foot)
	}
	m.Update(&feed.Update{Account: &feed.Account{Version: 1, Open: []feed.Order{
		{OrderID: 7, Symbol: "SPOT_ETH_USDT", Side: "BUY", Type: "LIMIT", Status: "NEW"}}}})
	m.Update(cmdtest.Key("5"))
	m.Update(cmdtest.Key("]")) // the Open orders tab: its first row is selected
	if foot := footKeys(m); !foot["c"] {
		t.Errorf("footer lacks c with an order selected: %v", foot)
	}
}

// Read-only through the root: the trading keys are gone from the help and
// refused with the reason the dashboard gave.
func TestReadOnlyRootHidesTrading(t *testing.T) {
	m := rootWith(t, nil, "SSH viewer", decimal.Zero)
	foot := footKeys(m)
	if !foot["q"] {
		t.Fatalf("footer not read: %v", foot)
	}
	for _, gone := range []string{"b", "s", "c", "C", "X", "A"} {
		if foot[gone] {
			t.Errorf("read-only footer shows %q: %v", gone, foot)
		}
	}
	_, cmd := m.Update(cmdtest.Key("b"))
	n, ok := cmdtest.Find[common.NoticeMsg](cmdtest.Run(cmd))
	if !ok || !strings.Contains(n.Text, "disabled: SSH viewer") {
		t.Fatalf("b in read-only: %+v", n)
	}
}

// footKeys is the set of words of the help footer (the test keymap has
// keys without descriptions).
func footKeys(m *Model) map[string]bool {
	lines := strings.Split(strings.TrimRight(ansi.Strip(m.Render()), "\n"), "\n")
	out := map[string]bool{}
	for _, w := range strings.Fields(lines[len(lines)-1]) {
		out[w] = true
	}
	return out
}

// rejectLog also ends pending orders (the optional PendingRejecter).
type rejectLog struct {
	pendingLog
	rejected map[int64]string
}

func (r *rejectLog) RejectPending(cid int64, reason string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.rejected[cid] = reason
}

// The venue's internal errors (-1011, -1012, injected in front of its
// order endpoint) are shown with code, name and meaning and say a retry
// after a few seconds may work; the pending order is ended at once.
func TestRPCErrorsSayRetry(t *testing.T) {
	codes := []int{-1011, -1012}
	var mu sync.Mutex
	inject := func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			mu.Lock()
			defer mu.Unlock()
			if r.Method == http.MethodPost && r.URL.Path == "/v1/order" && len(codes) > 0 {
				code := codes[0]
				codes = codes[1:]
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(http.StatusBadRequest)
				fmt.Fprintf(w, `{"success":false,"code":%d,"message":"internal module unavailable"}`, code)
				return
			}
			next.ServeHTTP(w, r)
		})
	}
	inst := simtest.Start(t, sim.Options{Seed: 8, NoRateLimits: true, Middleware: []func(http.Handler) http.Handler{inject},
		Living: sim.LivingOptions{NoMarket: true}})
	client := venue.NewClient(inst.Endpoints, inst.Credentials, venue.WithLimiter(nil))
	rl := &rejectLog{rejected: map[int64]string{}}
	tr := NewTrader(TraderOptions{Desk: deskOn(t, client, rl)})
	ob, _ := client.OrderBook(context.Background(), "SPOT_ETH_USDT", 1)
	o := trade.Order{Symbol: "SPOT_ETH_USDT", Side: trade.Buy, Type: trade.Limit, Price: ob.Bids[0].Price,
		Quantity: decimal.RequireFromString("0.01")}
	for i, want := range []string{"-1011 RPC_NOT_CONNECT", "-1012 RPC_REJECT"} {
		o.ClientOrderID = int64(700 + i)
		res := tr.send(o)().(OrderResultMsg)
		cmd, _ := tr.Update(common.Common{}, res)
		n, _ := cmdtest.Find[common.NoticeMsg](cmdtest.Run(cmd))
		if !strings.Contains(n.Text, want) || !strings.Contains(n.Text, "retry after a few seconds") {
			t.Errorf("notice %q, want %s and the retry hint", n.Text, want)
		}
		if _, ok := rl.rejected[o.ClientOrderID]; !ok {
			t.Errorf("pending order %d not ended", o.ClientOrderID)
		}
	}
	o.ClientOrderID = 702 // the venue is back
	if res := tr.send(o)().(OrderResultMsg); res.Err != nil {
		t.Fatal(res.Err)
	}
	if _, ok := rl.rejected[702]; ok {
		t.Fatal("an accepted order was rejected")
	}
}
