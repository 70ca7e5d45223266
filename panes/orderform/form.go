// Package orderform is the order entry dialog: side, all seven order types,
// price stepped by the tick, quantity or quote amount, visible quantity,
// client order id and tag. It validates on every keystroke and every book
// update (package trade), shows the broken rule with its nearest valid
// value and a preview line, and only emits SubmitMsg when the order passes.
// Sending is not its job: the wiring asks for confirmation first.
//
// Built on bubbles textinput rather than a huh form: the form needs
// per-keystroke validation against live data, arrow keys that step prices
// instead of moving between fields, rows that appear and vanish with the
// order type, and a compact one-screen layout inside a modal; huh's
// group/field model fights all four.
package orderform

import (
	"slices"
	"strconv"
	"strings"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"
	"github.com/shopspring/decimal"

	"tradedeck/algo"
	"tradedeck/feed"
	"tradedeck/panes/common"
	"tradedeck/trade"
)

// SubmitMsg is emitted when the user submits a valid order.
type SubmitMsg struct {
	Order   trade.Order
	Preview trade.Preview
	// Algo is the protective order asked for (a bracket: the order as its
	// entry); nil for a plain order. The wiring previews it on the engine.
	Algo *algo.Spec
	// Amends is the open order this one replaces (Options.Amend), nil
	// for a new order.
	Amends *feed.Order
	// AmendsReduceOnly is whether the replaced order was reduce-only (the
	// stream's order does not say; the venue's answer does).
	AmendsReduceOnly bool
}

// RulesMsg delivers the symbols' trading rules (loaded by the wiring), or
// why they could not be loaded.
type RulesMsg struct {
	Rules map[string]trade.Rule
	Err   error
}

type row uint8

const (
	rowSide row = iota
	rowType
	rowPrice
	rowQty
	rowAmount
	rowVisible
	rowCID
	rowTag
	rowReduce // perpetuals only
	rowKind   // the protective kinds (trigger.go), with an engine
	rowTrigger
	rowTPPrice
	rowSLPrice
	rowLimit
	rowAfter
	rowTrail
	rowActivation
	rowSize
	rowTPMarket
	rowSource
)

var rowLabels = [...]string{"side", "type", "price", "quantity", "amount", "visible", "client id", "tag", "reduce only",
	"kind", "trigger", "take-profit", "stop", "limit price", "then market", "trail by", "activation", "size",
	"at trigger", "source"}

// inputs are the text rows, indexed by row (side, type and reduce only
// have none).
const nInputs = int(rowSource) + 1

// Options open a form.
type Options struct {
	Symbol string
	Side   trade.Side
	Price  decimal.Decimal // prefill; zero: the best price of the side
	Rule   *trade.Rule     // nil until a RulesMsg brings it
	IDs    *trade.ClientIDs
	// Amend opens the form on an open order to change it: side, type,
	// price, quantity and tag prefilled, the funds the order reserves
	// counted as available (they come back when it is cancelled).
	Amend *feed.Order
	// ReduceOnly prefills the reduce-only choice (perpetuals).
	ReduceOnly bool
	// Kinds offers the protective kinds (a kind row: bracket, stop, tp,
	// oco, trail; trigger.go): the account's engine runs.
	Kinds bool
}

// Form is the order entry dialog (a common.Dialog).
type Form struct {
	common.Common
	symbol  string
	rule    trade.Rule
	ruleOK  bool
	ruleEr  string
	side    trade.Side
	typ     trade.Type
	reduce  bool
	inputs  [nInputs]textinput.Model
	editing row // the row being edited

	order    trade.Order
	problems trade.Problems
	parseErr map[row]string
	preview  trade.Preview
	env      trade.Env
	hint     string
	amend    *feed.Order
	// amendReduce is the replaced order's reduce-only flag, kept apart
	// from reduce (the toggle) so a change of it alone is an amend.
	amendReduce bool
	// priceSet: the price was given (prefill, amend, click) or edited, so
	// a book that arrives after the form opened no longer fills it.
	priceSet bool

	// The protective kinds (trigger.go).
	kinds    bool
	kind     Kind
	source   int // index in sources
	tpMarket bool
	spec     algo.Spec
	specErr  string
}

var keys = struct {
	next, prev, submit, close, up, down, pgUp, pgDown, left, right, toggle, nearest, bestBid, bestAsk key.Binding
}{
	next:    key.NewBinding(key.WithKeys("tab"), key.WithHelp("tab", "next field")),
	prev:    key.NewBinding(key.WithKeys("shift+tab"), key.WithHelp("shift+tab", "previous field")),
	submit:  key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "review & send")),
	close:   key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "close")),
	up:      key.NewBinding(key.WithKeys("up"), key.WithHelp("↑/↓", "step by tick")),
	down:    key.NewBinding(key.WithKeys("down")),
	pgUp:    key.NewBinding(key.WithKeys("pgup", "shift+up"), key.WithHelp("pgup/pgdn", "10 ticks")),
	pgDown:  key.NewBinding(key.WithKeys("pgdown", "shift+down")),
	left:    key.NewBinding(key.WithKeys("left")),
	right:   key.NewBinding(key.WithKeys("right")),
	toggle:  key.NewBinding(key.WithKeys("space")),
	nearest: key.NewBinding(key.WithKeys("="), key.WithHelp("=", "nearest valid value")),
	bestBid: key.NewBinding(key.WithKeys("["), key.WithHelp("[ ]", "best bid / ask")),
	bestAsk: key.NewBinding(key.WithKeys("]")),
}

// New builds a form for a symbol. The Common's Store gives the book and
// the account; read it again on every FeedMsg.
func New(c common.Common, o Options) *Form {
	f := &Form{Common: c, symbol: o.Symbol, side: o.Side, typ: trade.Limit, editing: rowQty, reduce: o.ReduceOnly,
		kinds: o.Kinds && o.Amend == nil}
	if f.side != trade.Sell {
		f.side = trade.Buy
	}
	for i := range f.inputs {
		ti := textinput.New()
		ti.Prompt = ""
		ti.SetStyles(textinput.Styles{})
		ti.SetWidth(24)
		f.inputs[i] = ti
	}
	f.inputs[rowVisible].Placeholder = "all (0 hides)"
	f.inputs[rowSize].Placeholder = "position (or qty, N%)"
	f.inputs[rowLimit].Placeholder = "none: MARKET"
	f.inputs[rowAfter].Placeholder = "none: rests (or 5s)"
	f.inputs[rowTrail].Placeholder = "distance, or N%"
	f.inputs[rowActivation].Placeholder = "none: trails at once"
	f.inputs[rowTag].Placeholder = "default"
	f.inputs[rowCID].CharLimit = 19
	f.inputs[rowTag].CharLimit = 32
	if o.Rule != nil {
		f.rule, f.ruleOK = *o.Rule, true
	}
	if a := o.Amend; a != nil {
		f.amend, f.symbol, f.side = a, a.Symbol, trade.Side(a.Side)
		f.amendReduce = o.ReduceOnly
		if t := trade.Type(a.Type); slices.Contains(trade.Types, t) {
			f.typ = t
		}
		o.Price = a.Price
		f.setText(rowQty, a.Quantity.String())
		f.setText(rowTag, a.Tag)
	}
	f.refreshEnv()
	price := o.Price
	if !price.IsPositive() {
		price = f.bestSame()
	}
	f.priceSet = o.Price.IsPositive()
	if price.IsPositive() {
		f.setText(rowPrice, f.fmtPrice(price))
	}
	if o.IDs != nil {
		f.setText(rowCID, strconv.FormatInt(o.IDs.Next(f.env.OpenClientIDs), 10))
	}
	f.focusRow(rowQty)
	f.revalidate()
	return f
}

// Symbol is the form's symbol.
func (f *Form) Symbol() string { return f.symbol }

// Problems are the current validation problems (empty: submittable).
func (f *Form) Problems() trade.Problems { return f.problems }

// Valid reports whether Enter would submit.
func (f *Form) Valid() bool {
	return f.ruleOK && len(f.parseErr) == 0 && f.problems.OK() && (f.kind == KindOrder || f.specErr == "")
}

// Order is the order as currently entered.
func (f *Form) Order() trade.Order { return f.order }

// SetSize records the screen size.
func (f *Form) SetSize(w, h int) { f.Common.SetSize(w, h) }

func (f *Form) setText(r row, s string) {
	f.inputs[r].SetValue(s)
	f.inputs[r].CursorEnd()
}

func (f *Form) text(r row) string { return strings.TrimSpace(f.inputs[r].Value()) }

// rows are the rows shown for the current type.
func (f *Form) rows() []row {
	var rs []row
	if f.kinds {
		rs = append(rs, rowKind)
	}
	if f.kind.protective() {
		return append(rs, f.kindRows()...)
	}
	if f.kind.working() {
		return append(rs, f.workRows()...)
	}
	rs = append(rs, rowSide, rowType)
	if f.typ.UserPriced() {
		rs = append(rs, rowPrice)
	}
	rs = append(rs, rowQty)
	if f.kind == KindBracket {
		// The entry by quantity, shown whole: the exits are sized on it.
		return append(rs, rowTPPrice, rowSLPrice, rowSource)
	}
	if f.typ.AllowsAmount() {
		rs = append(rs, rowAmount)
	}
	if f.typ.UsesVisible() {
		rs = append(rs, rowVisible)
	}
	if trade.IsPerp(f.symbol) {
		rs = append(rs, rowReduce)
	}
	return append(rs, rowCID, rowTag)
}

func (f *Form) focusRow(r row) {
	for i := range f.inputs {
		f.inputs[i].Blur()
	}
	f.editing = r
	if !r.choice() {
		f.inputs[r].Focus()
	}
}

func (f *Form) moveFocus(delta int) {
	rs := f.rows()
	i := 0
	for j, r := range rs {
		if r == f.editing {
			i = j
		}
	}
	i = (i + delta + len(rs)) % len(rs)
	f.focusRow(rs[i])
}

// Update handles keys, feed updates, clicked prices and the rule.
func (f *Form) Update(msg tea.Msg) (common.Dialog, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.KeyPressMsg:
		before := f.text(rowPrice)
		cmd := f.key(msg)
		f.priceSet = f.priceSet || f.text(rowPrice) != before
		return f, cmd
	case common.FeedMsg:
		f.refreshEnv()
		f.fillPrice()
		f.revalidate()
	case common.UsePriceMsg:
		return f, f.usePrice(msg)
	case RulesMsg:
		if r, ok := msg.Rules[f.symbol]; ok {
			f.rule, f.ruleOK, f.ruleEr = r, true, ""
			f.refreshEnv()
		} else if msg.Err != nil && !f.ruleOK {
			f.ruleEr = msg.Err.Error()
		} else if !f.ruleOK {
			f.ruleEr = "the venue has no rule for " + f.symbol
		}
		f.revalidate()
	}
	return f, nil
}

// choose changes the choice of the focused selector row.
func (f *Form) choose(k tea.KeyPressMsg) {
	switch f.editing {
	case rowSide:
		switch {
		case key.Matches(k, keys.left, keys.right, keys.toggle):
			f.side = f.side.Opposite()
		case k.String() == "b":
			f.side = trade.Buy
		case k.String() == "s":
			f.side = trade.Sell
		}
	case rowReduce:
		if key.Matches(k, keys.left, keys.right, keys.toggle) {
			f.reduce = !f.reduce
		}
	case rowTPMarket:
		if key.Matches(k, keys.left, keys.right, keys.toggle) {
			f.tpMarket = !f.tpMarket
		}
	case rowKind:
		switch {
		case key.Matches(k, keys.right, keys.toggle):
			f.cycleKind(1)
		case key.Matches(k, keys.left):
			f.cycleKind(-1)
		}
	case rowSource:
		switch {
		case key.Matches(k, keys.right, keys.toggle):
			f.source = (f.source + 1) % len(sources)
		case key.Matches(k, keys.left):
			f.source = (f.source + len(sources) - 1) % len(sources)
		}
	case rowType:
		switch {
		case key.Matches(k, keys.right, keys.toggle):
			f.cycleType(1)
		case key.Matches(k, keys.left):
			f.cycleType(-1)
		}
	}
}

func (f *Form) key(k tea.KeyPressMsg) tea.Cmd {
	f.hint = ""
	switch {
	case key.Matches(k, keys.close):
		return common.Close
	case key.Matches(k, keys.next):
		f.moveFocus(1)
		return nil
	case key.Matches(k, keys.prev):
		f.moveFocus(-1)
		return nil
	case key.Matches(k, keys.submit):
		return f.submit()
	case key.Matches(k, keys.bestBid, keys.bestAsk):
		// from any row: the price hotkeys act wherever the focus is
		return f.bestPrice(key.Matches(k, keys.bestAsk))
	}
	switch f.editing {
	case rowSide, rowReduce, rowType, rowKind, rowSource, rowTPMarket:
		// Selector rows: up and down move between rows, the other keys
		// change the choice.
		switch {
		case key.Matches(k, keys.up):
			f.moveFocus(-1)
		case key.Matches(k, keys.down):
			f.moveFocus(1)
		default:
			f.choose(k)
		}
		f.revalidate()
		return nil
	}
	switch {
	case key.Matches(k, keys.up):
		f.step(1)
	case key.Matches(k, keys.down):
		f.step(-1)
	case key.Matches(k, keys.pgUp):
		f.step(10)
	case key.Matches(k, keys.pgDown):
		f.step(-10)
	case key.Matches(k, keys.nearest):
		f.applyNearest()
	default:
		if k.Text != "" && !f.accepts(k.Text) {
			f.hint = f.editing.label() + " takes " + f.accepted()
			return nil
		}
		before := f.inputs[f.editing].Value()
		var cmd tea.Cmd
		f.inputs[f.editing], cmd = f.inputs[f.editing].Update(k)
		if f.inputs[f.editing].Value() != before {
			f.exclusive()
		}
		f.revalidate()
		return cmd
	}
	f.revalidate()
	return nil
}

func (r row) label() string { return rowLabels[r] }

// labelWidth fits the longest row label ("reduce only") and a space.
var labelWidth = func() int {
	w := 0
	for _, l := range rowLabels {
		w = max(w, len(l))
	}
	return w + 1
}()

// choice rows are toggled with the arrows, not typed in.
func (r row) choice() bool {
	return r == rowSide || r == rowType || r == rowReduce || r == rowKind || r == rowSource || r == rowTPMarket
}

// accepts filters typed text per row: numbers only where numbers go.
func (f *Form) accepts(s string) bool {
	for _, c := range s {
		switch f.editing {
		case rowCID:
			if c < '0' || c > '9' {
				return false
			}
		case rowTag:
			if (c < 'a' || c > 'z') && (c < 'A' || c > 'Z') && (c < '0' || c > '9') && !strings.ContainsRune("-_.", c) {
				return false
			}
		case rowAfter:
			if (c < '0' || c > '9') && !strings.ContainsRune("smh.", c) {
				return false
			}
		case rowSize, rowTrail:
			if (c < '0' || c > '9') && c != '.' && c != '%' {
				return false
			}
		default:
			if (c < '0' || c > '9') && c != '.' {
				return false
			}
		}
	}
	return true
}

func (f *Form) accepted() string {
	switch f.editing {
	case rowCID:
		return "digits only"
	case rowTag:
		return "letters, digits, - _ ."
	}
	return "digits and '.' only"
}

// exclusive keeps quantity and amount exclusive: typing one clears the other.
func (f *Form) exclusive() {
	switch {
	case f.editing == rowQty && f.text(rowQty) != "":
		f.inputs[rowAmount].SetValue("")
	case f.editing == rowAmount && f.text(rowAmount) != "":
		f.inputs[rowQty].SetValue("")
	}
}

func (f *Form) cycleType(d int) {
	i := 0
	for j, t := range trade.Types {
		if t == f.typ {
			i = j
		}
	}
	f.typ = trade.Types[(i+d+len(trade.Types))%len(trade.Types)]
	if !f.typ.AllowsAmount() {
		f.inputs[rowAmount].SetValue("")
	}
	if f.typ.UserPriced() && f.text(rowPrice) == "" {
		f.setPriceIf(f.bestSame())
	}
}

// ShortHelp lists the form's keys.
func (f *Form) ShortHelp() []key.Binding {
	return []key.Binding{keys.submit, keys.next, keys.up, keys.nearest, keys.bestBid, keys.close}
}

// FullHelp lists the form's keys in one column.
func (f *Form) FullHelp() [][]key.Binding {
	return [][]key.Binding{f.ShortHelp(), {keys.prev, keys.pgUp}}
}
