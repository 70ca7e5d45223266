package algos

// The working orders in the tab (issue 26): a chase, a scale or a TWAP
// takes the triggers' and distance's columns for its progress (filled of
// total with the average price; the peg and the room to the leash; rungs
// open and filled; slices done of total and when the next one goes), and
// the detail under the list says it in full, paused with why included.

import (
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"charm.land/bubbles/v2/key"
	"github.com/shopspring/decimal"

	"tradedeck/algo"
	"tradedeck/panes/common"
)

// PauseKey pauses a working order, or resumes a paused one.
var PauseKey = key.NewBinding(key.WithKeys("p"), key.WithHelp("p", "pause"))

// Working reports an algo that works the book (chase, scale, TWAP).
func Working(a *algo.Algo) bool { return a.Work != nil }

// Pausable reports whether p acts on an algo: a working order not
// finished.
func Pausable(a *algo.Algo) bool { return Working(a) && !a.State.Final() }

// pauseHelp is p's help for the selected algo: pause or resume.
func pauseHelp(a *algo.Algo) key.Binding {
	if a.State == algo.StatePaused {
		return key.NewBinding(key.WithKeys("p"), key.WithHelp("p", "resume"))
	}
	return PauseKey
}

// anyWorking reports whether the list holds a working order (the
// columns' titles then say progress too).
func (m *Model) anyWorking() bool {
	st := &m.Store.Algos
	for _, i := range m.rows {
		if i < len(st.List) && st.List[i].Work != nil {
			return true
		}
	}
	return false
}

// filledText is "0.30/1.00 @ 96985.2".
func (m *Model) filledText(a *algo.Algo) string {
	p, sym := a.Work, a.Spec.Symbol
	s := m.Store.Qty(sym, p.Filled) + "/" + m.Store.Qty(sym, p.Total)
	if p.Filled.IsPositive() && p.AvgPrice.IsPositive() {
		s += " @ " + m.Store.Price(sym, p.AvgPrice)
	}
	return s
}

// workProgress is a working row's progress in at most w cells: filled
// of total with the average price, then where it is (the peg and its room
// to the leash, the rungs, the slices). A narrow pane gets shorter forms
// before anything is cut: the average first (the detail shows it), then
// the labels, then all but the one figure that says where it is.
func (m *Model) workProgress(a *algo.Algo, w int) string {
	var s string
	for form := progressFull; form <= progressMinimal; form++ {
		if s = m.workProgressForm(a, form); utf8.RuneCountInString(s) <= w {
			break
		}
	}
	return s
}

// progress forms, longest first.
const (
	progressFull    = iota
	progressNoAvg   // without the average price
	progressShort   // short labels
	progressMinimal // the figure that says where it is
)

func (m *Model) workProgressForm(a *algo.Algo, form int) string {
	p, sym := a.Work, a.Spec.Symbol
	filled := m.Store.Qty(sym, p.Filled) + "/" + m.Store.Qty(sym, p.Total)
	if form == progressFull {
		filled = m.filledText(a)
	}
	parts := []string{filled} // filled/total: the detail says "filled"
	switch a.Spec.Kind {
	case algo.KindChase:
		if p.Peg.IsPositive() {
			parts = append(parts, "peg "+m.Store.Price(sym, p.Peg))
		} else {
			parts = append(parts, "none open")
		}
		switch {
		case a.State.Final():
		case !p.LeashDistance.IsPositive():
			parts = append(parts, "AT LEASH "+m.Store.Price(sym, p.Leash))
		case form == progressMinimal:
		case form == progressShort:
			parts = append(parts, "leash "+m.Store.Price(sym, p.LeashDistance))
		default:
			parts = append(parts, "to leash "+m.Store.Price(sym, p.LeashDistance))
		}
	case algo.KindScale:
		open, filled, of := strconv.Itoa(p.OrdersOpen), strconv.Itoa(p.OrdersFilled), strconv.Itoa(p.Orders)
		switch form {
		case progressMinimal:
			parts = append(parts, open+"/"+of+" open")
		case progressShort:
			parts = append(parts, open+" open, "+filled+" filled of "+of)
		default:
			parts = append(parts, "rungs "+open+" open, "+filled+" filled of "+of)
		}
	case algo.KindTWAP:
		slices := strconv.Itoa(p.SlicesDone) + "/" + strconv.Itoa(p.Slices)
		if form < progressShort {
			slices = "slices " + slices
		}
		if !p.NextSlice.IsZero() && !a.State.Final() && !p.Paused && form < progressMinimal {
			slices += " next " + p.NextSlice.UTC().Format("15:04:05")
		}
		parts = append(parts, slices)
	}
	return strings.Join(parts, " · ")
}

// workWhy is why a working order is paused (the state column says it
// is), else its reason.
func workWhy(a *algo.Algo) string {
	if (a.Work.Paused || a.State == algo.StatePaused) && a.Work.PausedWhy != "" {
		return a.Work.PausedWhy
	}
	return a.Reason
}

// workChildren is a working order's children: its open ones (price and
// quantity), then how many others filled or ended.
func (m *Model) workChildren(a *algo.Algo) string {
	sym := a.Spec.Symbol
	var open []string
	done := 0
	for i := len(a.Children) - 1; i >= 0; i-- {
		ch := &a.Children[i]
		if common.OpenWorkChild(ch) {
			if len(open) < 3 {
				open = append(open, m.Store.Price(sym, ch.Price)+" x "+m.Store.Qty(sym, ch.Quantity.Sub(ch.Executed)))
			}
			continue
		}
		done++
	}
	n := 0
	for i := range a.Children {
		if common.OpenWorkChild(&a.Children[i]) {
			n++
		}
	}
	s := strconv.Itoa(n) + " open"
	if len(open) > 0 {
		s += ": " + strings.Join(open, ", ")
		if n > len(open) {
			s += ", …"
		}
	}
	if done > 0 {
		s += " · " + strconv.Itoa(done) + " ended"
	}
	return s
}

// workDetail is the selected working order in full.
func (m *Model) workDetail(a *algo.Algo) []string {
	p, sym := a.Work, a.Spec.Symbol
	line := "#" + strconv.FormatInt(int64(a.ID), 10) + " " + a.Spec.String() + " · " + a.State.String() + " · filled " + m.filledText(a)
	if p.Arrival.IsPositive() {
		line += " (arrival " + m.Store.Price(sym, p.Arrival)
		if p.Filled.IsPositive() && p.AvgPrice.IsPositive() {
			line += ", slippage " + slippage(a) + "%"
		}
		line += ")"
	}
	out := []string{line}
	var second string
	switch a.Spec.Kind {
	case algo.KindChase:
		if p.Peg.IsPositive() {
			second = "pegged at " + m.Store.Price(sym, p.Peg)
		} else {
			second = "no order open"
		}
		second += " · leash " + m.Store.Price(sym, p.Leash) + ", " + m.Store.Price(sym, p.LeashDistance) +
			" from the best · " + strconv.Itoa(p.Reprices) + " re-price(s)"
	case algo.KindScale:
		second = strconv.Itoa(p.Orders) + " rungs: " + strconv.Itoa(p.OrdersOpen) + " open, " + strconv.Itoa(p.OrdersFilled) + " filled"
	case algo.KindTWAP:
		second = "slices " + strconv.Itoa(p.SlicesDone) + " done"
		if p.SlicesSkipped > 0 {
			second += ", " + strconv.Itoa(p.SlicesSkipped) + " skipped"
		}
		second += " of " + strconv.Itoa(p.Slices)
		if !p.NextSlice.IsZero() && !a.State.Final() && !p.Paused {
			second += " · next " + p.NextSlice.UTC().Format("15:04:05") + " (in " + untilText(m.Clock(), p.NextSlice) + ")"
		}
		if !p.Ends.IsZero() {
			second += " · ends " + p.Ends.UTC().Format("15:04:05")
		}
	}
	second += " · children: " + m.workChildren(a)
	out = append(out, second)
	if why := workWhy(a); a.State == algo.StatePaused {
		out = append(out, "paused: "+why+" (p resumes)")
	} else if why != "" {
		out = append(out, why)
	}
	return out
}

// slippage is the average fill against the arrival price, in percent,
// positive when worse for the side.
func slippage(a *algo.Algo) string {
	p := a.Work
	d := p.AvgPrice.Sub(p.Arrival)
	if a.Work != nil && a.Spec.Work.Side == "SELL" {
		d = d.Neg()
	}
	pct := d.Div(p.Arrival).Mul(decimal.NewFromInt(100))
	s := pct.StringFixed(3)
	if pct.IsPositive() {
		s = "+" + s
	}
	return s
}

func untilText(now, at time.Time) string {
	d := at.Sub(now)
	if d < 0 {
		return "due"
	}
	return d.Round(time.Second).String()
}
