package ui

// Trading wiring: order entry, cancels and the account screen, hooked into
// the root model. The root hands keys, command lines and messages to the
// Trader first; everything the Trader does goes through tea.Cmds (REST in
// the background, dialogs through the dialog stack, results as notices), so
// nothing here blocks the UI.

import (
	"errors"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/shopspring/decimal"

	"tradedeck/desk"
	"tradedeck/feed"
	"tradedeck/panes/account"
	"tradedeck/panes/common"
	"tradedeck/panes/confirm"
	"tradedeck/panes/orderform"
	"tradedeck/trade"
	"tradedeck/venue"
)

// DefaultConfirmNotional is the notional (quote currency) from which an
// order gets the strong confirmation (Options.ConfirmNotional overrides).
var DefaultConfirmNotional = decimal.NewFromInt(10_000)

// TraderOptions configure the trading wiring.
type TraderOptions struct {
	Desk *desk.Desk // nil: no API keys
	// ReadOnly says why trading and account changes are off ("" = on),
	// shown in every refusal ("--read-only", "no API keys", "SSH viewer").
	ReadOnly string
	// ConfirmNotional: orders at or above it get the strong confirmation;
	// zero uses DefaultConfirmNotional, negative disables the rule.
	ConfirmNotional decimal.Decimal
	Grace           time.Duration // confirmation key grace; 0: confirm.DefaultGrace
}

// Trader is the trading of one dashboard session: keys and ':' commands
// open forms and confirmations; what they confirm runs on the desk in the
// background and comes back as a notice.
type Trader struct {
	opts      TraderOptions
	rulesBusy bool // a rule load is under way (touched in Update only)
	// click is the last clicked book level while no form was open: the
	// next form on that symbol takes its price (once).
	click *common.UsePriceMsg
	// account is the account screen once opened: reopened as it was left.
	account *account.Model
	// attach opens "attach a stop" on a position (the close dialog's
	// third choice); nil without an engine.
	attach func(symbol string, pct decimal.Decimal) tea.Cmd
	// stopAlgos stops every algo of the account (flatten does it before
	// it sends); nil without an engine.
	stopAlgos func(why string) error
}

// NewTrader builds the wiring. Without a desk it is read-only.
func NewTrader(o TraderOptions) *Trader {
	if o.Desk == nil && o.ReadOnly == "" {
		o.ReadOnly = "no API keys"
	}
	if o.ConfirmNotional.IsZero() {
		o.ConfirmNotional = DefaultConfirmNotional
	}
	return &Trader{opts: o}
}

// ReadOnly reports whether trading actions are refused.
func (t *Trader) ReadOnly() bool { return t.opts.ReadOnly != "" }

// Focus is what the root knows about the user's focus when a trading key
// is pressed.
type Focus struct {
	Symbol   string
	Selected *feed.Order // the open order under the cursor, if the orders pane is focused
}

// Results of the Trader's commands.
type (
	rulesMsg struct {
		rules map[string]trade.Rule
		err   error
	}
	// OrderResultMsg is the outcome of sending an order.
	OrderResultMsg struct {
		Order trade.Order
		Ack   venue.OrderAck
		Err   error
	}
	// CancelResultMsg is the outcome of a cancel request (one line per
	// symbol for the panic cancel).
	CancelResultMsg struct {
		What string
		Errs []error
	}
)

// HandleKey runs the trading key bindings (b, s, c, C, X, A by default).
// It returns handled=false for other keys.
func (t *Trader) HandleKey(c common.Common, k tea.KeyPressMsg, f Focus) (tea.Cmd, bool) {
	km := c.Keys
	if km == nil {
		return nil, false
	}
	if cl := t.click; cl != nil && cl.Symbol == f.Symbol && (key.Matches(k, km.Buy) || key.Matches(k, km.Sell)) {
		t.click = nil
		side := trade.Buy
		if key.Matches(k, km.Sell) {
			side = trade.Sell
		}
		return t.OpenOrderForm(c, f.Symbol, side, cl.Price), true
	}
	switch {
	case key.Matches(k, km.Buy):
		return t.OpenOrderForm(c, f.Symbol, trade.Buy, decimal.Zero), true
	case key.Matches(k, km.Sell):
		return t.OpenOrderForm(c, f.Symbol, trade.Sell, decimal.Zero), true
	case key.Matches(k, km.Cancel):
		if f.Selected == nil {
			return common.Notify(common.NoticeWarn, "select an open order in the orders pane to cancel it"), true
		}
		return t.CancelOrder(c, *f.Selected), true
	case key.Matches(k, km.CancelAll):
		return t.CancelSymbol(c, f.Symbol), true
	case key.Matches(k, km.PanicCancel):
		return t.PanicCancel(c), true
	case key.Matches(k, km.Account):
		return t.OpenAccount(c), true
	}
	// In read-only mode the bindings are disabled (hidden from help); their
	// keys still get a clear refusal instead of silence.
	if t.ReadOnly() && boundTo(k, km.Buy, km.Sell, km.Cancel, km.CancelAll, km.PanicCancel) {
		return t.refuse("trading"), true
	}
	return nil, false
}

// boundTo reports whether k is one of the bindings' keys, enabled or not.
func boundTo(k tea.KeyPressMsg, bs ...key.Binding) bool {
	s := k.String()
	for _, b := range bs {
		for _, bk := range b.Keys() {
			if bk == s {
				return true
			}
		}
	}
	return false
}

// HandleCommand runs a ':' command (name lower-cased, args as typed).
func (t *Trader) HandleCommand(c common.Common, name string, args []string, f Focus) (tea.Cmd, bool) {
	switch name {
	case "buy", "sell":
		side := trade.Buy
		if name == "sell" {
			side = trade.Sell
		}
		sym, price := f.Symbol, decimal.Zero
		for _, a := range args {
			if p, err := decimal.NewFromString(a); err == nil {
				price = p
			} else {
				sym = strings.ToUpper(a)
			}
		}
		return t.OpenOrderForm(c, sym, side, price), true
	case "cancel":
		return t.cancelCommand(c, args, f), true
	case "panic":
		return t.PanicCancel(c), true
	case "account":
		return t.OpenAccount(c), true
	}
	return nil, false
}

func (t *Trader) cancelCommand(c common.Common, args []string, f Focus) tea.Cmd {
	usage := common.Notify(common.NoticeWarn, "usage: :cancel cid N [SYMBOL] | :cancel oid N [SYMBOL] | :cancel all [SYMBOL]")
	if len(args) == 0 {
		return usage
	}
	symbolArg := func(i int) string {
		if len(args) > i {
			return strings.ToUpper(args[i])
		}
		return ""
	}
	switch strings.ToLower(args[0]) {
	case "all":
		sym := symbolArg(1)
		if sym == "" {
			sym = f.Symbol
		}
		return t.CancelSymbol(c, sym)
	case "cid", "oid":
		if len(args) < 2 {
			return usage
		}
		id, err := strconv.ParseInt(args[1], 10, 64)
		if err != nil || id <= 0 {
			return common.Notify(common.NoticeError, fmt.Sprintf("%q is not an order id", args[1]))
		}
		byClient := strings.ToLower(args[0]) == "cid"
		o, found := findOpen(c.Store, id, byClient)
		if sym := symbolArg(2); sym != "" {
			o.Symbol = sym
		} else if !found {
			o.Symbol = f.Symbol
		}
		if byClient {
			o.ClientOrderID, o.OrderID = id, 0
		} else {
			o.OrderID = id
		}
		return t.CancelOrder(c, o)
	}
	return usage
}

// findOpen looks an open order up by order id or client order id.
func findOpen(s *common.Store, id int64, byClient bool) (feed.Order, bool) {
	for _, o := range s.OpenOrders("") {
		if (byClient && o.ClientOrderID == id) || (!byClient && o.OrderID == id) {
			return o, true
		}
	}
	return feed.Order{}, false
}

func (t *Trader) refuse(what string) tea.Cmd {
	return common.Notify(common.NoticeWarn, what+" is disabled: "+t.opts.ReadOnly)
}

// loadRules fetches every symbol rule once (one call for all symbols).
func (t *Trader) loadRules() tea.Cmd {
	if t.rulesBusy || t.opts.Desk == nil {
		return nil
	}
	t.rulesBusy = true
	d := t.opts.Desk
	return func() tea.Msg {
		ctx, cancel := d.Context()
		defer cancel()
		rules, err := d.LoadRules(ctx)
		return rulesMsg{rules: rules, err: err}
	}
}

// OpenAccount opens the account screen (readable in read-only mode; its
// changes are then hidden and refused).
func (t *Trader) OpenAccount(c common.Common) tea.Cmd {
	d := t.opts.Desk
	if d == nil {
		return common.Notify(common.NoticeWarn, "the account screen needs API keys")
	}
	if m := t.account; m != nil { // as it was left, not fetched again while fresh
		m.Common = c // the theme may have changed
		return tea.Sequence(common.Open(m), m.Reopen())
	}
	m := account.New(c, account.Options{API: d.Client(), ReadOnly: t.ReadOnly(),
		ReadOnlyWhy: t.opts.ReadOnly, Grace: t.opts.Grace, Timeout: d.Timeout()})
	t.account = m
	return tea.Batch(common.Open(m), m.Init())
}

// OpenOrderForm opens the order form on a symbol, price prefilled (zero:
// the best price of the side).
func (t *Trader) OpenOrderForm(c common.Common, symbol string, side trade.Side, price decimal.Decimal) tea.Cmd {
	if t.ReadOnly() {
		return t.refuse("order entry")
	}
	if symbol == "" {
		return common.Notify(common.NoticeWarn, "no symbol focused")
	}
	opts := orderform.Options{Symbol: symbol, Side: side, Price: price, IDs: t.opts.Desk.IDs(), Kinds: t.attach != nil}
	var load tea.Cmd
	if r, ok := t.opts.Desk.Rule(symbol); ok {
		opts.Rule = &r
	} else {
		load = t.loadRules()
	}
	form := orderform.New(c, opts)
	// In order: the form is on the stack before the rules' answer comes
	// back to find it (a batch could deliver the answer first, and the
	// form would wait for rules that had already come and gone).
	return tea.Sequence(common.Open(form), load)
}

// Update handles the Trader's own messages and the form's SubmitMsg. It
// returns the follow-up command, and handled=false for other messages.
func (t *Trader) Update(c common.Common, msg tea.Msg) (tea.Cmd, bool) {
	switch msg := msg.(type) {
	case common.UsePriceMsg:
		t.click = &msg
		return nil, false // the open form takes it too
	case rulesMsg:
		t.rulesBusy = false
		// An open form takes its rule, or shows the error and keeps
		// submit disabled.
		out := orderform.RulesMsg{Rules: msg.rules}
		if msg.err != nil {
			out.Err = errors.New(trade.Explain(msg.err))
		}
		return func() tea.Msg { return out }, true
	case orderform.SubmitMsg:
		if msg.Amends != nil {
			return t.confirmAmend(c, msg), true // moves.go
		}
		return t.confirmOrder(c, msg), true
	case OrderResultMsg:
		if msg.Err != nil {
			return common.Notify(common.NoticeError, "order "+describe(msg.Order)+" refused: "+trade.Explain(msg.Err)), true
		}
		text := fmt.Sprintf("order sent: %s (order id %d, client id %d)", describe(msg.Order), msg.Ack.OrderID, msg.Ack.ClientOrderID)
		id := msg.Ack.OrderID.Int64()
		return func() tea.Msg { return common.NoticeMsg{Level: common.NoticeSuccess, Text: text, Order: id} }, true
	case CancelResultMsg:
		if len(msg.Errs) == 0 {
			return common.Notify(common.NoticeSuccess, msg.What+": cancel sent"), true
		}
		texts := make([]string, len(msg.Errs))
		for i, e := range msg.Errs {
			texts[i] = trade.Explain(e)
		}
		return common.Notify(common.NoticeError, msg.What+" failed: "+strings.Join(texts, "; ")), true
	}
	return nil, false
}

// describe renders an order in one line: "BUY LIMIT 0.001 SPOT_BTC_USDT @ 97000".
func describe(o trade.Order) string {
	size := o.Quantity.String() + " " + trade.Base(o.Symbol)
	if o.ByAmount() {
		size = "for " + o.Amount.String() + " " + trade.Quote(o.Symbol)
	}
	s := string(o.Side) + " " + string(o.Type) + " " + size + " " + o.Symbol
	if o.Type.UserPriced() {
		s += " @ " + o.Price.String()
	}
	if o.ReduceOnly {
		s += " reduce-only"
	}
	return s
}

// confirmOrder opens the confirmation of a submitted order.
func (t *Trader) confirmOrder(c common.Common, sub orderform.SubmitMsg) tea.Cmd {
	if t.ReadOnly() {
		return t.refuse("order entry")
	}
	o, pv := sub.Order, sub.Preview
	lines := []string{describe(o)}
	var extra []string
	if o.HasVisible {
		extra = append(extra, "visible "+o.Visible.String())
	}
	if o.ClientOrderID != 0 {
		extra = append(extra, "client id "+strconv.FormatInt(o.ClientOrderID, 10))
	}
	if o.Tag != "" {
		extra = append(extra, "tag "+o.Tag)
	}
	if len(extra) > 0 {
		lines = append(lines, strings.Join(extra, " · "))
	}
	lines = append(lines, pv.String())
	opts := confirm.Options{
		Title:  "Confirm " + string(o.Side) + " " + string(o.Type) + " " + o.Symbol,
		Lines:  lines,
		Action: "send " + string(o.Side) + " " + string(o.Type),
		Grace:  t.opts.Grace,
	}
	var warn []string
	if o.Type == trade.Market {
		warn = append(warn, "MARKET order: fills at whatever the book offers within the price range; the remainder is cancelled")
	}
	if t.opts.ConfirmNotional.IsPositive() && pv.Large(t.opts.ConfirmNotional) {
		warn = append(warn, fmt.Sprintf("LARGE order: notional %s %s is at or above your confirmation threshold %s",
			pv.Notional.StringFixed(2), pv.Quote, t.opts.ConfirmNotional))
	}
	if len(warn) > 0 {
		opts.Strong, opts.Warning = true, strings.Join(warn, ". ")
	}
	// Confirming closes the confirmation and the form under it, then sends.
	opts.OnConfirm = tea.Sequence(common.Close, t.send(o))
	return common.Open(confirm.New(c, opts))
}

// send sends the order on the desk (tracked as PENDING at once).
func (t *Trader) send(o trade.Order) tea.Cmd {
	d := t.opts.Desk
	return func() tea.Msg {
		ctx, cancel := d.Context()
		defer cancel()
		ack, err := d.Send(ctx, o)
		return OrderResultMsg{Order: o, Ack: ack, Err: err}
	}
}

// CancelOrder asks to confirm, then cancels one order: by order id, or by
// client order id when the order id is not known yet (a PENDING order, or
// ":cancel cid N").
func (t *Trader) CancelOrder(c common.Common, o feed.Order) tea.Cmd {
	if t.ReadOnly() {
		return t.refuse("cancelling")
	}
	if o.Symbol == "" {
		return common.Notify(common.NoticeWarn, "cancel: which symbol? use :cancel cid N SYMBOL")
	}
	what := fmt.Sprintf("cancel order %d", o.OrderID)
	if o.OrderID == 0 {
		what = fmt.Sprintf("cancel client id %d", o.ClientOrderID)
	}
	what += " on " + o.Symbol
	lines := []string{what}
	if o.Side != "" {
		lines = append(lines, fmt.Sprintf("%s %s %s @ %s, executed %s, status %s",
			o.Side, o.Type, o.Quantity, o.Price, o.Executed, o.Status))
	}
	d := t.opts.Desk
	run := func() tea.Msg {
		ctx, cancel := d.Context()
		defer cancel()
		return CancelResultMsg{What: what, Errs: nonNil(d.Cancel(ctx, o))}
	}
	return common.Open(confirm.New(c, confirm.Options{Title: "Cancel order", Lines: lines,
		Action: "cancel order", OnConfirm: run, Grace: t.opts.Grace}))
}

// CancelSymbol asks to confirm, then cancels every order of a symbol.
func (t *Trader) CancelSymbol(c common.Common, symbol string) tea.Cmd {
	if t.ReadOnly() {
		return t.refuse("cancelling")
	}
	if symbol == "" {
		return common.Notify(common.NoticeWarn, "no symbol focused")
	}
	n := len(c.Store.OpenOrders(symbol))
	if n == 0 {
		// Nothing to confirm: asking "cancel 0 orders?" and sending anyway
		// would be a lie and a wasted request.
		return common.Notify(common.NoticeInfo, "no open orders on "+symbol)
	}
	what := "cancel all orders on " + symbol
	d := t.opts.Desk
	run := func() tea.Msg {
		ctx, cancel := d.Context()
		defer cancel()
		return CancelResultMsg{What: what, Errs: nonNil(d.CancelAll(ctx, symbol))}
	}
	return common.Open(confirm.New(c, confirm.Options{
		Title: "Cancel all on " + symbol, Lines: []string{fmt.Sprintf("%d open order(s) on %s will be cancelled", n, symbol)},
		Action: "cancel all on " + symbol, OnConfirm: run, Grace: t.opts.Grace}))
}

// PanicCancel asks to confirm (strongly), then cancels every order on every
// symbol: the symbols of the open orders the dashboard knows, plus any
// the venue lists as incomplete when asked at that moment.
func (t *Trader) PanicCancel(c common.Common) tea.Cmd {
	if t.ReadOnly() {
		return t.refuse("cancelling")
	}
	known := map[string]int{}
	for _, o := range c.Store.OpenOrders("") {
		known[o.Symbol]++
	}
	syms := sortedKeys(known)
	lines := []string{fmt.Sprintf("%d open order(s) on %d symbol(s) known: %s", len(c.Store.OpenOrders("")), len(syms), strings.Join(syms, " "))}
	lines = append(lines, "the venue's list of incomplete orders is read first, so symbols missed here are cancelled too")
	d := t.opts.Desk
	run := func() tea.Msg {
		ctx, cancel := d.Context()
		defer cancel()
		targets, errs := d.PanicCancel(ctx, syms)
		return CancelResultMsg{What: fmt.Sprintf("panic cancel on %d symbol(s)", len(targets)), Errs: errs}
	}
	return common.Open(confirm.New(c, confirm.Options{
		Title: "PANIC: cancel every order", Lines: lines, Strong: true,
		Warning: "cancels ALL open orders on ALL symbols", Action: "cancel everything",
		OnConfirm: run, Grace: t.opts.Grace}))
}

func nonNil(err error) []error {
	if err == nil {
		return nil
	}
	return []error{err}
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// Commands lists the trading ':' commands for the help (none when no
// trading is possible; :account stays while the account is readable).
func (t *Trader) Commands() []string {
	if t.ReadOnly() {
		if t.opts.Desk != nil {
			return []string{"account"}
		}
		return nil
	}
	return append([]string{"buy [SYMBOL] [PRICE]", "sell [SYMBOL] [PRICE]", "cancel cid|oid N [SYMBOL]",
		"cancel all [SYMBOL]", "panic", "account"}, moveCommands...)
}

// completions are the trading commands for the ':' line's completion.
func (t *Trader) completions(symbols []string) []string {
	if t.ReadOnly() {
		if t.opts.Desk != nil {
			return []string{"account"}
		}
		return nil
	}
	out := []string{"buy", "sell", "cancel all", "cancel cid ", "cancel oid ", "panic", "account"}
	for _, s := range symbols {
		out = append(out, "buy "+s, "sell "+s, "cancel all "+s)
	}
	return append(out, moveCompletions(symbols)...)
}

// Help lists the trading bindings for the footer and the full help.
func (t *Trader) Help(km *common.KeyMap) []key.Binding {
	if km == nil {
		return nil
	}
	if t.ReadOnly() {
		if t.opts.Desk != nil {
			return []key.Binding{km.Account} // the account screen stays readable
		}
		return nil
	}
	return []key.Binding{km.Buy, km.Sell, km.Cancel, km.CancelAll, km.PanicCancel, km.Account}
}

// FooterHelp is Help as the keys act on f: c (cancel the selected order)
// only while an open order is selected, and then first, since it acts on
// what the cursor is on.
func (t *Trader) FooterHelp(km *common.KeyMap, f Focus) []key.Binding {
	bs := t.Help(km)
	i := slices.IndexFunc(bs, func(b key.Binding) bool { return b.Help() == km.Cancel.Help() })
	if i < 0 {
		return bs
	}
	c := bs[i]
	bs = slices.Delete(bs, i, i+1)
	if f.Selected == nil {
		return bs
	}
	return append([]key.Binding{c}, bs...)
}
