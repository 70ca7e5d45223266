package ui

// Alerts wiring: `:alert`, `:alerts`, the book's alert key, completion,
// and the notices, bell and desktop notifications of alerts that fired.
// The engine itself (alerts.Engine) sees the feed at full rate on the
// feed's goroutines; this hook only shows what it delivered.

import (
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/shopspring/decimal"

	"tradedeck/alerts"
	"tradedeck/algo"
	"tradedeck/feed"
	"tradedeck/fixed"
	panealerts "tradedeck/panes/alerts"
	"tradedeck/panes/common"
)

// AlertDesk is a dashboard's alert engine and what its deliverer has for
// the screen (notices, and the bell and desktop sequences to write).
type AlertDesk struct {
	Engine *alerts.Engine
	Notes  <-chan alerts.Note
}

type alertsHook struct{ desk *AlertDesk }

func newAlertsHook(m *Model) Hook { return &alertsHook{desk: m.opts.Alerts} }

type (
	// alertNoteMsg is one note of the deliverer.
	alertNoteMsg struct{ n alerts.Note }
	// alertAddedMsg is the result of `:alert`.
	alertAddedMsg struct {
		a    alerts.Alert
		hint string
		err  error
	}
)

func (h *alertsHook) Init(m *Model) tea.Cmd {
	if h.desk == nil || h.desk.Notes == nil {
		return nil
	}
	return h.wait()
}

func (h *alertsHook) wait() tea.Cmd {
	ch := h.desk.Notes
	return func() tea.Msg {
		n, ok := <-ch
		if !ok {
			return nil
		}
		return alertNoteMsg{n}
	}
}

func (h *alertsHook) Update(m *Model, msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case alertNoteMsg:
		n := msg.n
		cmds := []tea.Cmd{h.wait(), func() tea.Msg { return panealerts.ChangedMsg{} }}
		if n.Terminal != "" {
			cmds = append(cmds, tea.Raw(n.Terminal))
		}
		if n.Show {
			level, text := common.NoticeError, n.Text
			switch n.Level {
			case alerts.NoteAlert:
				level, text = common.NoticeWarn, "ALERT "+text
			case alerts.NoteAction:
				level = common.NoticeSuccess
			}
			cmds = append(cmds, common.Notify(level, text))
		}
		return tea.Batch(cmds...)
	case alertAddedMsg:
		if msg.err != nil {
			return common.Notify(common.NoticeError, "alert: "+msg.err.Error())
		}
		return common.Notify(common.NoticeSuccess, "alert "+itoa(msg.a.ID)+" set: "+msg.a.String()+msg.hint)
	}
	return nil
}

func itoa(n int) string { return decimal.NewFromInt(int64(n)).String() }

// Key: the alert key in the book opens the command line with an alert at
// the selected level, to check or edit before enter.
func (h *alertsHook) Key(m *Model, k tea.KeyPressMsg) (bool, tea.Cmd) {
	if h.desk == nil || m.c.Keys == nil || !key.Matches(k, m.c.Keys.Alert) || m.page != "" || m.focus != PaneBook {
		return false, nil
	}
	price, side, ok := m.book.Selected()
	if !ok {
		return true, common.Notify(common.NoticeWarn, "select a level in the book (up/down) to set an alert there")
	}
	op := alerts.Below
	if last, ok := lastPrice(m.store, m.book.Symbol()); ok {
		if price.GreaterThan(last) {
			op = alerts.Above
		}
	} else if side == feed.Sell {
		op = alerts.Above
	}
	return true, m.openCommand("alert " + m.book.Symbol() + " " + string(op) + " " + price.String())
}

// openCommand opens the command line with line typed in.
func (m *Model) openCommand(line string) tea.Cmd {
	m.cmdActive = true
	m.cmdline.Reset()
	m.cmdline.SetSuggestions(m.suggestions())
	m.cmdline.SetValue(line)
	m.cmdline.CursorEnd()
	m.helpBar.invalidate()
	return m.cmdline.Focus()
}

func (h *alertsHook) Command(m *Model, name string, args []string) (bool, tea.Cmd) {
	switch name {
	case "alert":
		if h.desk == nil {
			return true, common.Notify(common.NoticeError, "alerts are off in this session")
		}
		return true, h.add(m, args)
	case "alerts":
		if h.desk == nil {
			return true, common.Notify(common.NoticeError, "alerts are off in this session")
		}
		d := panealerts.New(m.Common(), h.desk.Engine)
		return true, tea.Sequence(common.Open(d), d.Init()) // open first: its result must find it
	}
	return false, nil
}

// add parses `:alert ...` at once (a typo is answered immediately) and
// stores the alert off the UI goroutine (it writes the alerts file).
func (h *alertsHook) add(m *Model, args []string) tea.Cmd {
	a, err := alerts.Parse(args, m.resolveSymbol)
	if err != nil {
		return common.Notify(common.NoticeError, "alert: "+err.Error())
	}
	hint := ""
	if a.Kind == alerts.KindPrice && a.Source == alerts.Last {
		if last, ok := lastPrice(m.store, a.Symbol); ok {
			hint = " (last " + last.String() + ")"
			if (a.Op == alerts.Above && last.GreaterThanOrEqual(a.Level)) || (a.Op == alerts.Below && last.LessThanOrEqual(a.Level)) {
				hint = " (last " + last.String() + " is already " + string(a.Op) + ": fires at the next trade)"
			}
		}
	}
	eng := h.desk.Engine
	return func() tea.Msg {
		added, err := eng.Add(a)
		return alertAddedMsg{a: added, hint: hint, err: err}
	}
}

// lastPrice is the last trade of a symbol, else its 24h ticker close.
func lastPrice(s *common.Store, symbol string) (decimal.Decimal, bool) {
	if t := s.Trades[symbol]; t != nil && len(t.Rows) > 0 {
		return fixed.ToDecimal(t.Rows[0].Price, t.Scale.PriceDec), true
	}
	if t, ok := s.Tickers[symbol]; ok && !t.Close.IsZero() {
		return t.Close, true
	}
	return decimal.Zero, false
}

func (h *alertsHook) Help(m *Model) []key.Binding {
	if h.desk == nil || m.c.Keys == nil || m.focus != PaneBook {
		return nil
	}
	return []key.Binding{m.c.Keys.Alert}
}

// alertSuggestions completes `:alert` like the other commands: each kind
// for each symbol, and the stream alerts.
func (m *Model) alertSuggestions() []string {
	if m.opts.Alerts == nil {
		return nil
	}
	out := []string{"alerts", "alert stream market down 30s", "alert stream private down 30s", "alert * order filled"}
	for _, s := range m.allSymbols() {
		for _, k := range []string{"above ", "below ", "change beyond ", "spread above ", "order filled", "pnl below ", "liq within "} {
			if (k == "pnl below " || k == "liq within ") && !strings.HasPrefix(s, "PERP_") {
				continue
			}
			out = append(out, "alert "+s+" "+k)
		}
	}
	return out
}

// alertThenCompletions completes an alert's action as it is typed:
// `then` after a level, the verbs after `then`, and after a verb the
// account's algos it can act on (working orders for pause and resume,
// trailing stops for tighten, any open algo for cancel).
func (m *Model) alertThenCompletions(line string) []string {
	f := strings.Fields(line)
	if len(f) < 3 || !strings.EqualFold(f[0], "alert") || m.opts.Alerts == nil || m.opts.Algos == nil {
		return nil
	}
	ended := strings.HasSuffix(line, " ")
	then := -1
	for i, w := range f {
		if strings.EqualFold(w, "then") {
			then = i
		}
	}
	if then < 0 {
		if _, err := decimal.NewFromString(strings.TrimRight(f[len(f)-1], "%bp")); err == nil && ended {
			return []string{line + "then "}
		}
		return nil
	}
	after := f[then+1:]
	head := line
	if !ended {
		head = line[:strings.LastIndexByte(line, ' ')+1]
	}
	var cands []string
	switch {
	case len(after) == 0 || (len(after) == 1 && !ended):
		cands = []string{"pause ", "resume ", "cancel ", "tighten "}
	case len(after) == 1 || (len(after) == 2 && !ended):
		for _, a := range m.opts.Algos.Snapshot() {
			if actionFits(alerts.Verb(strings.ToLower(after[0])), a) {
				cands = append(cands, itoa(int(a.ID))+" ")
			}
		}
	}
	typed := ""
	if !ended {
		typed = strings.ToLower(f[len(f)-1])
	}
	var out []string
	for _, c := range cands {
		if strings.HasPrefix(c, typed) {
			out = append(out, head+c)
		}
	}
	return out
}

// actionFits reports an algo an alert's verb can act on now.
func actionFits(v alerts.Verb, a algo.Algo) bool {
	if a.State.Final() {
		return false
	}
	switch v {
	case alerts.VerbPause, alerts.VerbResume:
		return a.Spec.Kind.Working()
	case alerts.VerbTighten:
		return a.Spec.Kind == algo.KindTrail
	case alerts.VerbCancel:
		return true
	}
	return false
}
