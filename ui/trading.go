package ui

// Trading wiring: order entry, cancels and the account screen, hooked into
// the root model. The root hands keys, command lines and messages to the
// Trader first; everything the Trader does goes through tea.Cmds (REST in
// the background, dialogs through the dialog stack, results as notices), so
// nothing here blocks the UI.

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/shopspring/decimal"

	"tradedeck/feed"
	"tradedeck/panes/account"
	"tradedeck/panes/common"
	"tradedeck/panes/confirm"
	"tradedeck/panes/orderform"
	"tradedeck/trade"
	"tradedeck/venue"
)

// DefaultConfirmNotional is the notional (quote currency) from which an
// order gets the strong confirmation (service confirm_notional overrides).
var DefaultConfirmNotional = decimal.NewFromInt(10_000)

// PendingTracker shows a just-sent order as PENDING until the private
// stream moves it (implemented by *feed.Feed).
type PendingTracker interface {
	TrackPending(o feed.Order)
}

// PendingRejecter is implemented by a tracker that can end a pending order
// at once when the venue refused it outright (a REST error with a venue
// code): without it the order stays PENDING until the tracker's own
// lookup finds the venue never had it.
type PendingRejecter interface {
	RejectPending(clientOrderID int64, reason string)
}

// The feed is the tracker, the rejecter and the rule source.
var (
	_ PendingTracker  = (*feed.Feed)(nil)
	_ PendingRejecter = (*feed.Feed)(nil)
	_ RuleSource      = (*feed.Feed)(nil)
)

// TraderOptions configure the trading wiring.
type TraderOptions struct {
	Client  *venue.Client  // nil: no keys, read-only
	Pending PendingTracker // may be nil (no live feed)
	// ReadOnly hides and refuses every trading and account-changing
	// action; ReadOnlyWhy says why ("--read-only", "no API keys", "SSH
	// viewer") in the refusal notice.
	ReadOnly    bool
	ReadOnlyWhy string
	// ConfirmNotional: orders at or above it get the strong confirmation;
	// zero uses DefaultConfirmNotional, negative disables the rule.
	ConfirmNotional decimal.Decimal
	Grace           time.Duration // confirmation key grace; 0: confirm.DefaultGrace
	Timeout         time.Duration // per REST call; 0: 10 s
}

// Trader is the trading wiring of one dashboard session.
type Trader struct {
	opts TraderOptions
	ids  *trade.ClientIDs

	mu        sync.Mutex // rules are filled by a command goroutine
	rules     map[string]trade.Rule
	rulesBusy bool
}

// NewTrader builds the wiring. Without a client it is read-only.
func NewTrader(o TraderOptions) *Trader {
	if o.Client == nil || !o.Client.CanTrade() {
		if !o.ReadOnly {
			o.ReadOnlyWhy = "no API keys"
		}
		o.ReadOnly = true
	}
	if o.ReadOnly && o.ReadOnlyWhy == "" {
		o.ReadOnlyWhy = "read-only mode"
	}
	if o.ConfirmNotional.IsZero() {
		o.ConfirmNotional = DefaultConfirmNotional
	}
	if o.Timeout == 0 {
		o.Timeout = 10 * time.Second
	}
	return &Trader{opts: o, ids: trade.NewClientIDs(), rules: map[string]trade.Rule{}}
}

// ReadOnly reports whether trading actions are refused.
func (t *Trader) ReadOnly() bool { return t.opts.ReadOnly }

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
	if t.opts.ReadOnly && boundTo(k, km.Buy, km.Sell, km.Cancel, km.CancelAll, km.PanicCancel) {
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

// HandleCommand runs a command line (without the leading ':').
func (t *Trader) HandleCommand(c common.Common, line string, f Focus) (tea.Cmd, bool) {
	args := strings.Fields(line)
	if len(args) == 0 {
		return nil, false
	}
	switch strings.ToLower(args[0]) {
	case "buy", "sell":
		side := trade.Buy
		if strings.ToLower(args[0]) == "sell" {
			side = trade.Sell
		}
		sym, price := f.Symbol, decimal.Zero
		for _, a := range args[1:] {
			if p, err := decimal.NewFromString(a); err == nil {
				price = p
			} else {
				sym = strings.ToUpper(a)
			}
		}
		return t.OpenOrderForm(c, sym, side, price), true
	case "cancel":
		return t.cancelCommand(c, args[1:], f), true
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
	return common.Notify(common.NoticeWarn, what+" is disabled: "+t.opts.ReadOnlyWhy)
}

// ctx bounds one REST call.
func (t *Trader) ctx() (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.Background(), t.opts.Timeout)
}

// RuleSource gives the symbol rules someone already loaded (the feed
// does, for its fixed-point scales): no second REST call for them.
type RuleSource interface {
	Symbols() []venue.SymbolRule
}

// rule returns the rule of a symbol from the cache or the feed.
func (t *Trader) rule(symbol string) (trade.Rule, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if r, ok := t.rules[symbol]; ok {
		return r, ok
	}
	if src, ok := t.opts.Pending.(RuleSource); ok {
		for _, r := range src.Symbols() {
			t.rules[r.Symbol] = trade.RuleOf(r)
		}
	}
	r, ok := t.rules[symbol]
	return r, ok
}

// loadRules fetches every symbol rule once (one call for all symbols).
func (t *Trader) loadRules() tea.Cmd {
	t.mu.Lock()
	if t.rulesBusy {
		t.mu.Unlock()
		return nil
	}
	t.rulesBusy = true
	t.mu.Unlock()
	return func() tea.Msg {
		ctx, cancel := t.ctx()
		defer cancel()
		rows, err := t.opts.Client.SymbolRules(ctx)
		m := make(map[string]trade.Rule, len(rows))
		for _, r := range rows {
			m[r.Symbol] = trade.RuleOf(r)
		}
		return rulesMsg{rules: m, err: err}
	}
}

// OpenAccount opens the account screen (readable in read-only mode; its
// changes are then hidden and refused).
func (t *Trader) OpenAccount(c common.Common) tea.Cmd {
	if t.opts.Client == nil || !t.opts.Client.CanTrade() {
		return common.Notify(common.NoticeWarn, "the account screen needs API keys")
	}
	m := account.New(c, account.Options{API: t.opts.Client, ReadOnly: t.opts.ReadOnly,
		ReadOnlyWhy: t.opts.ReadOnlyWhy, Grace: t.opts.Grace, Timeout: t.opts.Timeout})
	return tea.Batch(common.Open(m), m.Init())
}

// OpenOrderForm opens the order form on a symbol, price prefilled (zero:
// the best price of the side).
func (t *Trader) OpenOrderForm(c common.Common, symbol string, side trade.Side, price decimal.Decimal) tea.Cmd {
	if t.opts.ReadOnly {
		return t.refuse("order entry")
	}
	if symbol == "" {
		return common.Notify(common.NoticeWarn, "no symbol focused")
	}
	opts := orderform.Options{Symbol: symbol, Side: side, Price: price, IDs: t.ids}
	var load tea.Cmd
	if r, ok := t.rule(symbol); ok {
		opts.Rule = &r
	} else {
		load = t.loadRules()
	}
	form := orderform.New(c, opts)
	return tea.Batch(common.Open(form), load)
}

// Update handles the Trader's own messages and the form's SubmitMsg. It
// returns the follow-up command, and handled=false for other messages.
func (t *Trader) Update(c common.Common, msg tea.Msg) (tea.Cmd, bool) {
	switch msg := msg.(type) {
	case rulesMsg:
		t.mu.Lock()
		t.rulesBusy = false
		for s, r := range msg.rules {
			t.rules[s] = r
		}
		t.mu.Unlock()
		// An open form takes its rule, or shows the error and keeps
		// submit disabled.
		out := orderform.RulesMsg{Rules: msg.rules}
		if msg.err != nil {
			out.Err = errors.New(trade.Explain(msg.err))
		}
		return func() tea.Msg { return out }, true
	case orderform.SubmitMsg:
		return t.confirmOrder(c, msg), true
	case OrderResultMsg:
		if msg.Err != nil {
			return common.Notify(common.NoticeError, "order "+describe(msg.Order)+" refused: "+trade.Explain(msg.Err)), true
		}
		return common.Notify(common.NoticeSuccess, fmt.Sprintf("order sent: %s (order id %d, client id %d)",
			describe(msg.Order), msg.Ack.OrderID, msg.Ack.ClientOrderID)), true
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
	if t.opts.ReadOnly {
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

// send tracks the order as PENDING at once, then posts it.
func (t *Trader) send(o trade.Order) tea.Cmd {
	return func() tea.Msg {
		if t.opts.Pending != nil {
			t.opts.Pending.TrackPending(pendingOrder(o))
		}
		ctx, cancel := t.ctx()
		defer cancel()
		ack, err := t.opts.Client.SendOrder(ctx, trade.Request(o))
		if refused(err) {
			if r, ok := t.opts.Pending.(PendingRejecter); ok && o.ClientOrderID != 0 {
				r.RejectPending(o.ClientOrderID, trade.Explain(err))
			}
		}
		return OrderResultMsg{Order: o, Ack: ack, Err: err}
	}
}

// refused reports an error after which the order surely does not exist:
// the client did not send it (a parameter error, or its rate limiter
// would have had to wait too long), or the venue answered with a 4xx code.
// Timeouts, network errors and 5xx leave it unknown.
func refused(err error) bool {
	var pe *venue.ParamError
	var ae *venue.APIError
	switch {
	case errors.As(err, &pe), errors.Is(err, venue.ErrRateLimitWait):
		return true
	case errors.As(err, &ae):
		return ae.Code != 0 && ae.HTTPStatus >= 400 && ae.HTTPStatus < 500
	}
	return false
}

func pendingOrder(o trade.Order) feed.Order {
	now := time.Now()
	fo := feed.Order{ClientOrderID: o.ClientOrderID, Symbol: o.Symbol, Side: string(o.Side), Type: string(o.Type),
		Status: feed.StatusPending, Tag: o.Tag, Price: o.Price, Quantity: o.Quantity, Amount: o.Amount,
		Created: now, Updated: now}
	if o.Type == trade.Market {
		fo.Price = decimal.Zero
	}
	if o.HasVisible {
		fo.Visible = o.Visible
	} else {
		fo.Visible = o.Quantity
	}
	return fo
}

// CancelOrder asks to confirm, then cancels one order: by order id, or by
// client order id when the order id is not known yet (a PENDING order, or
// ":cancel cid N").
func (t *Trader) CancelOrder(c common.Common, o feed.Order) tea.Cmd {
	if t.opts.ReadOnly {
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
	client, sym, oid, cid := t.opts.Client, o.Symbol, o.OrderID, o.ClientOrderID
	run := func() tea.Msg {
		ctx, cancel := t.ctx()
		defer cancel()
		var err error
		if oid != 0 {
			err = client.CancelOrder(ctx, sym, oid)
		} else {
			err = client.CancelOrderByClientID(ctx, sym, cid)
		}
		return CancelResultMsg{What: what, Errs: nonNil(err)}
	}
	return common.Open(confirm.New(c, confirm.Options{Title: "Cancel order", Lines: lines,
		Action: "cancel it", OnConfirm: run, Grace: t.opts.Grace}))
}

// CancelSymbol asks to confirm, then cancels every order of a symbol.
func (t *Trader) CancelSymbol(c common.Common, symbol string) tea.Cmd {
	if t.opts.ReadOnly {
		return t.refuse("cancelling")
	}
	if symbol == "" {
		return common.Notify(common.NoticeWarn, "no symbol focused")
	}
	n := len(c.Store.OpenOrders(symbol))
	what := "cancel all orders on " + symbol
	client := t.opts.Client
	run := func() tea.Msg {
		ctx, cancel := t.ctx()
		defer cancel()
		return CancelResultMsg{What: what, Errs: nonNil(client.CancelAll(ctx, symbol))}
	}
	return common.Open(confirm.New(c, confirm.Options{
		Title: "Cancel all on " + symbol, Lines: []string{fmt.Sprintf("%d open order(s) on %s will be cancelled", n, symbol)},
		Action: "cancel all on " + symbol, OnConfirm: run, Grace: t.opts.Grace}))
}

// PanicCancel asks to confirm (strongly), then cancels every order on every
// symbol: the symbols of the open orders the dashboard knows, plus any
// the venue lists as incomplete when asked at that moment.
func (t *Trader) PanicCancel(c common.Common) tea.Cmd {
	if t.opts.ReadOnly {
		return t.refuse("cancelling")
	}
	known := map[string]int{}
	for _, o := range c.Store.OpenOrders("") {
		known[o.Symbol]++
	}
	syms := sortedKeys(known)
	lines := []string{fmt.Sprintf("%d open order(s) on %d symbol(s) known: %s", len(c.Store.OpenOrders("")), len(syms), strings.Join(syms, " "))}
	lines = append(lines, "the venue's list of incomplete orders is read first, so symbols missed here are cancelled too")
	client := t.opts.Client
	run := func() tea.Msg {
		ctx, cancel := t.ctx()
		defer cancel()
		all := map[string]bool{}
		for _, s := range syms {
			all[s] = true
		}
		var errs []error
		for page := 1; page <= 20; page++ { // bounded: 20 pages of 25 orders
			rows, meta, err := client.ListOrders(ctx, venue.OrderFilter{Status: venue.StatusIncomplete, Page: page})
			if err != nil {
				errs = append(errs, err)
				break
			}
			for _, o := range rows {
				all[o.Symbol] = true
			}
			if !meta.HasNext(len(rows)) {
				break
			}
		}
		targets := sortedKeys(all)
		for _, s := range targets {
			if err := client.CancelAll(ctx, s); err != nil {
				errs = append(errs, fmt.Errorf("%s: %w", s, err))
			}
		}
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

// Service names the trading hook reads from Options.Services (filled by
// the dashboard command).
const (
	ServiceVenue           = "venue"            // *venue.Client; absent: read-only
	ServicePending         = "pending"          // PendingTracker (*feed.Feed)
	ServiceConfirmNotional = "confirm_notional" // decimal.Decimal; absent: DefaultConfirmNotional
	ServiceReadOnlyWhy     = "read_only_why"    // string shown when refusing ("--read-only", "SSH viewer")
)

func init() { RegisterHook(newTradingHook) }

// tradingHook plugs the Trader into the root model.
type tradingHook struct {
	t *Trader
	// click is the last clicked book level while no form was open: the
	// next form on that symbol takes its price (once).
	click *common.UsePriceMsg
}

func newTradingHook(m *Model) Hook {
	svc := m.Options().Services
	client, _ := svc[ServiceVenue].(*venue.Client)
	pending, _ := svc[ServicePending].(PendingTracker)
	threshold := notionalOf(svc[ServiceConfirmNotional])
	why, _ := svc[ServiceReadOnlyWhy].(string)
	if why == "" && m.ReadOnly() {
		why = "read-only mode"
	}
	t := NewTrader(TraderOptions{Client: client, Pending: pending, ReadOnly: m.ReadOnly(),
		ReadOnlyWhy: why, ConfirmNotional: threshold})
	if t.ReadOnly() && m.Common().Keys != nil {
		m.Common().Keys.SetTradingEnabled(false) // hidden from help, refused on use
	}
	return &tradingHook{t: t}
}

// notionalOf reads the confirmation threshold from a service value given
// as a decimal, a string or a number (config files carry any of them).
func notionalOf(v any) decimal.Decimal {
	switch x := v.(type) {
	case decimal.Decimal:
		return x
	case string:
		d, _ := decimal.NewFromString(x)
		return d
	case int:
		return decimal.NewFromInt(int64(x))
	case int64:
		return decimal.NewFromInt(x)
	case float64:
		d, _ := decimal.NewFromString(strconv.FormatFloat(x, 'f', -1, 64))
		return d
	}
	return decimal.Zero
}

func (h *tradingHook) Init(m *Model) tea.Cmd {
	if h.t.ReadOnly() {
		return nil
	}
	return h.t.loadRules() // the form validates at once when the rules are in
}

func (h *tradingHook) Update(m *Model, msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case common.UsePriceMsg:
		h.click = &msg
		return nil
	case OrderResultMsg:
		if msg.Err == nil {
			m.ShowOrders() // the account pane shows where the order went
		}
	}
	cmd, _ := h.t.Update(m.Common(), msg)
	return cmd
}

func (h *tradingHook) focus(m *Model) Focus {
	f := Focus{Symbol: m.Symbol()}
	if o, ok := m.SelectedOrder(); ok {
		f.Selected = &o
	}
	return f
}

func (h *tradingHook) Key(m *Model, msg tea.KeyPressMsg) (bool, tea.Cmd) {
	c, km := m.Common(), m.Common().Keys
	if km != nil && h.click != nil && h.click.Symbol == m.Symbol() && (key.Matches(msg, km.Buy) || key.Matches(msg, km.Sell)) {
		side := trade.Buy
		if key.Matches(msg, km.Sell) {
			side = trade.Sell
		}
		price := h.click.Price
		h.click = nil
		return true, h.t.OpenOrderForm(c, m.Symbol(), side, price)
	}
	cmd, ok := h.t.HandleKey(c, msg, h.focus(m))
	return ok, cmd
}

func (h *tradingHook) Command(m *Model, name string, args []string) (bool, tea.Cmd) {
	cmd, ok := h.t.HandleCommand(m.Common(), strings.Join(append([]string{name}, args...), " "), h.focus(m))
	return ok, cmd
}

func (h *tradingHook) Help(m *Model) []key.Binding {
	km := m.Common().Keys
	if km == nil {
		return nil
	}
	if h.t.ReadOnly() {
		if c := h.t.opts.Client; c != nil && c.CanTrade() {
			return []key.Binding{km.Account}
		}
		return nil
	}
	return []key.Binding{km.Buy, km.Sell, km.Cancel, km.CancelAll, km.PanicCancel, km.Account}
}
