package ui

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"tradedeck/feed"
	"tradedeck/panes/confirm"
	"tradedeck/panes/confirm/cmdtest"
	"tradedeck/panes/orderform"
	"tradedeck/trade"
	"tradedeck/venue"
)

const (
	perpETH = "PERP_ETH_USDT"
	perpBTC = "PERP_BTC_USDT"
)

// market trades directly through REST (setup: opens a position).
func (l *live) market(sym string, side venue.Side, qty string) {
	l.t.Helper()
	if _, err := l.client.SendOrder(context.Background(), venue.OrderRequest{Symbol: sym, Type: venue.Market,
		Side: side, Quantity: decimal.RequireFromString(qty)}); err != nil {
		l.t.Fatalf("%s %s %s: %v", side, qty, sym, err)
	}
}

// withPositions loads the account from REST, positions included, as the
// feed would.
func (l *live) withPositions() {
	l.t.Helper()
	d := &tdesk{t: l.t, client: l.client, c: l.m.Common(), Stack: &cmdtest.Stack{}}
	d.refresh(gateSymbol, perpETH, perpBTC)
	ps, err := l.client.Positions(context.Background())
	if err != nil {
		l.t.Fatal(err)
	}
	a := l.m.store.Account
	for _, p := range ps.Positions {
		a.Positions = append(a.Positions, feed.Position{Symbol: p.Symbol, Holding: p.Holding})
	}
	l.deliver(&feed.Update{Account: a})
}

func (l *live) holding(sym string) decimal.Decimal {
	l.t.Helper()
	p, err := l.client.Position(context.Background(), sym)
	if err != nil {
		l.t.Fatal(err)
	}
	return p.Holding
}

// lastOrder is the venue's latest order on a symbol.
func (l *live) lastOrder(sym string) venue.Order {
	l.t.Helper()
	os, _, err := l.client.ListOrders(context.Background(), venue.OrderFilter{Symbol: sym})
	if err != nil || len(os) == 0 {
		l.t.Fatalf("orders of %s: %v %v", sym, os, err)
	}
	last := os[0]
	for _, o := range os {
		if o.OrderID.Int64() > last.OrderID.Int64() {
			last = o
		}
	}
	return last
}

func (l *live) noticed(part string) func() bool {
	return func() bool { return strings.Contains(strings.Join(l.notices, "|"), part) }
}

// command types a ':' command line and runs it.
func (l *live) command(line string) {
	l.keys(":")
	l.typeText(line)
	l.key("enter")
}

// confirmWith walks past the confirmation's grace and accepts it.
func (l *live) confirmWith(k string) {
	l.t.Helper()
	l.until("the confirmation", topIs[*confirm.Model](l))
	l.clk.Advance(time.Second)
	l.key(k)
}

// x on a long perpetual position, MARKET: the position is zero, and the
// venue recorded a reduce-only SELL.
func TestClosePositionByKey(t *testing.T) {
	l := newLive(t, 120, 40, false)
	l.market(perpETH, venue.Buy, "1.5")
	l.withPositions()
	l.keys("5", "x")
	l.until("the close choice", topIs[*closeChoice](l))
	if sc := l.screen(); !strings.Contains(sc, "[m] MARKET") || !strings.Contains(sc, "position 1.5") {
		t.Fatalf("close choice:\n%s", sc)
	}
	l.key("m")
	l.until("the confirmation", topIs[*confirm.Model](l))
	if c := l.top().(*confirm.Model); !c.Strong() {
		t.Fatal("a MARKET close without the strong confirmation")
	}
	l.confirmWith("y")
	l.until("the close's notice", l.noticed("close "+perpETH+": order sent: SELL MARKET 1.5 ETH "+perpETH+" reduce-only"))
	if h := l.holding(perpETH); !h.IsZero() {
		t.Fatalf("position %s after the close", h)
	}
	if o := l.lastOrder(perpETH); !bool(o.ReduceOnly) || o.Side != venue.Sell || o.Type != venue.Market {
		t.Fatalf("the venue's close order %+v", o)
	}
}

// :close SYM 50 halves a short position with a reduce-only BUY.
func TestCloseCommandPercent(t *testing.T) {
	l := newLive(t, 120, 40, false)
	l.market(perpETH, venue.Sell, "2")
	l.withPositions()
	l.command("close " + perpETH + " 50")
	l.until("the close choice", topIs[*closeChoice](l))
	l.key("m")
	l.confirmWith("y")
	l.until("the close's notice", l.noticed("BUY MARKET 1 ETH "+perpETH+" reduce-only"))
	if h := l.holding(perpETH); !h.Equal(decimal.NewFromInt(-1)) {
		t.Fatalf("position %s after closing 50%% of -2", h)
	}
	if o := l.lastOrder(perpETH); !bool(o.ReduceOnly) || o.Side != venue.Buy {
		t.Fatalf("the venue's close order %+v", o)
	}
}

// :flatten closes a long and a short after the strong confirmation;
// each order has its notice.
func TestFlattenCommand(t *testing.T) {
	l := newLive(t, 120, 40, false)
	l.market(perpETH, venue.Buy, "1")
	l.market(perpBTC, venue.Sell, "0.01")
	l.withPositions()
	l.command("flatten")
	l.until("the confirmation", topIs[*confirm.Model](l))
	c := l.top().(*confirm.Model)
	if sc := l.screen(); !c.Strong() || !strings.Contains(sc, "FLATTEN") || !strings.Contains(sc, "BUY MARKET 0.01 BTC "+perpBTC+" reduce-only") {
		t.Fatalf("flatten confirmation (strong %v):\n%s", c.Strong(), sc)
	}
	l.clk.Advance(time.Second)
	l.key("enter") // the strong confirmation takes only y
	if _, ok := l.top().(*confirm.Model); !ok {
		t.Fatal("enter accepted the strong confirmation")
	}
	l.key("y")
	l.until("both notices", func() bool {
		return l.noticed("flatten: order sent: SELL MARKET 1 ETH "+perpETH)() && l.noticed("flatten: order sent: BUY MARKET 0.01 BTC "+perpBTC)()
	})
	for _, sym := range []string{perpETH, perpBTC} {
		if h := l.holding(sym); !h.IsZero() {
			t.Errorf("%s: %s after flatten", sym, h)
		}
		if o := l.lastOrder(sym); !bool(o.ReduceOnly) {
			t.Errorf("%s: flatten order not reduce-only: %+v", sym, o)
		}
	}
}

// A spot close sells the free base balance: LIMIT at the best ask, a
// plain SELL (not reduce-only), resting.
func TestSpotCloseLimit(t *testing.T) {
	l := newLive(t, 120, 40, false)
	l.market(gateSymbol, venue.Buy, "2")
	l.refresh()
	free := holding(l.m.store, gateSymbol)
	rule, err := l.client.SymbolRule(context.Background(), gateSymbol)
	if err != nil || !free.IsPositive() {
		t.Fatalf("rule %v, free ETH %s", err, free)
	}
	want := trade.RuleOf(rule).AlignQty(free, trade.Down)
	ask := orderform.BestOf(l.m.store, gateSymbol).BestAsk
	l.command("close " + gateSymbol)
	l.until("the close choice", topIs[*closeChoice](l))
	l.key("l")
	l.until("the confirmation", topIs[*confirm.Model](l))
	if c := l.top().(*confirm.Model); c.Strong() {
		t.Fatal("a LIMIT close got the strong confirmation")
	}
	l.confirmWith("enter")
	l.until("the close's notice", l.noticed("close "+gateSymbol+": order sent: SELL LIMIT "+want.String()))
	o := l.lastOrder(gateSymbol)
	if bool(o.ReduceOnly) || o.Side != venue.Sell || !o.Price.Decimal.Equal(ask) || !o.Quantity.Decimal.Equal(want) || !o.Status.Open() {
		t.Fatalf("spot close %+v; want SELL %s @ %s resting", o, want, ask)
	}
}

// enter on an open order opens the form on it; a new price confirmed
// cancels the old order and places the new one: one order rests, at the
// new price, and one notice tells both halves.
func TestAmendPriceByEnter(t *testing.T) {
	l := newLive(t, 120, 40, false)
	l.rest()
	old := l.m.store.Account.Open[0]
	l.keys("5", "]", "enter")
	l.until("the amend form", topIs[*orderform.Form](l))
	if sc := l.screen(); !strings.Contains(sc, fmt.Sprintf("Amend order %d", old.OrderID)) {
		t.Fatalf("amend form:\n%s", sc)
	}
	l.until("the rule", func() bool { f, ok := l.top().(*orderform.Form); return ok && f.Valid() })
	rule, _ := l.m.trader.opts.Desk.Rule(gateSymbol)
	want := rule.StepPrice(old.Price, 3)
	l.keys("shift+tab", "up", "up", "up")
	if f := l.top().(*orderform.Form); !f.Valid() || !f.Order().Price.Equal(want) || !f.Order().Quantity.Equal(old.Quantity) {
		t.Fatalf("form order %+v valid %v problems %v; want price %s", f.Order(), f.Valid(), f.Problems(), want)
	}
	l.key("enter")
	l.until("the amend confirmation", topIs[*confirm.Model](l))
	if sc := l.screen(); !strings.Contains(sc, "never doubled") {
		t.Fatalf("amend confirmation:\n%s", sc)
	}
	l.confirmWith("enter")
	l.until("the amend notice", l.noticed(fmt.Sprintf("order %d amend: old order CANCELLED; new order #", old.OrderID)))
	open, _, err := l.client.ListOrders(context.Background(), venue.OrderFilter{Status: venue.StatusIncomplete})
	if err != nil {
		t.Fatal(err)
	}
	if len(open) != 1 || open[0].OrderID.Int64() == old.OrderID || !open[0].Price.Decimal.Equal(want) || !open[0].Quantity.Decimal.Equal(old.Quantity) {
		t.Fatalf("open after the amend %+v; want one at %s", open, want)
	}
	if g, err := l.client.GetOrder(context.Background(), old.OrderID); err != nil || g.Status != venue.StatusCancelled {
		t.Fatalf("old order %+v %v", g, err)
	}
	if len(l.m.dialogs) != 0 {
		t.Fatalf("%d dialog(s) left open", len(l.m.dialogs))
	}
}

// An amend that changes nothing sends nothing.
func TestAmendUnchangedSendsNothing(t *testing.T) {
	l := newLive(t, 120, 40, false)
	l.rest()
	l.keys("5", "]", "enter")
	l.until("the rule", func() bool { f, ok := l.top().(*orderform.Form); return ok && f.Valid() })
	l.key("enter")
	l.until("the notice", l.noticed("nothing changed"))
	if n := l.openOrders(); n != 1 {
		t.Fatalf("%d open orders", n)
	}
}

// movePaths are the moves as gate paths (gate_test.go): each in every
// state of the screen, read-only included.
func movePaths() []path {
	confirmShown := func(l *live) bool { return topIs[*confirm.Model](l)() }
	choiceShown := func(l *live) bool { return topIs[*closeChoice](l)() }
	positions := func(l *live) string { return fmt.Sprint(l.holding(perpETH), " ", l.holding(perpBTC)) }
	long := func(l *live) {
		l.market(perpETH, venue.Buy, "1")
		l.market(perpBTC, venue.Sell, "0.01")
		l.withPositions()
	}
	openOrders := func(l *live) string {
		os, _, err := l.client.ListOrders(context.Background(), venue.OrderFilter{Status: venue.StatusIncomplete})
		if err != nil {
			l.t.Fatal(err)
		}
		s := ""
		for _, o := range os {
			s += fmt.Sprint(o.OrderID, "@", o.Price, " ")
		}
		return s
	}
	formValid := func(l *live) bool { f, ok := l.top().(*orderform.Form); return ok && f.Valid() }
	return []path{
		{name: "x close", setup: long, state: positions, stages: []stage{{[]string{"5", "x"}, choiceShown}, {[]string{"m"}, confirmShown}}},
		{name: ":close", setup: long, state: positions, stages: []stage{
			{append(chars(":close "+perpETH+" 50"), "enter"), choiceShown}, {[]string{"m"}, confirmShown}}},
		{name: ":flatten", setup: long, state: positions, stages: []stage{{append(chars(":flatten"), "enter"), confirmShown}}},
		{name: "enter amend", setup: (*live).rest, state: openOrders, stages: []stage{
			{[]string{"5", "]", "enter"}, formValid}, {[]string{"shift+tab", "up", "enter"}, confirmShown}}},
	}
}

// In read-only mode every move is refused with the reason, opens no
// dialog and changes nothing on the venue; help and completion leave
// the moves out.
func TestMovesReadOnly(t *testing.T) {
	l := newLive(t, 120, 40, true)
	l.market(perpETH, venue.Buy, "1")
	l.rest()
	l.withPositions()
	for _, c := range []struct {
		name string
		keys []string
		why  string
	}{
		{"x", []string{"5", "x"}, "closing positions is disabled: --read-only"},
		{":close", append(chars(":close "+perpETH+" 50"), "enter"), "closing positions is disabled: --read-only"},
		{":flatten", append(chars(":flatten"), "enter"), "flattening is disabled: --read-only"},
		{"enter", []string{"5", "]", "enter"}, "amending orders is disabled: --read-only"},
	} {
		l.notices = nil
		l.keys(c.keys...)
		l.until(c.name+" refused", l.noticed(c.why))
		if len(l.m.dialogs) != 0 {
			t.Fatalf("%s: read-only opened %T", c.name, l.top())
		}
		l.keys("[", "[", "esc")
	}
	if h := l.holding(perpETH); !h.Equal(decimal.NewFromInt(1)) || l.openOrders() != 1 {
		t.Fatalf("read-only changed the venue: position %s, %d open orders", h, l.openOrders())
	}
	for _, s := range append(l.m.suggestions(), l.m.trader.Commands()...) {
		if strings.HasPrefix(s, "close") || s == "flatten" {
			t.Fatalf("read-only offers %q", s)
		}
	}
	rw := newLive(t, 120, 40, false)
	if got := strings.Join(rw.m.trader.Commands(), "|"); !strings.Contains(got, "close [SYMBOL] [PERCENT]") || !strings.Contains(got, "flatten") {
		t.Fatalf("help commands %q", got)
	}
	if got := "|" + strings.Join(rw.m.suggestions(), "|") + "|"; !strings.Contains(got, "|close "+gateSymbol+"|") || !strings.Contains(got, "|flatten|") {
		t.Fatalf("completions lack close/flatten: %q", got)
	}
}

// When the old order is gone before the amend is accepted, the cancel
// fails and nothing new is sent: no order rests, one notice says why.
func TestAmendCancelFailsSendsNothing(t *testing.T) {
	l := newLive(t, 120, 40, false)
	l.rest()
	old := l.m.store.Account.Open[0]
	l.keys("5", "]", "enter")
	l.until("the rule", func() bool { f, ok := l.top().(*orderform.Form); return ok && f.Valid() })
	l.keys("shift+tab", "up", "enter")
	l.until("the amend confirmation", topIs[*confirm.Model](l))
	if err := l.client.CancelOrder(context.Background(), gateSymbol, old.OrderID); err != nil {
		t.Fatal(err)
	}
	l.confirmWith("y")
	l.until("the amend notice", l.noticed(fmt.Sprintf("order %d amend:", old.OrderID)))
	if n := l.openOrders(); n != 0 {
		t.Fatalf("%d open orders after a failed amend; notices %q", n, l.notices)
	}
	if got := strings.Join(l.notices, "|"); !strings.Contains(got, "cancel failed") || !strings.Contains(got, "no new order sent") {
		t.Fatalf("notices %q", got)
	}
}

// Amending a reduce-only order (a LIMIT close) keeps it reduce-only: the

// amendingAClose closes a long perpetual position with a reduce-only
// LIMIT (x, l) and opens that order in the amend form (enter on Open
// orders): what the reduce-only amend tests start from.
func amendingAClose(t *testing.T) (*live, venue.Order) {
	t.Helper()
	l := newLive(t, 120, 40, false)
	l.market(perpETH, venue.Buy, "1")
	l.withPositions()
	l.command("close " + perpETH)
	l.until("the close choice", topIs[*closeChoice](l))
	l.key("l")
	l.confirmWith("enter")
	l.until("the close's notice", l.noticed("close "+perpETH+": order sent: SELL LIMIT 1 ETH"))
	closeOrder := l.lastOrder(perpETH)
	l.withPositions()
	l.keys("5", "]", "enter")
	l.until("the amend form", func() bool { f, ok := l.top().(*orderform.Form); return ok && f.Valid() })
	return l, closeOrder
}

// form reads the order from the venue, since the stream does not say.
func TestAmendKeepsReduceOnly(t *testing.T) {
	l, closeOrder := amendingAClose(t)
	if f := l.top().(*orderform.Form); !f.Order().ReduceOnly || !f.Order().Price.Equal(closeOrder.Price.Decimal) {
		t.Fatalf("amend form of a reduce-only close: %+v", f.Order())
	}
	l.keys("shift+tab", "up", "enter")
	l.confirmWith("y")
	l.until("the amend notice", l.noticed(fmt.Sprintf("order %d amend: old order CANCELLED; new order #", closeOrder.OrderID.Int64())))
	if o := l.lastOrder(perpETH); o.OrderID == closeOrder.OrderID || !bool(o.ReduceOnly) || !o.Status.Open() || !o.Price.Decimal.GreaterThan(closeOrder.Price.Decimal) {
		t.Fatalf("amended close %+v (was %+v)", o, closeOrder)
	}
}

// A reduce-only change alone is an amend: the confirmation names both
// flags and the replacement goes out without reduce-only.
func TestAmendReduceOnlyAlone(t *testing.T) {
	l, closeOrder := amendingAClose(t)
	l.keys("tab", "tab", "space") // quantity -> visible -> reduce only, toggled off
	if f := l.top().(*orderform.Form); f.Order().ReduceOnly {
		t.Fatalf("reduce-only still on after its toggle: %+v", f.Order())
	}
	l.key("enter")
	l.until("the amend confirmation", topIs[*confirm.Model](l))
	if sc := l.screen(); !strings.Contains(sc, " reduce-only,") {
		t.Fatalf("the confirmation does not say the old order was reduce-only:\n%s", sc)
	}
	l.confirmWith("y")
	l.until("the amend notice", l.noticed(fmt.Sprintf("order %d amend: old order CANCELLED; new order #", closeOrder.OrderID.Int64())))
	if o := l.lastOrder(perpETH); o.OrderID == closeOrder.OrderID || bool(o.ReduceOnly) || !o.Price.Decimal.Equal(closeOrder.Price.Decimal) {
		t.Fatalf("amended order %+v (was %+v): want the same price without reduce-only", o, closeOrder)
	}
}
