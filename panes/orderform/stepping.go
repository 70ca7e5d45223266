package orderform

import (
	"strconv"

	tea "charm.land/bubbletea/v2"
	"github.com/shopspring/decimal"

	"tradedeck/panes/common"
	"tradedeck/trade"
)

// Stepping a price or size by its grid, and the nearest valid value.

// step moves the focused numeric field by n ticks (price) or steps.
func (f *Form) step(n int) {
	cur, _ := decimal.NewFromString(f.text(f.editing))
	switch f.editing {
	case rowPrice:
		if !cur.IsPositive() {
			cur = f.bestSame()
			n = 0
		}
		if cur.IsPositive() {
			f.setText(rowPrice, f.fmtPrice(f.rule.StepPrice(cur, n)))
		}
	case rowQty, rowVisible:
		if !cur.IsPositive() && n > 0 {
			cur, n = trade.MinQuantity(trade.RefPrice(f.order, f.env.Book), f.rule), 0
		}
		f.setText(f.editing, f.fmtQty(f.rule.StepQty(cur, n)))
		f.exclusive()
	case rowAmount:
		tick := f.rule.QuoteTick
		if !tick.IsPositive() {
			tick = decimal.New(1, -2)
		}
		v := cur.Add(tick.Mul(decimal.NewFromInt(int64(n))))
		if v.IsPositive() {
			f.setText(rowAmount, v.String())
			f.exclusive()
		}
	case rowTrigger, rowTPPrice, rowSLPrice, rowLimit, rowActivation:
		f.stepPrice(f.editing, n)
	case rowCID:
		id, _ := strconv.ParseInt(f.text(rowCID), 10, 64)
		if id+int64(n) > 0 {
			f.setText(rowCID, strconv.FormatInt(id+int64(n), 10))
		}
	}
}

// applyNearest replaces the focused field by the nearest valid value of
// its first problem.
// rowField is the order field a text row edits.
var rowField = map[row]trade.Field{rowPrice: trade.FieldPrice, rowQty: trade.FieldQuantity,
	rowAmount: trade.FieldAmount, rowVisible: trade.FieldVisible, rowCID: trade.FieldClientOrderID}

func (f *Form) applyNearest() {
	p, ok := f.problems.For(rowField[f.editing])
	if !ok || !p.HasNearest {
		f.hint = "nothing to correct here"
		return
	}
	f.setText(f.editing, p.Nearest.String())
	f.exclusive()
}

// bestPrice sets the price to the best ask (ask) or bid from any row of a
// form that has a price. Where it cannot act, the status line says why:
// a key the footer shows never does nothing silently.
func (f *Form) bestPrice(ask bool) tea.Cmd {
	name, side, p := "[ best bid", "bid", f.env.Book.BestBid
	if ask {
		name, side, p = "] best ask", "ask", f.env.Book.BestAsk
	}
	switch {
	case f.kind == KindChase || f.kind == KindTWAP:
		return common.Notify(common.NoticeWarn, name+": a "+f.kind.String()+" takes its prices (leash, limit) on the : line")
	case !f.typ.UserPriced():
		return common.Notify(common.NoticeWarn, name+": "+f.noPriceNote())
	case !p.IsPositive():
		return common.Notify(common.NoticeWarn, name+": no "+side+" in the "+f.symbol+" book yet; the price is unchanged")
	}
	f.priceSet = true
	f.setText(rowPrice, f.fmtPrice(p))
	f.revalidate()
	return nil
}

// usePrice takes a clicked (or selected) book level's price, or says why
// it cannot.
func (f *Form) usePrice(msg common.UsePriceMsg) tea.Cmd {
	switch {
	case msg.Symbol != f.symbol:
		return common.Notify(common.NoticeWarn, "book price "+msg.Price.String()+" is "+msg.Symbol+"'s; this form is for "+f.symbol)
	case !f.typ.UserPriced():
		return common.Notify(common.NoticeWarn, "book price "+msg.Price.String()+": "+f.noPriceNote())
	}
	f.priceSet = true
	f.setText(rowPrice, f.fmtPrice(msg.Price))
	f.revalidate()
	return nil
}

// noPriceNote says why a form of a type the venue prices takes no price.
func (f *Form) noPriceNote() string {
	switch f.typ {
	case trade.Ask:
		return "ASK orders have no price to set: the venue takes the best ask"
	case trade.Bid:
		return "BID orders have no price to set: the venue takes the best bid"
	}
	return string(f.typ) + " orders have no price to set: the book prices them"
}

func (f *Form) setPriceIf(p decimal.Decimal) {
	if p.IsPositive() {
		f.setText(rowPrice, f.fmtPrice(p))
	} else {
		f.hint = "that side of the book is empty"
	}
}

// fillPrice gives a form opened before its book arrived (a symbol just
// switched to, a slow sync) the best price of its side once there is
// one, as opening would have, unless a price was given or edited since.
func (f *Form) fillPrice() {
	if f.priceSet || !f.typ.UserPriced() || f.text(rowPrice) != "" {
		return
	}
	if p := f.bestSame(); p.IsPositive() {
		f.setText(rowPrice, f.fmtPrice(p))
	}
}

// bestSame is the best price on the order's own side: a BUY joins the
// bid, a SELL the ask. Prefilling the passive price means a form sent
// without looking never crosses the book.
func (f *Form) bestSame() decimal.Decimal {
	if f.side == trade.Buy {
		return f.env.Book.BestBid
	}
	return f.env.Book.BestAsk
}

func (f *Form) fmtPrice(p decimal.Decimal) string {
	if f.ruleOK && f.rule.QuoteTick.IsPositive() {
		return p.StringFixed(-f.rule.QuoteTick.Exponent())
	}
	return p.String()
}

func (f *Form) fmtQty(q decimal.Decimal) string {
	if f.ruleOK && f.rule.BaseTick.IsPositive() && f.rule.BaseTick.Exponent() < 0 {
		return q.StringFixed(-f.rule.BaseTick.Exponent())
	}
	return q.String()
}
