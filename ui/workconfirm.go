package ui

// The confirmation of a working order (issue 26): what the engine's
// Preview resolved, in the words a trader checks before sending: side
// and quantity; a chase's first order, its resolved leash and how far it
// is from the arrival price; every rung of a scale with its price, size
// and notional, and the total (the rungs scroll when the screen cannot
// hold them, and the confirmation waits until each was shown); a TWAP's
// slices, slice size, interval, end time, price bound and catch-up.

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/shopspring/decimal"

	"tradedeck/algo"
	"tradedeck/panes/common"
	"tradedeck/panes/confirm"
	"tradedeck/trade"
)

// working reports the working kinds (chase, scale, TWAP).
func working(k algo.Kind) bool {
	return k == algo.KindChase || k == algo.KindScale || k == algo.KindTWAP
}

// confirmWork opens the confirmation of a working order's Preview.
func (m *Model) confirmWork(msg algoPreviewMsg) tea.Cmd {
	p := msg.preview
	sp := p.Spec
	// The engine resolves a default leash into the spec it previews; the
	// spec as typed says whether it was one.
	lines, list := WorkPreviewLines(m.store, p, msg.spec.Work.Leash.IsZero(), m.c.Clock())
	opts := confirm.Options{Title: "Confirm " + sp.Label() + " " + sp.Symbol, Lines: lines, List: list, SeeAll: true,
		Wide: true, Action: workAction(p), Grace: m.trader.opts.Grace}
	if warn := workWarning(sp); warn != "" {
		opts.Strong, opts.Warning = true, warn
	}
	spec, src, by := sp, m.opts.Algos, m.algoBy()
	what := sp.Label() + " " + sp.Symbol
	add := func() tea.Msg {
		a, err := src.Add(spec, algo.Confirm{By: by})
		return AlgoResultMsg{What: what, Algo: a, Err: err}
	}
	opts.OnConfirm = add
	if msg.fromForm {
		opts.OnConfirm = tea.Sequence(common.Close, add)
	}
	return common.Open(confirm.New(m.c, opts))
}

// workAction is the confirm button's label.
func workAction(p algo.Preview) string {
	w := p.Spec.Work
	switch p.Spec.Kind {
	case algo.KindScale:
		n := p.Spec.Work.Count
		if p.Work != nil && len(p.Work.Orders) > 0 {
			n = len(p.Work.Orders)
		}
		return fmt.Sprintf("place %d %s orders", n, w.Side)
	case algo.KindTWAP:
		return "start the " + string(w.Side) + " TWAP"
	}
	return "start chasing (" + string(w.Side) + ")"
}

// workWarning is the strong form's reason: orders that trade at any
// price the book offers.
func workWarning(s algo.Spec) string {
	w := s.Work
	if s.Kind == algo.KindTWAP && w.SliceType == algo.SliceMarket && !w.Bound.IsPositive() {
		return "MARKET slices with no price bound: every slice fills at whatever the book offers (add limit PRICE to bound them)"
	}
	return ""
}

// WorkPreviewLines are a working order's confirmation lines and, for a
// scale, the list of its rungs (one line each). leashDefault: the chase
// was typed without a leash (the engine chose it).
func WorkPreviewLines(s *common.Store, p algo.Preview, leashDefault bool, now time.Time) (lines, list []string) {
	sp := p.Spec
	w := sp.Work
	wp := p.Work
	if wp == nil {
		wp = &algo.WorkPreview{}
	}
	sym := sp.Symbol
	head := fmt.Sprintf("%s %s %s", w.Side, s.Qty(sym, w.Quantity), sym)
	if w.Reduce {
		head += ", every order reduce-only (it closes, never opens)"
	}
	lines = append(lines, head)
	switch sp.Kind {
	case algo.KindChase:
		lines = append(lines, chaseLines(s, sp, wp, leashDefault)...)
	case algo.KindScale:
		var l []string
		l, list = scaleLines(s, sp, wp)
		lines = append(lines, l...)
	case algo.KindTWAP:
		lines = append(lines, twapLines(s, sp, wp, now)...)
	}
	arrival := "arrival (mid) "
	if wp.Arrival.IsPositive() {
		arrival += s.Price(sym, wp.Arrival)
	} else {
		arrival += "not seen yet"
	}
	lines = append(lines, arrival+" · runs while this account's engine runs · p pauses it in the Algos tab")
	lines = append(lines, p.Warnings...)
	if len(list) > 0 {
		typ := "LIMIT"
		if w.Post {
			typ = "POST_ONLY"
		}
		if w.Reduce {
			typ += " reduce-only"
		}
		lines = append(lines, "every rung, "+typ+": price x size = notional "+trade.Quote(sym))
	}
	return lines, list
}

func chaseLines(s *common.Store, sp algo.Spec, wp *algo.WorkPreview, leashDefault bool) []string {
	w, sym := sp.Work, sp.Symbol
	best := "bid"
	if w.Side == trade.Sell {
		best = "ask"
	}
	typ := "LIMIT"
	if w.Post {
		typ = "POST_ONLY"
	}
	peg := "joins the best " + best
	if w.Offset > 0 {
		peg = fmt.Sprintf("rests %d tick(s) behind the best %s", w.Offset, best)
	}
	move := "re-priced on every move of the best " + best
	if w.Threshold > 0 {
		move = fmt.Sprintf("re-priced when the best %s moves more than %d tick(s)", best, w.Threshold)
	}
	out := []string{typ + " order that " + peg + "; " + move + " (cancel, then new: the venue has no amend)"}
	leash := "leash " + s.Price(sym, wp.Leash)
	if leashDefault {
		leash += " (the default: 1% from the arrival price)"
	}
	worse := "higher" // a BUY chases the price up
	if w.Side == trade.Sell {
		worse = "lower"
	}
	if wp.Arrival.IsPositive() && wp.Leash.IsPositive() {
		d := wp.Leash.Sub(wp.Arrival)
		above := "above"
		if d.IsNegative() {
			above = "below"
		}
		d = d.Abs()
		leash += fmt.Sprintf(", %s (%s%%) %s arrival", s.Price(sym, d), d.Div(wp.Arrival).Mul(decimal.NewFromInt(100)).StringFixed(2), above)
	}
	leash += ": it never rests " + worse
	if w.AtLeash == algo.LeashCancel {
		leash += "; reaching it CANCELS the order and ends"
	} else {
		leash += "; reaching it, the order rests there"
	}
	out = append(out, leash)
	if len(wp.Orders) > 0 {
		o := wp.Orders[0]
		out = append(out, "first order: "+plannedText(s, sym, o)+" (at the preview's book)")
	}
	return out
}

func scaleLines(s *common.Store, sp algo.Spec, wp *algo.WorkPreview) (lines, list []string) {
	w, sym := sp.Work, sp.Symbol
	typ := "LIMIT"
	if w.Post {
		typ = "POST_ONLY"
	}
	sizes := "flat sizes"
	switch w.Skew.Kind {
	case algo.SkewLinear:
		sizes = "linear sizes, the last rung " + w.Skew.Factor.String() + "x the first"
	case algo.SkewExp:
		sizes = "exponential sizes, each rung " + w.Skew.Factor.String() + "x the previous"
	}
	lines = append(lines, fmt.Sprintf("%d %s orders from %s to %s, %s, on the tick and lot grid",
		len(wp.Orders), typ, s.Price(sym, w.From), s.Price(sym, w.To), sizes))
	qty, avg := decimal.Zero, decimal.Zero
	for _, o := range wp.Orders {
		qty = qty.Add(o.Quantity)
	}
	if qty.IsPositive() {
		avg = wp.Notional.Div(qty)
	}
	lines = append(lines, fmt.Sprintf("total %s %s, notional %s %s, average price %s", s.Qty(sym, qty), trade.Base(sym),
		wp.Notional.StringFixed(2), trade.Quote(sym), s.Price(sym, avg)))
	if !qty.Equal(w.Quantity) {
		lines = append(lines, "the rungs total "+s.Qty(sym, qty)+", not the "+s.Qty(sym, w.Quantity)+" asked: sizes were rounded to the lot")
	}
	width := len(strconv.Itoa(len(wp.Orders)))
	for i, o := range wp.Orders {
		list = append(list, fmt.Sprintf("%*d  %s x %s = %s", width, i+1, s.Price(sym, o.Price), s.Qty(sym, o.Quantity),
			o.Price.Mul(o.Quantity).StringFixed(2)))
	}
	return lines, list
}

func twapLines(s *common.Store, sp algo.Spec, wp *algo.WorkPreview, now time.Time) []string {
	w, sym := sp.Work, sp.Symbol
	out := []string{fmt.Sprintf("over %s: %d slices of %s %s, one every %s", shortDuration(w.Over), wp.Slices, s.Qty(sym, wp.SliceQty),
		trade.Base(sym), shortDuration(wp.Interval.Round(time.Millisecond)))}
	if w.Jitter.IsPositive() {
		out[0] += " (±" + w.Jitter.String() + "% of size and time, at random)"
	}
	out = append(out, "ends about "+now.Add(w.Over).UTC().Format("15:04:05")+" UTC if started now")
	slice := "each slice a MARKET order"
	if w.SliceType == algo.SliceBest {
		slice = "each slice a LIMIT at the best price of its side, IOC (what does not fill at once is not chased)"
	}
	out = append(out, slice)
	if w.Bound.IsPositive() {
		worse := "above"
		if w.Side == trade.Sell {
			worse = "below"
		}
		var policy string
		switch w.Outside {
		case algo.BoundSkip:
			policy = "the slice is skipped (reported) and the schedule goes on"
		case algo.BoundStop:
			policy = "the TWAP STOPS"
		default:
			policy = "the TWAP pauses until the market is back inside"
		}
		out = append(out, fmt.Sprintf("bound %s: no slice trades %s it; outside it %s", s.Price(sym, w.Bound), worse, policy))
	} else {
		out = append(out, "bound: none (limit PRICE sets one)")
	}
	var catch string
	switch w.CatchUp.Policy {
	case algo.CatchSkip:
		catch = "overdue slices are dropped and reported"
	case algo.CatchBounded:
		catch = fmt.Sprintf("at most %d extra slice(s)' worth per slice until caught up", w.CatchUp.Max)
	default:
		catch = "the overdue quantity is spread over the remaining slices"
	}
	out = append(out, "after a stall or restart: "+catch+"; never every overdue slice at once")
	if wp.Notional.IsPositive() {
		out = append(out, "notional about "+wp.Notional.StringFixed(2)+" "+trade.Quote(sym)+" at the arrival price")
	}
	return out
}

// shortDuration writes whole seconds by their non-zero units (2m,
// 1h30m, 1m30s, 45s), as the grammar takes them; a fraction as Go does.
func shortDuration(d time.Duration) string {
	if d <= 0 || d%time.Second != 0 {
		return d.String()
	}
	var b strings.Builder
	for _, u := range []struct {
		d    time.Duration
		name string
	}{{time.Hour, "h"}, {time.Minute, "m"}, {time.Second, "s"}} {
		if n := d / u.d; n > 0 {
			b.WriteString(strconv.FormatInt(int64(n), 10) + u.name)
			d -= n * u.d
		}
	}
	return b.String()
}

// plannedText is one planned order: "LIMIT 97000.0 x 0.040".
func plannedText(s *common.Store, sym string, o algo.PlannedOrder) string {
	t := string(o.Type)
	if o.Price.IsPositive() {
		t += " " + s.Price(sym, o.Price)
	}
	t += " x " + s.Qty(sym, o.Quantity)
	if o.ReduceOnly {
		t += " reduce-only"
	}
	return t
}

// workFamily names the family in a refusal: "working orders" for the
// working kinds, "protective orders" for the others.
func workFamily(k algo.Kind) string {
	if working(k) {
		return "working orders"
	}
	return "protective orders"
}

// workCancelLines say what cancelling a working order does.
func workCancelLines(s *common.Store, a algo.Algo) []string {
	p, sym := a.Work, a.Spec.Symbol
	return []string{fmt.Sprintf("#%d %s %s %s, %s: filled %s of %s", a.ID, a.Spec.Label(), a.Spec.Work.Side, sym, a.State,
		s.Qty(sym, p.Filled), s.Qty(sym, p.Total)),
		"nothing new is placed from now on; its open orders are cancelled (final state known)",
		"what filled stays filled: the position keeps it"}
}

// pauseAlgo asks, then pauses a working order, or resumes a paused one.
func (m *Model) pauseAlgo(a algo.Algo) tea.Cmd {
	if a.Work == nil {
		return common.Notify(common.NoticeWarn, fmt.Sprintf("algo #%d (%s): %s", a.ID, a.Spec.Label(), algo.ErrNotPausable))
	}
	if a.State.Final() {
		return common.Notify(common.NoticeInfo, fmt.Sprintf("algo #%d is %s: nothing to pause", a.ID, a.State))
	}
	resume := a.State == algo.StatePaused
	word := "pause"
	if resume {
		word = "resume"
	}
	if cmd, refused := m.refuseAlgo(word + " working orders"); refused {
		return cmd
	}
	sym := a.Spec.Symbol
	lines := []string{fmt.Sprintf("#%d %s %s %s: filled %s of %s", a.ID, a.Spec.Label(), a.Spec.Work.Side, sym,
		m.store.Qty(sym, a.Work.Filled), m.store.Qty(sym, a.Work.Total))}
	if resume {
		lines = append(lines, "it works the book again from now: "+resumeNote(a))
	} else {
		lines = append(lines, "its open orders are cancelled (final state known) and nothing new is placed until p resumes it",
			"what filled stays filled")
	}
	src, id, by := m.opts.Algos, a.ID, m.algoBy()
	what := fmt.Sprintf("%s algo #%d", word, id)
	act := func() tea.Msg {
		if resume {
			return AlgoResultMsg{What: what, Err: src.Resume(id)}
		}
		return AlgoResultMsg{What: what, Err: src.Pause(id, "paused by "+by)}
	}
	return common.Open(confirm.New(m.c, confirm.Options{Title: fmt.Sprintf("Confirm: %s algo #%d", word, id), Lines: lines,
		Action: word + " " + a.Spec.Label(), Grace: m.trader.opts.Grace, OnConfirm: act}))
}

// resumeNote says what a resume does with the time it was paused.
func resumeNote(a algo.Algo) string {
	switch a.Spec.Kind {
	case algo.KindChase:
		return "a new order at the peg (never past the leash)"
	case algo.KindScale:
		return "the rungs not filled are placed again"
	}
	switch a.Spec.Work.CatchUp.Policy {
	case algo.CatchSkip:
		return "the slices missed while paused are dropped (reported)"
	case algo.CatchBounded:
		return fmt.Sprintf("the missed slices are caught up at most %d extra slice(s)' worth at a time", a.Spec.Work.CatchUp.Max)
	}
	return "the missed quantity is spread over the remaining slices, never sent at once"
}
