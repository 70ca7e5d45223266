package orderform

import (
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/shopspring/decimal"

	"tradedeck/feed"
	"tradedeck/panes/common"
	"tradedeck/panes/confirm/cmdtest"
	"tradedeck/theme"
	"tradedeck/trade"
	"tradedeck/venue"
)

func d(s string) decimal.Decimal { return decimal.RequireFromString(s) }

// The simulator's SPOT_BTC_USDT rule.
var btc = trade.Rule{Symbol: "SPOT_BTC_USDT", QuoteMin: d("1"), QuoteMax: d("500000"), QuoteTick: d("0.01"),
	BaseMin: d("0.00001"), BaseMax: d("50"), BaseTick: d("0.00001"), MinNotional: d("1"), PriceRange: d("0.1")}

func store() *common.Store {
	s := common.NewStore()
	s.Books["SPOT_BTC_USDT"] = &feed.Book{Symbol: "SPOT_BTC_USDT", Scale: feed.Scale{PriceDec: 2, QtyDec: 5}, State: feed.Live,
		Bids: []feed.Level{{Price: 9700000, Qty: 100000}}, Asks: []feed.Level{{Price: 9700100, Qty: 50000}}}
	s.Account = &feed.Account{
		Margin:   feed.Margin{Mode: "PURE_SPOT", MakerFeeRate: d("2"), TakerFeeRate: d("5")},
		Balances: []feed.Balance{{Token: "USDT", Holding: d("10000")}, {Token: "BTC", Holding: d("0.1")}},
		Open:     []feed.Order{{ClientOrderID: 42, Symbol: "SPOT_BTC_USDT", Status: "NEW"}},
	}
	return s
}

func newForm(t testing.TB, side trade.Side) *Form {
	t.Helper()
	return formWith(t, Options{Side: side, IDs: trade.NewClientIDsFrom(1_000_000_001)}, 120, 40)
}

// formWith opens a SPOT_BTC_USDT form with the simulator's rule on the
// sample store, w x h.
func formWith(t testing.TB, o Options, w, h int) *Form {
	t.Helper()
	th, err := theme.New("dark", false)
	if err != nil {
		t.Fatal(err)
	}
	c := common.Common{Theme: th, Store: store(), Now: func() time.Time { return time.Unix(1_700_000_000, 0) }}
	rule := btc
	o.Symbol, o.Rule = "SPOT_BTC_USDT", &rule
	f := New(c, o)
	f.SetSize(w, h)
	return f
}

// press sends named keys (see cmdtest.Key) or types text.
func press(f *Form, keys ...string) []tea.Msg {
	var out []tea.Msg
	for _, k := range keys {
		msgs := []tea.KeyPressMsg{cmdtest.Key(k)}
		if len([]rune(k)) > 1 && msgs[0].Code == []rune(k)[0] { // not a name: text
			msgs = msgs[:0]
			for _, r := range k {
				msgs = append(msgs, tea.KeyPressMsg{Code: r, Text: string(r)})
			}
		}
		for _, m := range msgs {
			_, cmd := f.Update(m)
			out = append(out, cmdtest.Run(cmd)...)
		}
	}
	return out
}

func clear(f *Form) {
	for range 30 {
		press(f, "backspace")
	}
}

func TestPrefillAndTickStepping(t *testing.T) {
	f := newForm(t, trade.Buy)
	if got := f.inputs[rowPrice].Value(); got != "97000.00" {
		t.Fatalf("BUY prefilled with %q, want the best bid 97000.00", got)
	}
	if got := f.inputs[rowCID].Value(); got == "" || got == "42" {
		t.Fatalf("client id %q", got)
	}
	press(f, "shift+tab") // quantity -> price
	press(f, "up", "up", "up")
	if got := f.inputs[rowPrice].Value(); got != "97000.03" {
		t.Fatalf("after 3 ticks up: %q", got)
	}
	press(f, "down")
	if got := f.inputs[rowPrice].Value(); got != "97000.02" {
		t.Fatalf("after a tick down: %q", got)
	}
	press(f, "]")
	if got := f.inputs[rowPrice].Value(); got != "97001.00" {
		t.Fatalf("] should take the best ask: %q", got)
	}
	// A clicked book level sets the price.
	f.Update(common.UsePriceMsg{Symbol: "SPOT_BTC_USDT", Side: feed.Sell, Price: d("96950.5")})
	if got := f.inputs[rowPrice].Value(); got != "96950.50" {
		t.Fatalf("clicked level: %q", got)
	}
	s := newForm(t, trade.Sell)
	if got := s.inputs[rowPrice].Value(); got != "97001.00" {
		t.Fatalf("SELL prefilled with %q, want the best ask", got)
	}
}

func TestSubmitDisabledWhileInvalid(t *testing.T) {
	f := newForm(t, trade.Buy)
	press(f, "0.000123") // off the 0.00001 step
	if f.Valid() {
		t.Fatal("invalid quantity accepted")
	}
	view := ansi.Strip(f.View())
	if msg := f.fieldMessage(rowQty); msg != "size filter: quantity must be a multiple of step 0.00001 from 0.00001: nearest 0.00012" ||
		!strings.Contains(view, "size filter: quantity must be") || !strings.Contains(view, "nearest 0.00012") {
		t.Fatalf("no size filter message %q:\n%s", msg, view)
	}
	if !strings.Contains(view, "available 10000 USDT · 0.1 BTC · PURE_SPOT account") {
		t.Fatalf("no available line:\n%s", view)
	}
	if !strings.Contains(view, "disabled") {
		t.Fatalf("submit not shown disabled:\n%s", view)
	}
	if msgs := press(f, "enter"); len(msgs) != 0 {
		t.Fatalf("enter on an invalid order emitted %v", msgs)
	}
	if !strings.Contains(f.hint, "not sent") {
		t.Fatalf("hint %q", f.hint)
	}
	press(f, "=") // take the nearest valid value
	if got := f.inputs[rowQty].Value(); got != "0.00012" {
		t.Fatalf("nearest applied: %q", got)
	}
	msgs := press(f, "enter")
	sub, ok := cmdtest.Find[SubmitMsg](msgs)
	if !ok {
		t.Fatalf("valid order not submitted: %v (problems %v)", msgs, f.Problems())
	}
	o := sub.Order
	if o.Side != trade.Buy || o.Type != trade.Limit || !o.Price.Equal(d("97000")) || !o.Quantity.Equal(d("0.00012")) || o.ClientOrderID == 0 {
		t.Fatalf("submitted %+v", o)
	}
	if !strings.Contains(sub.Preview.String(), "notional 11.64 USDT") {
		t.Fatalf("preview %q", sub.Preview)
	}
}

func TestEveryRuleShownWhileTyping(t *testing.T) {
	f := newForm(t, trade.Buy)
	cases := []struct {
		field, text string
		code        venue.Code
	}{
		{"price", "97000.001", venue.CodePriceFilter},
		{"price", "0.5", venue.CodePriceFilter},
		{"price", "200000", venue.CodePercentageFilter},
		{"qty", "0.000001", venue.CodeSizeFilter},
		{"qty", "51", venue.CodeSizeFilter},
		{"qty", "0.00001", venue.CodeMinNotional},
		{"qty", "0.5", venue.CodeRiskTooHigh},
	}
	for _, c := range cases {
		f.focusRow(rowQty)
		clear(f)
		press(f, "0.001")
		f.focusRow(rowPrice)
		clear(f)
		press(f, "97000")
		if c.field == "price" {
			clear(f)
		} else {
			f.focusRow(rowQty)
			clear(f)
		}
		press(f, c.text)
		if f.Valid() || len(f.Problems()) == 0 {
			t.Errorf("%s %s accepted", c.field, c.text)
			continue
		}
		if got := f.Problems()[0].Code; got != c.code {
			t.Errorf("%s %s: code %d, want %d (%v)", c.field, c.text, got, c.code, f.Problems())
		}
	}
}

func TestTypesAndExclusiveSize(t *testing.T) {
	f := newForm(t, trade.Buy)
	press(f, "0.001")
	f.focusRow(rowType)
	press(f, "right") // MARKET
	if f.typ != trade.Market {
		t.Fatalf("type %s", f.typ)
	}
	for _, r := range f.rows() {
		if r == rowPrice || r == rowVisible {
			t.Fatalf("MARKET shows row %s", r.label())
		}
	}
	f.focusRow(rowAmount)
	press(f, "100")
	if f.inputs[rowQty].Value() != "" {
		t.Fatal("amount did not clear quantity")
	}
	sub, ok := cmdtest.Find[SubmitMsg](press(f, "enter"))
	if !ok || !sub.Order.Amount.Equal(d("100")) || !sub.Order.Quantity.IsZero() || !sub.Order.Price.IsZero() {
		t.Fatalf("market by amount: %+v %v", sub, f.Problems())
	}
	f.focusRow(rowType)
	press(f, "right", "right", "right", "right") // IOC FOK POST_ONLY ASK
	if f.typ != trade.Ask {
		t.Fatalf("type %s", f.typ)
	}
	f.focusRow(rowQty)
	press(f, "0.001")
	sub, ok = cmdtest.Find[SubmitMsg](press(f, "enter"))
	if !ok || !sub.Order.Price.Equal(d("97001")) {
		t.Fatalf("ASK should carry the best ask as its price: %+v %v", sub.Order, f.Problems())
	}
	if !strings.Contains(ansi.Strip(f.View()), "price set by the venue: best ask (now 97001)") {
		t.Fatalf("view:\n%s", ansi.Strip(f.View()))
	}
	f.focusRow(rowType)
	press(f, "right", "right") // BID, LIMIT: the amount row goes away
	if f.typ != trade.Limit || f.inputs[rowAmount].Value() != "" {
		t.Fatalf("type %s amount %q", f.typ, f.inputs[rowAmount].Value())
	}
}

func TestNumericFieldsRefuseLetters(t *testing.T) {
	f := newForm(t, trade.Buy)
	press(f, "1x")
	if got := f.inputs[rowQty].Value(); got != "1" {
		t.Fatalf("quantity %q", got)
	}
	if !strings.Contains(f.hint, "digits") {
		t.Fatalf("hint %q", f.hint)
	}
}

func TestClientIDMustBeFree(t *testing.T) {
	f := newForm(t, trade.Buy)
	press(f, "0.001")
	f.focusRow(rowCID)
	clear(f)
	press(f, "42")
	p, ok := f.Problems().For(trade.FieldClientOrderID)
	if !ok || !strings.Contains(p.Error(), "unique among open orders") {
		t.Fatalf("reused client id accepted: %v", f.Problems())
	}
	press(f, "=")
	if got := f.inputs[rowCID].Value(); got != "43" {
		t.Fatalf("nearest free id %q", got)
	}
}

func TestEscCloses(t *testing.T) {
	f := newForm(t, trade.Buy)
	if _, ok := cmdtest.Find[common.CloseDialogMsg](press(f, "esc")); !ok {
		t.Fatal("esc did not close")
	}
}

// Perpetuals get a reduce-only row; the order then may only shrink the
// position the account holds.
func TestReduceOnlyOnPerpetuals(t *testing.T) {
	th, _ := theme.New("dark", false)
	st := store()
	st.Account.Margin.Mode = "FUTURES"
	st.Account.Positions = []feed.Position{{Symbol: "PERP_BTC_USDT", Holding: d("-0.2")}}
	rule := btc
	rule.Symbol = "PERP_BTC_USDT"
	f := New(common.Common{Theme: th, Store: st}, Options{Symbol: "PERP_BTC_USDT", Side: trade.Buy, Rule: &rule})
	f.focusRow(rowPrice)
	press(f, "97000")
	f.focusRow(rowQty)
	press(f, "0.5")
	f.focusRow(rowReduce)
	press(f, "space")
	if !f.Order().ReduceOnly {
		t.Fatal("reduce only not toggled")
	}
	p, bad := f.Problems().For(trade.FieldQuantity)
	if !bad || p.Code != venue.CodeRiskTooHigh || !p.Nearest.Equal(d("0.2")) {
		t.Fatalf("reduce-only beyond the short: %v", f.Problems())
	}
	f.focusRow(rowQty)
	press(f, "=")
	if !f.Valid() {
		t.Fatalf("0.2 to close the short refused: %v", f.Problems())
	}
	if spot := newForm(t, trade.Buy); strings.Contains(ansi.Strip(spot.View()), "reduce only") {
		t.Fatal("spot form offers reduce only")
	}
}

func TestFormFitsSmallScreen(t *testing.T) {
	f := newForm(t, trade.Buy)
	f.SetSize(80, 24)
	press(f, "0.000001") // an error line under quantity
	lines := strings.Split(f.View(), "\n")
	if len(lines) > 24 {
		t.Fatalf("%d lines", len(lines))
	}
	for i, l := range lines {
		if w := ansi.StringWidth(l); w > 80 {
			t.Fatalf("line %d is %d wide", i, w)
		}
	}
}

// The footer names the keys that act on the focused row, esc always, at
// any screen width: it wraps rather than being cut at the form's edge.
func TestFooterNamesTheRowsKeys(t *testing.T) {
	for _, width := range []int{80, 160} {
		for _, c := range []struct {
			name       string
			keys       []string
			has, lacks []string
		}{
			// [ ] act from every row of a form with a price (issue 29)
			{"empty quantity", nil, []string{"↑↓ step", "[ ] bid/ask"}, []string{"= nearest", "↑↓ field"}},
			{"quantity off its step", []string{"0.000001"}, []string{"↑↓ step", "= nearest", "[ ] bid/ask"}, nil},
			{"valid quantity", []string{"0.01"}, []string{"enter review & send", "↑↓ step", "[ ] bid/ask"}, []string{"= nearest"}},
			{"price off its tick", []string{"shift+tab", "5"}, []string{"↑↓ step", "= nearest", "[ ] bid/ask"}, nil},
			{"side", []string{"shift+tab", "shift+tab", "shift+tab"}, []string{"↑↓ field", "[ ] bid/ask"}, []string{"↑↓ step"}},
			{"tag", []string{"shift+tab", "shift+tab", "shift+tab", "shift+tab"}, []string{"[ ] bid/ask"}, []string{"↑↓ step"}},
			{"MARKET: no price", []string{"shift+tab", "shift+tab", "right"}, []string{"↑↓ field"}, []string{"[ ] bid/ask"}},
		} {
			f := newForm(t, trade.Buy)
			f.SetSize(width, 48)
			press(f, c.keys...)
			v := ansi.Strip(f.View())
			for _, want := range append(c.has, "tab next field", "esc close") {
				if !strings.Contains(v, want) {
					t.Errorf("%d cols, %s: footer lacks %q:\n%s", width, c.name, want, v)
				}
			}
			for _, not := range c.lacks {
				if strings.Contains(v, not) {
					t.Errorf("%d cols, %s: footer offers %q:\n%s", width, c.name, not, v)
				}
			}
			for _, l := range strings.Split(v, "\n") {
				if ansi.StringWidth(l) > width {
					t.Fatalf("line wider than the screen: %q", l)
				}
			}
		}
	}
}

// A form opened before its book arrived (just after a symbol switch)
// takes the best price of its side when the book comes, as opening on a
// synced book would; once the user gave a price, the book leaves it.
// This was the key walk's lost "[": the form had no price and no book.
func TestPriceFilledWhenTheBookArrives(t *testing.T) {
	synced := store().Books["SPOT_BTC_USDT"]
	for _, c := range []struct {
		name  string
		keys  []string
		price string
	}{
		{"untouched", nil, "97000.00"},
		{"typed", []string{"shift+tab", "96000"}, "96000"},
		{"typed and cleared", []string{"shift+tab", "9", "backspace"}, ""},
		{"other fields only", []string{"0.001"}, "97000.00"},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := newForm(t, trade.Buy)
			delete(f.Store.Books, "SPOT_BTC_USDT")
			f = New(f.Common, Options{Symbol: "SPOT_BTC_USDT", Side: trade.Buy, Rule: &btc})
			if got := f.inputs[rowPrice].Value(); got != "" {
				t.Fatalf("opened on no book with price %q", got)
			}
			press(f, c.keys...)
			f.Store.Books["SPOT_BTC_USDT"] = synced
			f.Update(common.FeedMsg{Update: &feed.Update{Books: map[string]*feed.Book{"SPOT_BTC_USDT": synced}}})
			if got := f.inputs[rowPrice].Value(); got != c.price {
				t.Fatalf("price after the book arrived: %q, want %q", got, c.price)
			}
		})
	}
}

// [ and ] set the price from any row of a form that has one, and leave
// the focus where it was: "]", a quantity, enter sends a BUY at the best
// ask (issue 29). Where they cannot act, a notice says why.
func TestBestPriceFromAnyRow(t *testing.T) {
	for _, c := range []struct {
		name, price string
		keys        []string
		focus       row
	}{
		{"] on the quantity row", "97001.00", []string{"]"}, rowQty},
		{"[ on the side row", "97000.00", []string{"]", "shift+tab", "shift+tab", "shift+tab", "["}, rowSide},
		{"] on the tag row", "97001.00", []string{"tab", "tab", "tab", "]"}, rowTag},
		{"] on the type row", "97001.00", []string{"shift+tab", "shift+tab", "]"}, rowType},
		{"] on the price row", "97001.00", []string{"shift+tab", "]"}, rowPrice},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := newForm(t, trade.Buy)
			if msgs := press(f, c.keys...); len(msgs) != 0 {
				t.Fatalf("%s said %+v", c.name, msgs)
			}
			if got := f.inputs[rowPrice].Value(); got != c.price || f.editing != c.focus {
				t.Fatalf("price %q focus %s, want %q on %s", got, f.editing.label(), c.price, c.focus.label())
			}
		})
	}
	f := newForm(t, trade.Buy)
	press(f, "]", "0.01")
	msgs := press(f, "enter")
	sub, ok := cmdtest.Find[SubmitMsg](msgs)
	if !ok || sub.Order.Side != trade.Buy || !sub.Order.Price.Equal(d("97001")) || !sub.Order.Quantity.Equal(d("0.01")) {
		t.Fatalf("] 0.01 enter: %+v (%v)", sub.Order, msgs)
	}
}

func TestBestPriceSaysWhyNot(t *testing.T) {
	notice := func(msgs []tea.Msg) string {
		n, _ := cmdtest.Find[common.NoticeMsg](msgs)
		return n.Text
	}
	f := newForm(t, trade.Buy)
	press(f, "shift+tab", "shift+tab", "right") // MARKET
	if got := notice(press(f, "]")); !strings.Contains(got, "] best ask: MARKET orders have no price to set") {
		t.Fatalf("] on a MARKET form: %q", got)
	}
	if got := notice(cmdtest.Run(updateCmd(f, common.UsePriceMsg{Symbol: "SPOT_BTC_USDT", Price: d("96000")}))); !strings.Contains(got, "MARKET orders have no price to set") {
		t.Fatalf("a clicked level on a MARKET form: %q", got)
	}
	f = newForm(t, trade.Buy)
	if got := notice(cmdtest.Run(updateCmd(f, common.UsePriceMsg{Symbol: "SPOT_ETH_USDT", Price: d("3000")}))); !strings.Contains(got, "is SPOT_ETH_USDT's; this form is for SPOT_BTC_USDT") {
		t.Fatalf("a clicked level of another symbol: %q", got)
	}
	delete(f.Store.Books, "SPOT_BTC_USDT")
	f = New(f.Common, Options{Symbol: "SPOT_BTC_USDT", Side: trade.Buy, Rule: &btc})
	if got := notice(press(f, "[")); !strings.Contains(got, "[ best bid: no bid in the SPOT_BTC_USDT book yet") {
		t.Fatalf("[ without a book: %q", got)
	}
	if got := f.inputs[rowPrice].Value(); got != "" {
		t.Fatalf("[ without a book set the price to %q", got)
	}
}

func updateCmd(f *Form, msg tea.Msg) tea.Cmd {
	_, cmd := f.Update(msg)
	return cmd
}
