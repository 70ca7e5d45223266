package ui

// Every algo action the screens offer: add (from a ':' command, the order
// form, or x on a position), cancel, amend a trigger, resolve a "needs
// decision". Each opens a confirmation built from the engine's answer
// (the Preview for an add), so each inherits the root's key gate; each
// is refused with the reason in read-only mode, for a viewer session and
// while no process runs the engine. The engine's calls run in commands,
// never on the UI goroutine.

import (
	"errors"
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/shopspring/decimal"

	"tradedeck/algo"
	"tradedeck/panes/account"
	"tradedeck/panes/common"
	"tradedeck/panes/confirm"
	"tradedeck/panes/orderform"
)

// Results of the algo actions.
type (
	// algoPreviewMsg is the engine's Preview of a spec, for its
	// confirmation.
	algoPreviewMsg struct {
		spec    algo.Spec
		preview algo.Preview
		err     error
		// fromForm: the order form is under the confirmation; confirming
		// closes it too.
		fromForm bool
	}
	// AlgoResultMsg is the outcome of an algo action.
	AlgoResultMsg struct {
		What string
		Algo algo.Algo // Add's
		Err  error
	}
)

// algoKinds are the ':' commands that add an algo (algo.Grammar).
var algoKinds = map[string]bool{"stop": true, "sl": true, "tp": true, "take-profit": true, "oco": true,
	"trail": true, "trailing": true, "bracket": true, "chase": true, "scale": true, "ladder": true, "twap": true}

// algoRefusal says why no algo action may run now ("": they may).
func (m *Model) algoRefusal(what string) string {
	if m.trader.ReadOnly() {
		return what + " is disabled: " + m.trader.opts.ReadOnly
	}
	if m.opts.Algos == nil {
		return what + ": engine not running (no process holds the protective-orders engine of this account)"
	}
	switch st := m.store.Algos; st.Engine {
	case common.EngineNone:
		why := "engine not running"
		if st.Where != "" {
			why += ": " + st.Where
		}
		return what + ": " + why
	case common.EngineStarting:
		return what + ": the engine is still reconciling with the venue; try again in a moment"
	}
	return ""
}

func (m *Model) refuseAlgo(what string) (tea.Cmd, bool) {
	if why := m.algoRefusal(what); why != "" {
		return common.Notify(common.NoticeWarn, why), true
	}
	return nil, false
}

// AddAlgo previews a spec on the engine, then opens its confirmation.
func (m *Model) AddAlgo(s algo.Spec) tea.Cmd { return m.addAlgo(s, false) }

func (m *Model) addAlgo(s algo.Spec, fromForm bool) tea.Cmd {
	if cmd, refused := m.refuseAlgo(workFamily(s.Kind)); refused {
		return cmd
	}
	src := m.opts.Algos
	return func() tea.Msg {
		p, err := src.Preview(s)
		return algoPreviewMsg{spec: s, preview: p, err: err, fromForm: fromForm}
	}
}

// algoCommand runs ':stop ...', ':tp ...', ':oco ...', ':trail ...' and
// ':bracket ...' (algo.Grammar). A symbol left out is the focused one.
func (m *Model) algoCommand(name string, args []string) tea.Cmd {
	line := name + " " + strings.Join(args, " ")
	s, err := algo.Parse(line)
	var pe *algo.ParseError
	if err != nil && errors.As(err, &pe) && pe.Word == 1 && m.symbol != "" {
		// ":stop 95000": the focused symbol.
		s, err = algo.Parse(name + " " + m.symbol + " " + strings.Join(args, " "))
	}
	if err != nil {
		return common.Notify(common.NoticeError, name+": "+err.Error()+" (usage: "+grammarOf(name)+")")
	}
	return m.AddAlgo(s)
}

func grammarOf(name string) string {
	for _, g := range algo.Grammar {
		if strings.HasPrefix(g, name+" ") {
			return g
		}
	}
	return strings.Join(algo.Kinds, "|") + " ..."
}

// confirmAlgo is the confirmation of an add: what the engine's Preview
// says (exit side, size, reduce-only, each leg's trigger, source and
// distance to the market), and the choice for a trigger already through
// the market: confirming then fires it at once, and says so strongly.
func (m *Model) confirmAlgo(msg algoPreviewMsg) tea.Cmd {
	if cmd, refused := m.refuseAlgo(workFamily(msg.spec.Kind)); refused {
		return cmd
	}
	if msg.err != nil {
		return common.Notify(common.NoticeError, msg.spec.Label()+" "+msg.spec.Symbol+" refused: "+msg.err.Error())
	}
	if working(msg.preview.Spec.Kind) {
		return m.confirmWork(msg)
	}
	p := msg.preview
	lines := PreviewLines(m.store, p)
	through := len(p.Through) > 0
	opts := confirm.Options{Title: "Confirm " + p.Spec.Label() + " " + p.Spec.Symbol, Lines: lines,
		Action: "arm " + p.Spec.Label(), Grace: m.trader.opts.Grace}
	var warn []string
	if through {
		warn = append(warn, "ALREADY THROUGH the market ("+strings.Join(p.Through, ", ")+"): confirming FIRES IT NOW at market; n to back out")
		opts.Action = "fire " + p.Spec.Label() + " now"
	}
	if p.Spec.Kind == algo.KindBracket && p.Spec.Entry.Type == "MARKET" {
		warn = append(warn, "the entry is a MARKET order: it fills at whatever the book offers")
	}
	if len(warn) > 0 {
		opts.Strong, opts.Warning = true, strings.Join(warn, ". ")
	}
	spec, src, by := p.Spec, m.opts.Algos, m.algoBy()
	what := p.Spec.Label() + " " + p.Spec.Symbol
	add := func() tea.Msg {
		a, err := src.Add(spec, algo.Confirm{FireIfThrough: through, By: by})
		return AlgoResultMsg{What: what, Algo: a, Err: err}
	}
	opts.OnConfirm = add
	if msg.fromForm {
		opts.OnConfirm = tea.Sequence(common.Close, add) // the form under it
	}
	return common.Open(confirm.New(m.c, opts))
}

// algoBy names who acts, for the engine's database and serve's audit.
func (m *Model) algoBy() string {
	if m.opts.AlgoBy != "" {
		return m.opts.AlgoBy
	}
	return "dashboard"
}

// PreviewLines are the confirmation's lines for an algo's Preview.
func PreviewLines(s *common.Store, p algo.Preview) []string {
	sp := p.Spec
	sym := sp.Symbol
	size := s.Qty(sym, p.Size)
	var lines []string
	if sp.Kind == algo.KindBracket {
		e := sp.Entry
		entry := string(e.Side) + " " + string(e.Type) + " " + s.Qty(sym, e.Quantity) + " " + sym
		if e.Type != "MARKET" {
			entry += " @ " + s.Price(sym, e.Price)
		}
		lines = append(lines, "entry: "+entry)
		lines = append(lines, fmt.Sprintf("exits: %s what the entry fills, from its first partial fill on%s", p.Side, reduceOnlyWord(p.ReduceOnly)))
	} else {
		pos := "position " + s.Qty(sym, p.Position)
		lines = append(lines, fmt.Sprintf("exit: %s %s %s%s (%s now; sized again from the live position when sent)",
			p.Side, size, sym, reduceOnlyWord(p.ReduceOnly), pos))
	}
	for _, l := range p.Legs {
		if l.Leg == algo.LegEntry {
			continue
		}
		line := fmt.Sprintf("%s %s on %s → %s", l.Leg, s.Price(sym, l.Trigger), l.Source, l.Order)
		if p.Market.IsPositive() {
			line += fmt.Sprintf("  (%s away, %s%%)", s.Price(sym, l.Distance), l.DistancePct)
		}
		if l.Through {
			line += "  ALREADY THROUGH"
		}
		lines = append(lines, line)
	}
	src := "market " + sp.Source.String() + " "
	if p.Market.IsPositive() {
		src += s.Price(sym, p.Market)
	} else {
		src += "not seen yet"
	}
	lines = append(lines, src+" · fires only on fresh data · runs while this account's engine runs")
	if len(p.Through) == 0 {
		lines = append(lines, "already through when armed: nothing is (a trigger crossed later fires then)")
	}
	return append(lines, p.Warnings...)
}

func reduceOnlyWord(ro bool) string {
	if ro {
		return " reduce-only"
	}
	return ""
}

// confirmCancelAlgo asks, then cancels one algo.
func (m *Model) confirmCancelAlgo(a algo.Algo) tea.Cmd {
	if cmd, refused := m.refuseAlgo("cancelling algos"); refused {
		return cmd
	}
	if a.State.Final() { // the tab does not offer c there
		return common.Notify(common.NoticeInfo, fmt.Sprintf("algo #%d is %s: nothing to cancel", a.ID, a.State))
	}
	lines := []string{fmt.Sprintf("#%d %s %s, %s", a.ID, a.Spec.Label(), a.Spec.Symbol, a.State),
		"its triggers are disarmed at once; its resting orders are cancelled",
		"an exit already sent stays with the venue"}
	if a.Work != nil {
		lines = workCancelLines(m.store, a)
	}
	if _, ok := m.store.Algos.Protecting(a.Spec.Symbol); ok && a.Spec.Kind != algo.KindTP && a.Work == nil {
		lines = append(lines, "the position may be left UNPROTECTED")
	}
	src, id := m.opts.Algos, a.ID
	what := fmt.Sprintf("cancel algo #%d", id)
	return common.Open(confirm.New(m.c, confirm.Options{Title: fmt.Sprintf("Cancel algo #%d", id), Lines: lines,
		Action: "cancel algo", Grace: m.trader.opts.Grace,
		OnConfirm: func() tea.Msg { return AlgoResultMsg{What: what, Err: src.Cancel(id, "")} }}))
}

// amendAlgo asks for the new level of a leg (a prompt), then confirms.
func (m *Model) amendAlgo(a algo.Algo) tea.Cmd {
	if cmd, refused := m.refuseAlgo("amending algos"); refused {
		return cmd
	}
	var legs []string
	cur := map[string]decimal.Decimal{}
	for _, t := range a.Triggers {
		if (t.Leg == algo.LegStop || t.Leg == algo.LegTP) && a.Spec.Kind != algo.KindTrail {
			if _, dup := cur[t.Leg.String()]; !dup {
				legs = append(legs, t.Leg.String())
			}
			cur[t.Leg.String()] = t.Price
		}
	}
	if len(legs) == 0 {
		return common.Notify(common.NoticeWarn, fmt.Sprintf("algo #%d (%s) has no level to amend", a.ID, a.Spec.Label()))
	}
	sym := a.Spec.Symbol
	fields := []account.Field{{Label: "leg", Choices: legs, Value: legs[0]},
		{Label: "new level", Value: m.store.Price(sym, cur[legs[0]]), Hint: "price"}}
	return common.Open(account.NewPrompt(m.c, fmt.Sprintf("Amend algo #%d %s %s", a.ID, a.Spec.Label(), sym), fields,
		func(v []string) (tea.Cmd, string) {
			price, err := decimal.NewFromString(strings.TrimSpace(v[1]))
			if err != nil || !price.IsPositive() {
				return nil, "new level: a positive price"
			}
			leg := algo.LegStop
			if v[0] == algo.LegTP.String() {
				leg = algo.LegTP
			}
			return m.confirmAmendAlgo(a, leg, cur[v[0]], price), ""
		}))
}

func (m *Model) confirmAmendAlgo(a algo.Algo, leg algo.Leg, old, price decimal.Decimal) tea.Cmd {
	sym := a.Spec.Symbol
	lines := []string{fmt.Sprintf("#%d %s %s: %s %s → %s", a.ID, a.Spec.Label(), sym, leg, m.store.Price(sym, old), m.store.Price(sym, price)),
		"refused if the new level is already through the market: amending never fires"}
	src, id := m.opts.Algos, a.ID
	what := fmt.Sprintf("amend algo #%d %s to %s", id, leg, price)
	return common.Open(confirm.New(m.c, confirm.Options{Title: fmt.Sprintf("Amend algo #%d", id), Lines: lines,
		Action: "move the " + leg.String(), Grace: m.trader.opts.Grace,
		OnConfirm: func() tea.Msg { return AlgoResultMsg{What: what, Err: src.AmendTrigger(id, leg, price)} }}))
}

// resolveAlgo asks what to do with an algo that needs a decision.
func (m *Model) resolveAlgo(a algo.Algo) tea.Cmd {
	if cmd, refused := m.refuseAlgo("resolving algos"); refused {
		return cmd
	}
	if a.State != algo.StateNeedsDecision {
		return common.Notify(common.NoticeInfo, fmt.Sprintf("algo #%d is %s: it needs no decision", a.ID, a.State))
	}
	lines := []string{fmt.Sprintf("#%d %s %s needs a decision: %s", a.ID, a.Spec.Label(), a.Spec.Symbol, a.Reason),
		"", "[r] resume: arm it again as it stands on the venue now", "[c] cancel it", "[esc] decide later"}
	return common.Open(&resolveChoice{m: m, a: a, lines: lines})
}

// resolveChoice picks resume or cancel; the confirmation it opens acts.
type resolveChoice struct {
	m     *Model
	a     algo.Algo
	lines []string
}

var (
	resolveResume = key.NewBinding(key.WithKeys("r", "R"))
	resolveCancel = key.NewBinding(key.WithKeys("c", "C"))
)

func (d *resolveChoice) SetSize(int, int) {}

func (d *resolveChoice) Update(msg tea.Msg) (common.Dialog, tea.Cmd) {
	k, ok := msg.(tea.KeyPressMsg)
	if !ok {
		return d, nil
	}
	var dec algo.Decision
	switch {
	case key.Matches(k, chooseBack):
		return d, common.Close
	case key.Matches(k, resolveResume):
		dec = algo.DecisionResume
	case key.Matches(k, resolveCancel):
		dec = algo.DecisionCancel
	default:
		return d, nil
	}
	word := map[algo.Decision]string{algo.DecisionResume: "resume", algo.DecisionCancel: "cancel"}[dec]
	src, id := d.m.opts.Algos, d.a.ID
	what := fmt.Sprintf("%s algo #%d", word, id)
	c := confirm.New(d.m.c, confirm.Options{Title: fmt.Sprintf("Confirm: %s algo #%d", word, id),
		Lines: []string{what + " (" + d.a.Spec.Label() + " " + d.a.Spec.Symbol + ")", d.a.Reason}, Action: word, Grace: d.m.trader.opts.Grace,
		OnConfirm: func() tea.Msg { return AlgoResultMsg{What: what, Err: src.Resolve(id, dec)} }})
	return d, tea.Sequence(common.Close, common.Open(c))
}

func (d *resolveChoice) View() string {
	t := d.m.c.Theme
	w := min(max(56, d.m.c.Width/2), max(d.m.c.Width-4, 40), 90)
	return confirm.Frame(t, fmt.Sprintf("Algo #%d needs a decision", d.a.ID), d.lines, w, t.Warn)
}

// algoResult is the notice of an action's outcome.
func algoResult(r AlgoResultMsg) tea.Cmd {
	if r.Err != nil {
		return common.Notify(common.NoticeError, r.What+" refused: "+r.Err.Error())
	}
	if r.Algo.ID != 0 {
		verb := "armed"
		if working(r.Algo.Spec.Kind) {
			verb = "started"
		}
		text := fmt.Sprintf("%s %s as #%d (%s)", r.What, verb, r.Algo.ID, r.Algo.State)
		return common.Notify(common.NoticeSuccess, text)
	}
	return common.Notify(common.NoticeSuccess, r.What+": done")
}

// algoRequest handles what the Algos tab asks (its keys).
func (m *Model) algoRequest(msg tea.Msg) (tea.Cmd, bool) {
	switch msg := msg.(type) {
	case algoPreviewMsg:
		return m.confirmAlgo(msg), true
	case orderform.CommandMsg:
		if n := len(m.dialogs); n > 0 {
			if _, ok := m.dialogs[n-1].(*orderform.Form); ok {
				m.popDialog() // the form continues on the line
			}
		}
		cmd := m.openCommand(msg.Line)
		m.algoSuggest()
		return cmd, true
	case orderform.SubmitMsg:
		if msg.Algo == nil {
			return nil, false // an order: the trader's
		}
		return m.addAlgo(*msg.Algo, true), true
	case AlgoResultMsg:
		return algoResult(msg), true
	case algosReadyMsg:
		return m.takeAlgos(), true
	}
	return nil, false
}
