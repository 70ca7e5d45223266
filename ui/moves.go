package ui

// The trader's composite moves (issue 18): close the selected position or
// a symbol's holding (x, :close SYMBOL [PERCENT]), flatten every position
// (:flatten), and amend an open order (enter on the Open orders tab). The
// venue logic is package moves; here are the dialogs, the sending on the
// desk and the results as notices. Every path ends in a confirmation, so
// it inherits the root's key gate; every path is refused in read-only
// mode with the reason.

import (
	"context"
	"fmt"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/shopspring/decimal"

	"tradedeck/feed"
	"tradedeck/moves"
	"tradedeck/panes/accountpane"
	"tradedeck/panes/common"
	"tradedeck/panes/confirm"
	"tradedeck/panes/orderform"
	"tradedeck/trade"
)

// amendPoll is how often an amend reads the old order while its cancel is
// pending.
const amendPoll = 50 * time.Millisecond

// Results of the moves.
type (
	// MovesResultMsg is the outcome of a close or a flatten: each order's
	// ack or error, and the positions no order could be built for.
	MovesResultMsg struct {
		What string
		Sent []moves.Sent
		Errs []error
	}
	// AmendResultMsg is the outcome of an amend: both halves.
	AmendResultMsg struct {
		Old    feed.Order
		Result moves.AmendResult
	}
)

// movesHook takes the moves' key (close position), enter on an open order
// (amend), the :close and :flatten commands and their results.
type movesHook struct{}

func (movesHook) Init(*Model) tea.Cmd { return nil }

func (movesHook) Key(m *Model, k tea.KeyPressMsg) (bool, tea.Cmd) {
	km := m.c.Keys
	if km == nil {
		return false, nil
	}
	// The binding is disabled in read-only mode; its key still gets the
	// refusal.
	if key.Matches(k, km.ClosePosition) || (m.trader.ReadOnly() && boundTo(k, km.ClosePosition)) {
		if m.trader.ReadOnly() {
			return true, m.trader.refuse("closing positions")
		}
		p, ok := m.tables.SelectedPosition()
		if !ok {
			return true, common.Notify(common.NoticeWarn, "select a position in the account pane's Positions tab to close it (or :close SYMBOL [PERCENT])")
		}
		return true, m.trader.CloseSymbol(m.c, p.Symbol, decimal.Zero)
	}
	if m.focus == PaneTables && key.Matches(k, km.Select) {
		if o, ok := m.tables.SelectedOrder(); ok {
			return true, m.trader.AmendForm(m.c, o)
		}
	}
	return false, nil
}

func (movesHook) Command(m *Model, name string, args []string) (bool, tea.Cmd) {
	switch name {
	case "close":
		return true, closeCommand(m, args)
	case "flatten":
		if len(args) > 0 {
			return true, common.Notify(common.NoticeWarn, "usage: :flatten (closes every position)")
		}
		return true, m.trader.Flatten(m.c)
	}
	return false, nil
}

// closeCommand parses ":close [SYMBOL] [PERCENT]": without a symbol, the
// selected position, else the focused symbol.
func closeCommand(m *Model, args []string) tea.Cmd {
	sym, pct := "", decimal.Zero
	for _, a := range args {
		if p, err := decimal.NewFromString(strings.TrimSuffix(a, "%")); err == nil {
			if !p.IsPositive() || p.GreaterThan(decimal.NewFromInt(100)) {
				return common.Notify(common.NoticeError, "close: percent "+a+" is not in (0, 100]")
			}
			pct = p
			continue
		}
		if sym != "" {
			return common.Notify(common.NoticeWarn, "usage: :close [SYMBOL] [PERCENT]")
		}
		sym = strings.ToUpper(a)
	}
	if sym == "" {
		sym = m.symbol
		if p, ok := m.tables.SelectedPosition(); ok {
			sym = p.Symbol
		}
	}
	return m.trader.CloseSymbol(m.c, sym, pct)
}

func (movesHook) Update(m *Model, msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case MovesResultMsg:
		return movesNotices(msg)
	case amendLoadedMsg:
		form, cmd := m.trader.openAmend(m.c, msg)
		if form != nil {
			m.pushDialog(form)
		}
		return cmd
	case AmendResultMsg:
		r := msg.Result
		level := common.NoticeError
		switch {
		case r.Placed():
			level = common.NoticeSuccess
		case r.Skipped != "":
			level = common.NoticeWarn
		}
		m.ShowOrders()
		return common.Notify(level, fmt.Sprintf("order %d %s", msg.Old.OrderID, r))
	}
	return nil
}

// movesNotices is one notice per order of a move, in order.
func movesNotices(msg MovesResultMsg) tea.Cmd {
	var cmds []tea.Cmd
	for _, s := range msg.Sent {
		if s.Err != nil {
			cmds = append(cmds, common.Notify(common.NoticeError, msg.What+": "+describe(s.Order)+" refused: "+trade.Explain(s.Err)))
			continue
		}
		text := fmt.Sprintf("%s: order sent: %s (order id %d)", msg.What, describe(s.Order), s.Ack.OrderID)
		cmds = append(cmds, common.Notify(common.NoticeSuccess, text))
	}
	for _, e := range msg.Errs {
		cmds = append(cmds, common.Notify(common.NoticeError, e.Error()))
	}
	return tea.Sequence(cmds...)
}

func (movesHook) Help(m *Model) []key.Binding {
	km := m.c.Keys
	if km == nil || m.trader.ReadOnly() {
		return nil
	}
	// Each only where it acts (issue 29): x on a selected position, enter
	// on a selected open order; elsewhere they only explain.
	var out []key.Binding
	if _, ok := m.tables.SelectedPosition(); ok {
		out = append(out, km.ClosePosition)
	}
	if _, ok := m.tables.SelectedOrder(); ok && m.focus == PaneTables && m.tables.Tab() == accountpane.Orders {
		out = append(out, key.NewBinding(key.WithKeys(km.Select.Keys()...), key.WithHelp(km.Select.Help().Key, "amend order")))
	}
	return out
}

// moveCommands and moveCompletions are the moves' ':' commands for the
// help and the completion (trading on).
var moveCommands = []string{"close [SYMBOL] [PERCENT]", "flatten"}

func moveCompletions(symbols []string) []string {
	out := []string{"close", "flatten"}
	for _, s := range symbols {
		out = append(out, "close "+s)
	}
	return out
}

// holding is what closing a symbol sells or buys back: the perpetual
// position (signed), or the free balance of a spot symbol's base token.
func holding(s *common.Store, symbol string) decimal.Decimal {
	a := s.Account
	if a == nil {
		return decimal.Zero
	}
	if trade.IsPerp(symbol) {
		for _, p := range a.Positions {
			if p.Symbol == symbol {
				return p.Holding
			}
		}
		return decimal.Zero
	}
	base := trade.Base(symbol)
	for _, b := range a.Balances {
		if b.Token == base {
			return b.Available()
		}
	}
	return decimal.Zero
}

// CloseSymbol opens the close dialog of a symbol's position (perpetual)
// or free balance (spot): pct of it (zero: all), MARKET or LIMIT at the
// best price, then the confirmation.
func (t *Trader) CloseSymbol(c common.Common, symbol string, pct decimal.Decimal) tea.Cmd {
	if t.ReadOnly() {
		return t.refuse("closing positions")
	}
	if symbol == "" {
		return common.Notify(common.NoticeWarn, "close: which symbol? :close SYMBOL [PERCENT]")
	}
	h := holding(c.Store, symbol)
	if h.IsZero() || (!trade.IsPerp(symbol) && h.IsNegative()) {
		what := "no position on " + symbol
		if !trade.IsPerp(symbol) {
			what = "no free " + trade.Base(symbol) + " to sell on " + symbol
		}
		return common.Notify(common.NoticeInfo, "close: "+what)
	}
	return t.withRules([]string{symbol}, func(rules map[string]trade.Rule) tea.Cmd {
		r, ok := rules[symbol]
		if !ok {
			return common.Notify(common.NoticeError, "close: the venue has no rule for "+symbol)
		}
		return common.Open(&closeChoice{c: c, t: t, close: moves.Close{Symbol: symbol, Holding: h, Percent: pct, Rule: r}})
	})
}

// withRules runs then with the rules of the symbols: at once when the
// desk has them all, else once they are loaded (one call for all). then
// returns what opens a dialog or notifies; nothing of it runs on the venue.
func (t *Trader) withRules(syms []string, then func(map[string]trade.Rule) tea.Cmd) tea.Cmd {
	d := t.opts.Desk
	known := func() (map[string]trade.Rule, bool) {
		rules, all := map[string]trade.Rule{}, true
		for _, s := range syms {
			r, ok := d.Rule(s)
			if ok {
				rules[s] = r
			}
			all = all && ok
		}
		return rules, all
	}
	if rules, all := known(); all {
		return then(rules)
	}
	return func() tea.Msg {
		ctx, cancel := d.Context()
		defer cancel()
		if _, err := d.LoadRules(ctx); err != nil {
			return common.NoticeMsg{Level: common.NoticeError, Text: "symbol rules: " + trade.Explain(err)}
		}
		rules, _ := known()
		if cmd := then(rules); cmd != nil {
			return cmd()
		}
		return nil
	}
}

// closeChoice is the dialog that chooses how to close: MARKET, or LIMIT at
// the best price of the closing side. It sends nothing: the confirmation
// it opens does.
type closeChoice struct {
	c     common.Common
	t     *Trader
	close moves.Close
	hint  string
}

var (
	chooseMarket = key.NewBinding(key.WithKeys("m", "M"))
	chooseLimit  = key.NewBinding(key.WithKeys("l", "L"))
	chooseBack   = key.NewBinding(key.WithKeys("esc", "n", "q"))
	chooseStop   = key.NewBinding(key.WithKeys("p", "P"))
)

func (d *closeChoice) SetSize(w, h int) { d.c.SetSize(w, h) }

func (d *closeChoice) Update(msg tea.Msg) (common.Dialog, tea.Cmd) {
	k, ok := msg.(tea.KeyPressMsg)
	if !ok {
		return d, nil
	}
	cl := d.close
	switch {
	case key.Matches(k, chooseBack):
		return d, common.Close
	case key.Matches(k, chooseMarket):
		cl.Type = trade.Market
	case key.Matches(k, chooseLimit):
		cl.Type, cl.Book = trade.Limit, orderform.BestOf(d.c.Store, cl.Symbol)
	case key.Matches(k, chooseStop) && d.t.attach != nil:
		// Protect instead of closing: the stop's prompt, preview and
		// confirmation (algoactions.go).
		return d, tea.Sequence(common.Close, d.t.attach(cl.Symbol, cl.Percent))
	default:
		d.hint = "press m for MARKET, l for LIMIT at the best price, esc to go back"
		return d, nil
	}
	o, err := moves.CloseOrder(cl)
	if err != nil {
		d.hint = err.Error()
		return d, nil
	}
	return d, tea.Sequence(common.Close, common.Open(d.t.confirmClose(d.c, cl, o)))
}

func (d *closeChoice) View() string {
	t, cl := d.c.Theme, d.close
	w := 56
	if d.c.Width > 0 {
		w = min(max(w, d.c.Width/2), d.c.Width-4, 90)
	}
	what := "position " + cl.Holding.String()
	if !trade.IsPerp(cl.Symbol) {
		what = "free " + cl.Holding.String() + " " + trade.Base(cl.Symbol) + " (a plain SELL)"
	}
	pct := "100"
	if cl.Percent.IsPositive() {
		pct = cl.Percent.String()
	}
	book := orderform.BestOf(d.c.Store, cl.Symbol)
	best, side := book.BestAsk, "ask"
	if cl.Holding.IsNegative() {
		best, side = book.BestBid, "bid"
	}
	limit := "[l] LIMIT at the best " + side + " " + best.String() + ": rests as a maker"
	if !best.IsPositive() {
		limit = "[l] LIMIT at the best " + side + ": that side of the book is empty"
	}
	body := []string{what + ", closing " + pct + "%", "",
		t.Accent + "[m] MARKET: takes the book now" + t.Text, t.Accent + limit + t.Text}
	if d.t.attach != nil {
		body = append(body, t.Accent+"[p] keep it open and attach a stop instead"+t.Text)
	}
	body = append(body, "", t.Muted+"[esc] back"+t.Text)
	if d.hint != "" {
		body = append(body, t.Warn+d.hint+t.Text)
	}
	return confirm.Frame(t, "Close "+cl.Symbol, body, w, t.BorderFocus)
}

// confirmClose is the confirmation of a close order.
func (t *Trader) confirmClose(c common.Common, cl moves.Close, o trade.Order) *confirm.Model {
	after := cl.Holding.Sub(o.Quantity)
	if o.Side == trade.Buy {
		after = cl.Holding.Add(o.Quantity)
	}
	lines := []string{describe(o)}
	if trade.IsPerp(cl.Symbol) {
		lines = append(lines, "position "+cl.Holding.String()+" → "+after.String()+" when it fills; reduce-only: it can never open the other way")
	} else {
		lines = append(lines, "free "+trade.Base(cl.Symbol)+" "+cl.Holding.String()+" → "+after.String()+" when it fills")
	}
	opts := confirm.Options{Title: "Confirm close " + cl.Symbol, Lines: lines,
		Action: "close " + cl.Symbol, Grace: t.opts.Grace,
		OnConfirm: t.sendMoves("close "+cl.Symbol, []trade.Order{o}, nil)}
	if o.Type == trade.Market {
		opts.Strong, opts.Warning = true, "MARKET order: fills at whatever the book offers within the price range; the remainder is cancelled"
	}
	return confirm.New(c, opts)
}

// Flatten asks (strongly, as the panic cancel) and then closes every
// perpetual position with a MARKET reduce-only order.
func (t *Trader) Flatten(c common.Common) tea.Cmd {
	if t.ReadOnly() {
		return t.refuse("flattening")
	}
	var ps []moves.Position
	var syms []string
	if a := c.Store.Account; a != nil {
		for _, p := range a.Positions {
			if !p.Holding.IsZero() && trade.IsPerp(p.Symbol) {
				ps, syms = append(ps, moves.Position{Symbol: p.Symbol, Holding: p.Holding}), append(syms, p.Symbol)
			}
		}
	}
	if len(ps) == 0 {
		return common.Notify(common.NoticeInfo, "flatten: no open position")
	}
	return t.withRules(syms, func(rules map[string]trade.Rule) tea.Cmd { return t.confirmFlatten(c, ps, rules) })
}

// confirmFlatten is the strong confirmation of a flatten.
func (t *Trader) confirmFlatten(c common.Common, ps []moves.Position, rules map[string]trade.Rule) tea.Cmd {
	orders, errs := moves.FlattenOrders(ps, rules)
	var lines []string
	for _, o := range orders {
		lines = append(lines, describe(o))
	}
	for _, e := range errs {
		lines = append(lines, "not closed: "+e.Error())
	}
	lines = append(lines, "spot balances are left alone (:close SPOT_... sells one)")
	return common.Open(confirm.New(c, confirm.Options{
		Title: "FLATTEN: close every position", Lines: lines, Strong: true,
		Warning: fmt.Sprintf("sends %d MARKET reduce-only order(s): every position closes at whatever the book offers", len(orders)),
		Action:  "flatten everything", Grace: t.opts.Grace,
		OnConfirm: t.stopAlgosFirst("flatten", t.sendMoves("flatten", orders, errs))}))
}

// stopAlgosFirst runs send after the account's algos are stopped (issue
// 25 rule 8: no algo re-places an order behind a flatten); an error of
// the stop is reported with the move's results, and the move goes on.
func (t *Trader) stopAlgosFirst(why string, send tea.Cmd) tea.Cmd {
	stop := t.stopAlgos
	if stop == nil {
		return send
	}
	return func() tea.Msg {
		err := stop(why)
		msg := send()
		if r, ok := msg.(MovesResultMsg); ok && err != nil {
			r.Errs = append(r.Errs, fmt.Errorf("algos stopped before the %s: %w", why, err))
			return r
		}
		return msg
	}
}

// sendMoves sends the orders of a move one after the other on the desk
// (each tracked as PENDING, each with a fresh client order id), one
// failing not stopping the others, and reports each.
func (t *Trader) sendMoves(what string, orders []trade.Order, errs []error) tea.Cmd {
	d := t.opts.Desk
	return func() tea.Msg {
		out := make([]moves.Sent, len(orders))
		for i, o := range orders {
			if o.ClientOrderID == 0 {
				o.ClientOrderID = d.IDs().Next(nil)
			}
			ctx, cancel := d.Context()
			ack, err := d.Send(ctx, o)
			cancel()
			out[i] = moves.Sent{Order: o, Ack: ack, Err: err}
		}
		return MovesResultMsg{What: what, Sent: out, Errs: errs}
	}
}

// AmendForm reads an open order from the venue (the stream does not say
// whether it is reduce-only, and its fills may have moved on), then opens
// the order form on it to change it (amendLoadedMsg).
func (t *Trader) AmendForm(c common.Common, o feed.Order) tea.Cmd {
	if t.ReadOnly() {
		return t.refuse("amending orders")
	}
	if o.OrderID == 0 || !o.Open() {
		return common.Notify(common.NoticeWarn, "amend: the venue has not acknowledged this order yet")
	}
	d := t.opts.Desk
	load := func() tea.Msg {
		ctx, cancel := d.Context()
		defer cancel()
		v, err := d.Client().GetOrder(ctx, o.OrderID)
		switch {
		case err != nil:
			return common.NoticeMsg{Level: common.NoticeError, Text: fmt.Sprintf("amend: order %d: %s", o.OrderID, trade.Explain(err))}
		case !v.Status.Open():
			return common.NoticeMsg{Level: common.NoticeWarn, Text: fmt.Sprintf("amend: order %d is %s, nothing to amend", o.OrderID, v.Status)}
		}
		o.Executed, o.Status = v.Executed, string(v.Status)
		return amendLoadedMsg{order: o, reduceOnly: bool(v.ReduceOnly)}
	}
	return load
}

// amendLoadedMsg opens the amend form (on the UI goroutine: the form
// reads the Store).
type amendLoadedMsg struct {
	order      feed.Order
	reduceOnly bool
}

func (t *Trader) openAmend(c common.Common, msg amendLoadedMsg) (common.Dialog, tea.Cmd) {
	if t.ReadOnly() {
		return nil, t.refuse("amending orders")
	}
	o := msg.order
	opts := orderform.Options{Symbol: o.Symbol, IDs: t.opts.Desk.IDs(), Amend: &o, ReduceOnly: msg.reduceOnly}
	if r, ok := t.opts.Desk.Rule(o.Symbol); ok {
		opts.Rule = &r
		return orderform.New(c, opts), nil
	}
	// The form is on the stack before the rules are asked for: their
	// answer finds it.
	return orderform.New(c, opts), t.loadRules()
}

// confirmAmend is the confirmation of an amend: the old order, the new
// one, and what happens when a half fails.
func (t *Trader) confirmAmend(c common.Common, sub orderform.SubmitMsg) tea.Cmd {
	if t.ReadOnly() {
		return t.refuse("amending orders")
	}
	old, n := *sub.Amends, sub.Order
	if string(n.Side) == old.Side && string(n.Type) == old.Type && n.Price.Equal(old.Price) && n.Quantity.Equal(old.Quantity) && n.Amount.IsZero() && n.ReduceOnly == sub.AmendsReduceOnly {
		return common.Notify(common.NoticeInfo, "amend: nothing changed; the order stays as it is")
	}
	lines := []string{
		fmt.Sprintf("old: order %d %s %s %s @ %s%s, filled %s", old.OrderID, old.Side, old.Type, old.Quantity, old.Price, reduceOnlyMark(sub.AmendsReduceOnly), old.Executed),
		"new: " + describe(n),
		"1. cancel order " + fmt.Sprint(old.OrderID) + "; 2. once the venue confirms it closed, send the new order less what the old one filled",
		"if the cancel fails or the old order fills first, nothing new is sent: the order is never doubled",
		sub.Preview.String(),
	}
	opts := confirm.Options{Title: fmt.Sprintf("Amend order %d %s", old.OrderID, old.Symbol), Lines: lines,
		Action: "amend", Grace: t.opts.Grace,
		OnConfirm: tea.Sequence(common.Close, t.amend(old, n))}
	if n.Type == trade.Market {
		opts.Strong, opts.Warning = true, "the new order is MARKET: it fills at whatever the book offers"
	}
	return common.Open(confirm.New(c, opts))
}

// reduceOnlyMark names a reduce-only order the way describe does.
func reduceOnlyMark(reduceOnly bool) string {
	if reduceOnly {
		return " reduce-only"
	}
	return ""
}

// amend runs the cancel and the new order on the venue.
func (t *Trader) amend(old feed.Order, n trade.Order) tea.Cmd {
	d := t.opts.Desk
	return func() tea.Msg {
		// The cancel and its confirmation may each take a request's time.
		ctx, cancel := context.WithTimeout(context.Background(), 3*d.Timeout())
		defer cancel()
		ids := d.IDs()
		if n.ClientOrderID != 0 {
			ids = nil // the form's client id stays
		}
		r := moves.AmendOrder(ctx, d.Client(), moves.Amend{Symbol: old.Symbol, OrderID: old.OrderID, New: n}, ids, amendPoll)
		return AmendResultMsg{Old: old, Result: r}
	}
}
