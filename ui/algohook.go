package ui

import (
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/shopspring/decimal"

	"tradedeck/algo"
	"tradedeck/panes/account"
	"tradedeck/panes/algos"
	"tradedeck/panes/common"
	"tradedeck/panes/orderform"
	"tradedeck/trade"
)

// algosHook wires the protective-orders engine into the root: the
// coalescer's first wait, the ':stop' family of commands, and the help of
// the Algos tab. Its messages are routed by algoRequest (route.go).
type algosHook struct{}

func (algosHook) Init(m *Model) tea.Cmd {
	if m.algoFeed == nil {
		return nil
	}
	m.algoFeed.start()
	return m.algoFeed.wait()
}

func (algosHook) Update(*Model, tea.Msg) tea.Cmd { return nil }

func (algosHook) Key(*Model, tea.KeyPressMsg) (bool, tea.Cmd) { return false, nil }

func (algosHook) Command(m *Model, name string, args []string) (bool, tea.Cmd) {
	if !algoKinds[name] {
		return false, nil
	}
	return true, m.algoCommand(name, args)
}

func (algosHook) Help(m *Model) []key.Binding {
	if m.focus != PaneTables || m.tables.Tab() != m.algoTabID {
		return nil
	}
	return nil // the tab's own help (algos.Model.ShortHelp) names its keys
}

// algosShown reports whether the Algos tab is on screen with the keys.
func (m *Model) algosShown() bool {
	return m.algoTab != nil && m.page == "" && m.focus == PaneTables && m.tables.Tab() == m.algoTabID
}

// algoKey takes the Algos tab's keys while it is shown: cancel (the
// dashboard's cancel key), amend a trigger, decide.
func (m *Model) algoKey(k tea.KeyPressMsg) (tea.Cmd, bool) {
	km := m.c.Keys
	if !m.algosShown() || km == nil {
		return nil, false
	}
	isCancel := key.Matches(k, km.Cancel) || boundTo(k, km.Cancel)
	if !isCancel && !key.Matches(k, algos.AmendKey, algos.DecideKey, algos.PauseKey) {
		return nil, false
	}
	a, ok := m.algoTab.SelectedAlgo()
	if !ok {
		return common.Notify(common.NoticeInfo, "no algo selected"), true
	}
	switch {
	case isCancel:
		return m.confirmCancelAlgo(a), true
	case key.Matches(k, algos.AmendKey):
		return m.amendAlgo(a), true
	case key.Matches(k, algos.PauseKey):
		return m.pauseAlgo(a), true
	}
	return m.resolveAlgo(a), true
}

// algoCompletions are the ':' line's candidates for an algo command being
// typed (algo.Complete): the line up to its last word, plus each
// candidate that is a word to type (not a placeholder like TRIGGER).
func (m *Model) algoCompletions(line string) []string {
	f := strings.Fields(line)
	if len(f) == 0 || !algoKinds[strings.ToLower(f[0])] || m.trader.ReadOnly() {
		return nil
	}
	head := line
	if i := strings.LastIndexByte(line, ' '); i >= 0 {
		head = line[:i+1]
	}
	var out []string
	for _, c := range algo.Complete(line, m.allSymbols()) {
		if c == strings.ToUpper(c) && !strings.Contains(c, "_") {
			continue // TRIGGER, SIZE, PRICE: typed, not completed
		}
		out = append(out, head+c)
	}
	return out
}

// attachStop asks for a stop on a symbol's position (x's and :close's
// third choice), then previews and confirms it like any algo.
func (m *Model) attachStop(symbol string, pct decimal.Decimal) tea.Cmd {
	if cmd, refused := m.refuseAlgo("protective orders"); refused {
		return cmd
	}
	h := holding(m.store, symbol)
	exit := trade.Sell
	if h.IsNegative() {
		exit = trade.Buy
	}
	// A suggestion 2% beyond the exit side's best price; the user types
	// the level.
	book := orderformBest(m.store, symbol, exit)
	two := decimal.NewFromFloat(0.02)
	hint := ""
	if book.IsPositive() {
		if exit == trade.Sell {
			hint = m.store.Price(symbol, book.Mul(decimal.NewFromInt(1).Sub(two)))
		} else {
			hint = m.store.Price(symbol, book.Mul(decimal.NewFromInt(1).Add(two)))
		}
	}
	size := ""
	if pct.IsPositive() && pct.LessThan(decimal.NewFromInt(100)) {
		size = pct.String() + "%"
	}
	fields := []account.Field{
		{Label: "stop at", Value: hint, Hint: "trigger price"},
		{Label: "size", Value: size, Hint: "position (or a quantity, or N%)"},
		{Label: "limit", Hint: "empty: MARKET when it fires"},
		{Label: "source", Choices: []string{"default", "last", "bid", "ask", "mid", "mark"}, Value: "default"},
	}
	return common.Open(account.NewPrompt(m.c, "Attach a stop to "+symbol+" (exit "+string(exit)+")", fields,
		func(v []string) (tea.Cmd, string) {
			line := "stop " + symbol + " " + strings.TrimSpace(v[0]) + " " + strings.TrimSpace(v[1])
			if l := strings.TrimSpace(v[2]); l != "" {
				line += " limit " + l
			}
			if v[3] != "default" {
				line += " on " + v[3]
			}
			s, err := algo.Parse(line)
			if err != nil {
				return nil, err.Error()
			}
			return m.AddAlgo(s), ""
		}))
}

// orderformBest is the best price an exit on side trades at now (a SELL
// the bid, a BUY the ask); zero when that side is empty.
func orderformBest(s *common.Store, symbol string, side trade.Side) decimal.Decimal {
	b := orderform.BestOf(s, symbol)
	if side == trade.Sell {
		return b.BestBid
	}
	return b.BestAsk
}

// algoSuggest completes an algo command as it is typed (algo.Complete);
// other lines keep the root's suggestions.
func (m *Model) algoSuggest() {
	s := m.algoCompletions(m.cmdline.Value())
	if s == nil {
		s = m.alertThenCompletions(m.cmdline.Value())
	}
	if s != nil {
		m.cmdline.SetSuggestions(s)
		m.algoSuggesting = true
	} else if m.algoSuggesting {
		m.cmdline.SetSuggestions(m.suggestions())
		m.algoSuggesting = false
	}
}

// algoKindSuggestions are the algo commands' first words (trading on).
func (m *Model) algoKindSuggestions() []string {
	if m.trader.ReadOnly() || m.opts.Algos == nil {
		return nil
	}
	out := make([]string, len(algo.Kinds))
	for i, k := range algo.Kinds {
		out[i] = k + " "
	}
	return out
}

// algoHelp is the algo grammar for the help's command list.
func (m *Model) algoHelp() []string {
	if m.trader.ReadOnly() || m.opts.Algos == nil {
		return nil
	}
	return algo.Grammar
}

// useAlgos gives the screens the engine (New, from Options.Algos): the
// Algos tab, the protection column, the form's kinds, x's third choice.
func (m *Model) useAlgos(a Algos) {
	if a == nil {
		return
	}
	m.opts.Algos = a
	m.store.Algos.Shown = true
	m.algoTab = algos.New(m.c)
	m.algoTabID = m.tables.AddTab("Algos", m.algoTab)
	m.algoFeed = newAlgoFeed(a)
	m.trader.attach = m.attachStop
	m.trader.stopAlgos = func(why string) error { return a.CancelAll(algo.Scope{Why: why}) }
}
