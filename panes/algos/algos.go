// Package algos is the Algos tab of the account pane: every protective
// order of the account (stops, take-profits, OCO, brackets, trailing
// stops) with its kind, symbol, triggers and their price sources, the
// distance to each trigger, its state (needs decision included), its
// child orders and why it fired. It draws the Store's AlgoState (a
// snapshot the root takes off the UI goroutine): no engine call here.
// The actions (cancel, amend a trigger, decide) are the root's: it asks
// SelectedAlgo and opens their confirmations.
package algos

import (
	"strconv"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"tradedeck/algo"
	"tradedeck/panes/common"
)

// Keys of the tab (the root acts on them while the tab is shown; cancel
// is the dashboard's cancel binding).
var (
	AmendKey  = key.NewBinding(key.WithKeys("e"), key.WithHelp("e", "amend trigger"))
	DecideKey = key.NewBinding(key.WithKeys("d"), key.WithHelp("d", "decide"))
)

// Model is the tab (a common.Pane).
type Model struct {
	common.Base
	rows    []int // indexes into the Store's list: unfinished first, newest first
	cursor  int
	offset  int
	version uint64
}

// New builds the tab.
func New(c common.Common) *Model {
	m := &Model{}
	m.Common, m.Draw = c, m.render
	m.Invalidate()
	return m
}

// Title is the tab's name.
func (m *Model) Title() string { return "Algos" }

// Init does nothing.
func (m *Model) Init() tea.Cmd { return nil }

// Update takes new snapshots and moves the cursor.
func (m *Model) Update(msg tea.Msg) (common.Component, tea.Cmd) {
	switch msg := msg.(type) {
	case common.AlgosMsg:
		m.sync()
	case tea.KeyPressMsg, common.PaneMouse:
		if d, ok := common.Motion(msg, m.Keys, max(m.Height-2, 1), 1); ok {
			m.move(d)
		}
		if p, ok := msg.(common.PaneMouse); ok && !p.Wheel && p.Button == tea.MouseLeft && p.Y >= 1 {
			m.move(m.offset + p.Y - 1 - m.cursor)
		}
	}
	return m, nil
}

// sync re-reads the Store's list when it changed, keeping the cursor on
// the same algo.
func (m *Model) sync() {
	st := &m.Store.Algos
	if st.Version == m.version && m.version != 0 {
		return
	}
	var keep algo.ID
	if a, ok := m.SelectedAlgo(); ok {
		keep = a.ID
	}
	m.version = st.Version
	m.rows = m.rows[:0]
	for pass := 0; pass < 2; pass++ {
		for i := len(st.List) - 1; i >= 0; i-- {
			if st.List[i].State.Final() == (pass == 1) {
				m.rows = append(m.rows, i)
			}
		}
	}
	m.cursor = min(m.cursor, max(len(m.rows)-1, 0))
	for j, i := range m.rows {
		if st.List[i].ID == keep {
			m.cursor = j
		}
	}
	m.Invalidate()
}

func (m *Model) move(d int) {
	c := max(0, min(m.cursor+d, len(m.rows)-1))
	if c != m.cursor {
		m.cursor = c
		m.Invalidate()
	}
}

// SelectedAlgo is the algo under the cursor.
func (m *Model) SelectedAlgo() (algo.Algo, bool) {
	st := &m.Store.Algos
	if m.cursor >= len(m.rows) || m.rows[m.cursor] >= len(st.List) {
		return algo.Algo{}, false
	}
	return st.List[m.rows[m.cursor]], true
}

// ShortHelp lists the tab's keys that act now.
func (m *Model) ShortHelp() []key.Binding {
	var out []key.Binding
	if len(m.rows) > 1 {
		out = append(out, m.Keys.Up, m.Keys.Down)
	}
	a, ok := m.SelectedAlgo()
	if !ok || m.ReadOnly || !m.Store.Algos.Engine.Running() {
		return out
	}
	if !a.State.Final() {
		out = append(out, key.NewBinding(key.WithKeys(m.Keys.Cancel.Keys()...), key.WithHelp(m.Keys.Cancel.Help().Key, "cancel algo")))
		if a.Spec.Kind != algo.KindTrail && a.State != algo.StateTriggered && !Working(&a) {
			out = append(out, AmendKey)
		}
	}
	if Pausable(&a) {
		out = append(out, pauseHelp(&a))
	}
	if a.State == algo.StateNeedsDecision {
		out = append(out, DecideKey)
	}
	return out
}

// FullHelp is the tab's full help.
func (m *Model) FullHelp() [][]key.Binding { return [][]key.Binding{m.ShortHelp()} }

// columns of the list: title, width (0: the rest), and how narrow a pane
// may be before the column goes.
var columns = []struct {
	title string
	w     int
	from  int
}{
	{"#", 5, 0}, {"Kind", 10, 0}, {"Symbol", 14, 0}, {"Exit", 6, 90}, {"Triggers (source)", 40, 0},
	{"Distance", 22, 100}, {"State", 15, 0}, {"Children", 22, 120}, {"Why", 0, 140},
}

// colTriggers and colDistance are the columns a working order's
// progress takes.
const colTriggers, colDistance = 4, 5

// colWidth is a column's width on a pane w wide: the triggers narrow
// below 140 columns so the state always shows.
func colWidth(i, w int) int {
	switch {
	case i == colTriggers && w < columns[colDistance].from:
		// no distance column: the triggers take its room
		return max(30, w-1-fixedWidth(w))
	case i == colTriggers && w < 140:
		return 30
	}
	return columns[i].w
}

// fixedWidth is the width of the columns shown on a pane w wide, the
// triggers' left out.
func fixedWidth(w int) int {
	n := 0
	for i, col := range columns {
		if i != colTriggers && w >= col.from && col.w > 0 {
			n += col.w
		}
	}
	return n
}

// colTitle is a column's title: the two a working order's progress
// takes say so while one is listed.
func (m *Model) colTitle(i int, work bool) string {
	switch {
	case work && i == colTriggers:
		return "Triggers · progress"
	case work && i == colDistance:
		return "Distance · working"
	}
	return columns[i].title
}

func (m *Model) render(c *common.Canvas) {
	t, w := m.Theme, m.Width
	st := &m.Store.Algos
	head := " " + st.Engine.Text()
	if st.Where != "" {
		head += ": " + st.Where
	}
	style := t.Muted
	if !st.Engine.Running() {
		style = t.Error
		head += " — nothing protects a position while no engine runs"
	}
	c.Styled(style, common.Fit(head, w, t.Glyphs.Ellipsis))
	c.EndLine()
	if len(m.rows) == 0 {
		// the hint wraps rather than lose its end on a narrow pane
		for _, l := range common.Wrap("no algos: :stop, :tp, :oco, :trail, :bracket, :chase, :scale, :twap, or a kind in the order form", w-1) {
			c.Styled(t.Muted, common.Fit(" "+l, w, t.Glyphs.Ellipsis))
			c.EndLine()
		}
		return
	}
	var l strings.Builder
	l.WriteByte(' ')
	work := m.anyWorking()
	for i, col := range columns {
		if w >= col.from {
			l.WriteString(m.cell(m.colTitle(i, work), colWidth(i, w)))
		}
	}
	c.Styled(t.Muted, common.Fit(l.String(), w, ""))
	c.EndLine()
	detail := 0
	if m.Height >= 8 {
		detail = 2
	}
	vis := max(m.Height-2-detail, 1)
	if m.cursor < m.offset {
		m.offset = m.cursor
	} else if m.cursor >= m.offset+vis {
		m.offset = m.cursor - vis + 1
	}
	for j := m.offset; j < len(m.rows) && j < m.offset+vis; j++ {
		a := &st.List[m.rows[j]]
		line, style := m.rowText(a, w)
		if m.Focused && j == m.cursor {
			style = t.Selected
		}
		c.Styled(style, common.Fit(line, w, t.Glyphs.Ellipsis))
		c.EndLine()
	}
	if a, ok := m.SelectedAlgo(); ok && detail > 0 && c.Rows() < m.Height {
		for _, d := range m.detail(&a) {
			for _, l := range common.Wrap(d, max(w-2, 10)) {
				if c.Rows() >= m.Height {
					return
				}
				c.Styled(t.Muted, common.Fit(" "+l, w, t.Glyphs.Ellipsis))
				c.EndLine()
			}
		}
	}
}

func (m *Model) cell(s string, w int) string {
	if w == 0 {
		return s
	}
	return common.Left(common.Fit(s, w-1, m.Theme.Glyphs.Ellipsis), w)
}

// rowText is one algo's line and its style (by state).
func (m *Model) rowText(a *algo.Algo, w int) (string, string) {
	t := m.Theme
	sym := a.Spec.Symbol
	var trig, dist []string
	for _, tr := range a.Triggers {
		src := tr.Source.String()
		if tr.Leg == algo.LegTP && !a.Spec.TPMarket {
			src = "resting"
		}
		trig = append(trig, tr.Leg.String()+" "+m.Store.Price(sym, tr.Price)+" "+src)
		if pct, ok := m.Store.TriggerDistance(a, tr); ok && !a.State.Final() {
			dist = append(dist, tr.Leg.String()+" "+pct.StringFixed(2)+"%")
		} else {
			dist = append(dist, "-")
		}
	}
	if a.Spec.Kind == algo.KindTrail && a.Anchor.IsPositive() {
		trig = append(trig, "best "+m.Store.Price(sym, a.Anchor))
	}
	var b strings.Builder
	b.WriteByte(' ')
	cells := []string{"#" + strconv.FormatInt(int64(a.ID), 10), a.Spec.Label(), sym, string(a.Side), strings.Join(trig, " · "),
		strings.Join(dist, " · "), a.State.String(), childrenText(m.Store, a), whyText(a)}
	work := Working(a)
	if work {
		// The progress spans the triggers' and the distance's columns.
		pw := colWidth(colTriggers, w) - 1
		if w >= columns[colDistance].from {
			pw += colWidth(colDistance, w)
		}
		cells[colTriggers], cells[colDistance] = m.workProgress(a, pw), ""
		cells[7], cells[8] = m.workChildren(a), workWhy(a)
	}
	for i, col := range columns {
		switch {
		case w < col.from, work && i == colDistance:
		case work && i == colTriggers && w >= columns[colDistance].from:
			b.WriteString(m.cell(cells[i], colWidth(i, w)+colWidth(colDistance, w)))
		default:
			b.WriteString(m.cell(cells[i], colWidth(i, w)))
		}
	}
	style := t.Text
	switch a.State {
	case algo.StateNeedsDecision, algo.StateFailed:
		style = t.Error
	case algo.StateTriggered, algo.StatePaused:
		style = t.Warn
	case algo.StateDone, algo.StateCancelled, algo.StateRefused:
		style = t.Muted
	}
	return b.String(), style
}

// childrenText lists an algo's child orders, newest first: "stop FILLED
// 0.01 · tp CANCELLED 0.01 · entry FILLED 0.01".
func childrenText(s *common.Store, a *algo.Algo) string {
	if len(a.Children) == 0 {
		return "-"
	}
	var parts []string
	for i := len(a.Children) - 1; i >= 0; i-- {
		ch := a.Children[i]
		q := s.Qty(a.Spec.Symbol, ch.Quantity)
		if ch.Executed.IsPositive() && !ch.Executed.Equal(ch.Quantity) {
			q = s.Qty(a.Spec.Symbol, ch.Executed) + "/" + q
		}
		parts = append(parts, ch.Leg.String()+" "+ch.Status+" "+q)
	}
	return strings.Join(parts, " · ")
}

// whyText is why it is in its state: the firing, else the reason.
func whyText(a *algo.Algo) string {
	if f := a.Fired; f != nil {
		return f.Why + " at " + f.At.UTC().Format("15:04:05.000") + " (feed age " + f.Age.Round(time.Millisecond).String() + ")"
	}
	return a.Reason
}

// detail is the selected algo in full: its spec, children and firing.
func (m *Model) detail(a *algo.Algo) []string {
	if Working(a) {
		return m.workDetail(a)
	}
	out := []string{"#" + strconv.FormatInt(int64(a.ID), 10) + " " + a.Spec.String() + " · " + a.State.String() + " · children: " + childrenText(m.Store, a)}
	if f := a.Fired; f != nil {
		out = append(out, "fired: "+f.Why+" · "+f.Source.String()+" "+m.Store.Price(a.Spec.Symbol, f.Price)+" vs "+
			m.Store.Price(a.Spec.Symbol, f.Level)+" at "+f.At.UTC().Format("15:04:05.000")+
			" (venue "+f.VenueTime.UTC().Format("15:04:05.000")+", feed age "+f.Age.Round(time.Millisecond).String()+")")
	} else if a.Reason != "" {
		out = append(out, a.Reason)
	}
	return out
}
