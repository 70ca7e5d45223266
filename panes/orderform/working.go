package orderform

// The working kinds in the order form (issue 26): chase, scale and TWAP.
// The form takes what every working order has (side, quantity, a scale's
// first price, reduce-only) and enter continues on the ':' command line
// with those words typed and the rest completed there (CommandMsg): a
// working order's options are a dozen optional words with defaults
// (offset, threshold, leash, at-leash, post; count and skew; slices,
// jitter, limit, outside, slice, catch-up), and the line shows exactly
// those set, in the text `tradedeck algo add`, alerts and the Algos tab
// use. A row for each would make a form too tall to be drawn whole at
// 80x24, and the key gate takes no key but esc in a form it cannot
// show. The engine's Preview in the confirmation shows what it resolved.

import (
	"strings"

	tea "charm.land/bubbletea/v2"

	"tradedeck/panes/common"
	"tradedeck/trade"
)

// CommandMsg asks the wiring to close the form and open the ':' line
// with Line typed (its completion takes over).
type CommandMsg struct{ Line string }

// working reports the kinds continued on the ':' line.
func (k Kind) working() bool { return k >= KindChase }

// workRows are a working kind's rows after the kind row.
func (f *Form) workRows() []row {
	rs := []row{rowSide, rowQty}
	if f.kind == KindScale {
		rs = append(rs, rowPrice) // "from": the ladder's first rung
	}
	if trade.IsPerp(f.symbol) {
		rs = append(rs, rowReduce)
	}
	return rs
}

// checkWork checks what the form takes of a working order.
func (f *Form) checkWork() {
	f.specErr = ""
	switch {
	case f.text(rowQty) == "":
		f.specErr = "quantity is needed"
	case !f.order.Quantity.IsPositive():
		f.specErr = "quantity: a positive number"
	case f.kind == KindScale && !f.order.Price.IsPositive():
		f.specErr = "from: the price of the first rung"
	}
}

// WorkLine is the ':' line the form continues on: kind, symbol, side,
// quantity, a scale's first price (then "to", the next word to type),
// and reduce (chase: last; the others take it after their required
// words, so the line says where).
func (f *Form) WorkLine() string {
	words := []string{f.kind.String(), f.symbol, strings.ToLower(string(f.side)), f.text(rowQty)}
	reduce := f.reduce && trade.IsPerp(f.symbol)
	switch f.kind {
	case KindChase:
		if reduce {
			words = append(words, "reduce")
		}
	case KindScale:
		words = append(words, "from", f.text(rowPrice), "to")
	case KindTWAP:
		words = append(words, "over")
	}
	return strings.Join(words, " ") + " "
}

func (f *Form) submitWork() tea.Cmd {
	if f.specErr != "" {
		f.hint = "not yet: " + f.specErr
		return nil
	}
	line := f.WorkLine()
	return func() tea.Msg { return CommandMsg{Line: line} }
}

// workLines say what enter does and what the line still needs.
func (f *Form) workLines(w int) []string {
	t := f.Theme
	var out []string
	if f.specErr != "" {
		for _, l := range common.Wrap(f.specErr, w-2) {
			out = append(out, t.Error+l+t.Text)
		}
		return out
	}
	for _, l := range common.Wrap(":"+f.WorkLine()+"…", w-2) {
		out = append(out, t.Accent+l+t.Text)
	}
	var rest string
	switch f.kind {
	case KindChase:
		rest = "tab completes: offset TICKS, threshold TICKS, leash PRICE (default 1% from arrival), at-leash rest|cancel, post"
	case KindScale:
		rest = "type the last rung's price, then count N (2-100); tab completes skew, post"
	case KindTWAP:
		rest = "type the duration (1m-24h); tab completes slices, jitter, limit, outside, slice, catchup"
	}
	if f.reduce && trade.IsPerp(f.symbol) && f.kind != KindChase {
		rest += ", and reduce (add it: every child reduce-only)"
	}
	for _, l := range common.Wrap(rest+" · the confirmation shows the engine's preview", w-2) {
		out = append(out, t.Muted+l+t.Text)
	}
	return out
}

// workPriceLabel names the price row "from" in a scale.
func (f *Form) workPriceLabel(r row) string {
	if r == rowPrice && f.kind == KindScale {
		return "from"
	}
	return r.label()
}
