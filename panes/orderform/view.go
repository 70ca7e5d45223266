package orderform

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/shopspring/decimal"

	"tradedeck/panes/common"
	"tradedeck/panes/confirm"
	"tradedeck/trade"
)

// View renders the form.
func (f *Form) View() string {
	t := f.Theme
	w := 72
	if f.Width > 0 {
		w = max(min(w, f.Width-4), 40)
	}
	body := f.fieldLines(w)
	if !f.typ.UserPriced() && f.kind.makesOrder() {
		body = append(body, "            "+t.Muted+f.venuePriceNote()+t.Text)
	}
	body = append(body, "")
	switch {
	case f.ruleEr != "":
		body = append(body, t.Error+"symbol rule: "+f.ruleEr+t.Text)
	case !f.ruleOK:
		body = append(body, t.Muted+"loading the symbol rule…"+t.Text)
	}
	if p, ok := f.problems.For(trade.FieldOrder); ok {
		for _, l := range common.Wrap(p.Error(), w-2) {
			body = append(body, t.Error+l+t.Text)
		}
	}
	if f.kind != KindOrder {
		body = append(body, f.kindLines(w)...)
	}
	if f.kind.makesOrder() {
		body = append(body, common.Wrap(f.preview.String(), w-2)...)
	}
	if fu := f.env.Funds; fu.Known {
		body = append(body, t.Muted+fmt.Sprintf("available %s %s · %s %s · %s account",
			fu.QuoteAvail, trade.Quote(f.symbol), fu.BaseAvail, trade.Base(f.symbol), fu.Mode)+t.Text)
	}
	for _, l := range common.Wrap(f.hint, w-2) {
		body = append(body, t.Warn+l+t.Text)
	}
	submit := t.Accent + "enter review & send" + t.Text + t.Muted
	if !f.Valid() {
		submit = "enter (disabled: order invalid)"
	}
	if f.kind.protective() {
		submit = t.Accent + "enter preview & arm" + t.Text + t.Muted
		if !f.Valid() {
			submit = "enter (disabled: incomplete)"
		}
	}
	if f.kind.working() {
		submit = t.Accent + "enter continue on the : line" + t.Text + t.Muted
		if !f.Valid() {
			submit = "enter (disabled: incomplete)"
		}
	}
	// The footer names every key that acts on the focused row, wrapping
	// rather than cut.
	for i, l := range common.Pack(f.footer(submit), " · ", w-2) {
		if i > 0 || !f.Valid() {
			l = t.Muted + l
		}
		body = append(body, l+t.Muted+t.Text)
	}
	title := "New order " + f.symbol
	if f.kind != KindOrder {
		title = "New " + f.kind.String() + " " + f.symbol
	}
	if f.amend != nil {
		title = "Amend order " + strconv.FormatInt(f.amend.OrderID, 10) + " " + f.symbol
	}
	border := t.Buy
	if f.side == trade.Sell {
		border = t.Sell
	}
	return confirm.Frame(t, title, body, w, border)
}

// fieldLines are the rows of the form with the focus marker, each
// followed by its problem, if any.
func (f *Form) fieldLines(w int) []string {
	t := f.Theme
	sideStyle := t.BuyBold
	if f.side == trade.Sell {
		sideStyle = t.SellBold
	}
	var body []string
	for _, r := range f.rows() {
		marker := "  "
		if r == f.editing {
			marker = t.Accent + "> " + t.Text
		}
		label := common.Left(f.workPriceLabel(r), labelWidth)
		var val string
		switch r {
		case rowSide:
			val = sideStyle + string(f.side) + t.Text + t.Muted + "  (←/→)" + t.Text
		case rowType:
			val = f.typeChooser()
		case rowReduce:
			val = "no"
			if f.reduce {
				val = t.Warn + "yes" + t.Text
			}
			val += t.Muted + "  (←/→)" + t.Text
		case rowKind, rowSource, rowTPMarket:
			val = f.algoChoice(r)
		default:
			val = f.inputs[r].View()
			if r == rowQty || r == rowAmount {
				unit := trade.Base(f.symbol)
				if r == rowAmount {
					unit = trade.Quote(f.symbol)
				}
				val += " " + t.Muted + unit + t.Text
			}
		}
		body = append(body, marker+label+val)
		if msg := f.fieldMessage(r); msg != "" {
			for _, l := range common.Wrap(msg, w-14) {
				body = append(body, "            "+t.Error+l+t.Text)
			}
		}
	}
	return body
}

func (f *Form) typeChooser() string {
	t := f.Theme
	var sb strings.Builder
	for i, ty := range trade.Types {
		if i > 0 {
			sb.WriteString(" ")
		}
		if ty == f.typ {
			sb.WriteString(t.Reverse + string(ty) + t.Text)
		} else {
			sb.WriteString(t.Muted + string(ty) + t.Text)
		}
	}
	return sb.String()
}

func (f *Form) venuePriceNote() string {
	switch f.typ {
	case trade.Ask:
		return "price set by the venue: best ask (now " + decOrDash(f.env.Book.BestAsk) + ")"
	case trade.Bid:
		return "price set by the venue: best bid (now " + decOrDash(f.env.Book.BestBid) + ")"
	}
	return "price set by the book; size by quantity or quote amount"
}

func decOrDash(d decimal.Decimal) string {
	if d.IsPositive() {
		return d.String()
	}
	return "—"
}

// fieldMessage is the parse error or first problem of a row.
func (f *Form) fieldMessage(r row) string {
	if e, ok := f.parseErr[r]; ok {
		return e
	}
	for field, fr := range fieldRow {
		if fr != r {
			continue
		}
		if p, ok := f.problems.For(field); ok {
			return p.Error()
		}
	}
	return ""
}

// footer is the form's keys as they act on the focused row: stepping on
// the number rows (on the choice rows the arrows move between rows), =
// while the row has a nearest valid value, [ ] on every row of a priced
// type.
func (f *Form) footer(submit string) []string {
	parts := []string{submit, "tab next field"}
	switch f.editing {
	case rowSide, rowType, rowReduce, rowKind, rowSource, rowTPMarket:
		parts = append(parts, "↑↓ field")
	case rowTag:
	default:
		parts = append(parts, "↑↓ step")
	}
	if p, ok := f.problems.For(rowField[f.editing]); ok && p.HasNearest {
		parts = append(parts, "= nearest")
	}
	if f.typ.UserPriced() && (f.kind.makesOrder() || f.kind == KindScale) { // from every row of a form with a price
		parts = append(parts, "[ ] bid/ask")
	}
	return append(parts, "esc close")
}
