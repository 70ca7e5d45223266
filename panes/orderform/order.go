package orderform

// The order the rows make: read from them, validated against the rule,
// the book and the account on every change, and submitted when valid.

import (
	"strconv"

	tea "charm.land/bubbletea/v2"
	"github.com/shopspring/decimal"

	"tradedeck/trade"
)

// refreshEnv reads the book and account from the Store.
func (f *Form) refreshEnv() {
	f.env = Env(f.Store, f.symbol, f.rule)
	if a := f.amend; a != nil {
		// The amended order is cancelled first: what it reserves is free
		// for its replacement.
		left := a.Quantity.Sub(a.Executed)
		if trade.Side(a.Side) == trade.Buy {
			f.env.Funds.QuoteAvail = f.env.Funds.QuoteAvail.Add(left.Mul(a.Price))
		} else {
			f.env.Funds.BaseAvail = f.env.Funds.BaseAvail.Add(left)
		}
		delete(f.env.OpenClientIDs, a.ClientOrderID)
	}
}

// build reads the rows into an order; parse errors go to parseErr.
func (f *Form) build() trade.Order {
	f.parseErr = map[row]string{}
	num := func(r row) decimal.Decimal {
		s := f.text(r)
		if s == "" {
			return decimal.Zero
		}
		v, err := decimal.NewFromString(s)
		if err != nil {
			f.parseErr[r] = r.label() + ": " + strconv.Quote(s) + " is not a number"
		}
		return v
	}
	o := trade.Order{Symbol: f.symbol, Side: f.side, Type: f.typ, Tag: f.text(rowTag), ReduceOnly: f.reduce && trade.IsPerp(f.symbol)}
	switch f.typ {
	case trade.Ask:
		o.Price = f.env.Book.BestAsk
	case trade.Bid:
		o.Price = f.env.Book.BestBid
	case trade.Market:
	default:
		o.Price = num(rowPrice)
	}
	o.Quantity = num(rowQty)
	if f.typ.AllowsAmount() {
		o.Amount = num(rowAmount)
	}
	if f.typ.UsesVisible() && f.text(rowVisible) != "" {
		o.Visible, o.HasVisible = num(rowVisible), true
	}
	if s := f.text(rowCID); s != "" {
		id, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			f.parseErr[rowCID] = "client id: must be 0 to 9223372036854775807"
		}
		o.ClientOrderID = id
	}
	return o
}

func (f *Form) revalidate() {
	f.order = f.build()
	f.problems = nil
	switch {
	case f.kind.working():
		f.checkWork()
	case f.kind != KindOrder:
		f.checkSpec()
	}
	if f.ruleOK && f.kind.makesOrder() {
		f.problems = trade.Validate(f.order, f.env)
	}
	if (f.typ == trade.Ask && !f.env.Book.BestAsk.IsPositive()) || (f.typ == trade.Bid && !f.env.Book.BestBid.IsPositive()) {
		f.problems = append(f.problems, trade.Problem{Field: trade.FieldOrder, Rule: "price",
			Text: string(f.typ) + " orders take the price of their side of the book, which is empty"})
	}
	f.preview = trade.MakePreview(f.order, f.env.Book, Fees(f.Store, f.symbol))
}

func (f *Form) submit() tea.Cmd {
	f.revalidate()
	switch {
	case !f.ruleOK:
		f.hint = "waiting for the symbol rule; cannot check the order yet"
		return nil
	case len(f.parseErr) > 0:
		for _, r := range f.rows() {
			if _, bad := f.parseErr[r]; bad {
				f.focusRow(r)
				break
			}
		}
		f.hint = "fix the marked field first"
		return nil
	case !f.problems.OK():
		p := f.problems[0]
		if r, ok := fieldRow[p.Field]; ok {
			f.focusRow(r)
		}
		f.hint = "not sent: " + p.Error()
		return nil
	}
	if f.kind.working() {
		return f.submitWork()
	}
	if f.kind != KindOrder {
		if f.specErr != "" {
			f.hint = "not sent: " + f.specErr
			return nil
		}
		spec := f.spec
		return func() tea.Msg { return SubmitMsg{Order: f.order, Preview: f.preview, Algo: &spec} }
	}
	msg := SubmitMsg{Order: f.order, Preview: f.preview, Amends: f.amend, AmendsReduceOnly: f.amendReduce}
	return func() tea.Msg { return msg }
}

var fieldRow = map[trade.Field]row{trade.FieldPrice: rowPrice, trade.FieldQuantity: rowQty,
	trade.FieldAmount: rowAmount, trade.FieldVisible: rowVisible, trade.FieldClientOrderID: rowCID, trade.FieldTag: rowTag}
