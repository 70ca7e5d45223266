package ui

import (
	"time"

	tea "charm.land/bubbletea/v2"

	"tradedeck/feed"
	"tradedeck/fixed"
	"tradedeck/panes/common"
	"tradedeck/venue"
)

// Update routes a message. Where each kind goes:
//   - keys and the mouse: the gate, then the top dialog, the command line,
//     the global bindings, the trader, and the active page or the focused
//     pane (keys.go);
//   - feed data (*feed.Update, the one form): the store, then the grid
//     panes and the open dialogs (the order form previews on the book);
//   - requests (SetSymbolMsg, SetIntervalMsg, ShowPageMsg, OpenDialogMsg,
//     CloseDialogMsg, NoticeMsg): the root itself, which announces a new
//     symbol or interval to the panes (SymbolMsg, IntervalMsg);
//   - the trader's own messages (form submits, clicked prices, results):
//     the trader;
//   - anything else is the result of a component's own command: offered
//     to the hooks, the dialogs, the pages and the panes, where its owner
//     takes it.
func (m *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.resize(msg.Width, msg.Height)
		return m, nil
	case *feed.Update:
		return m, batch([]tea.Cmd{m.apply(msg), m.waitPaced()})
	case tickMsg:
		m.expireNotices()
		m.header.tick()       // the funding countdown
		m.status.invalidate() // the clock
		return m, m.tick()
	case tea.KeyPressMsg:
		return m, m.key(msg)
	case tea.MouseClickMsg:
		return m, m.mouse(msg.Mouse(), false)
	case tea.MouseWheelMsg:
		return m, m.mouse(msg.Mouse(), true)
	}
	if cmd, ok := m.request(msg); ok {
		return m, cmd
	}
	if cmd, ok := m.algoRequest(msg); ok {
		return m, cmd
	}
	if cmd, ok := m.trader.Update(m.c, msg); ok {
		if r, sent := msg.(OrderResultMsg); sent && r.Err == nil {
			m.ShowOrders() // the account pane shows where the order went
		}
		return m, cmd
	}
	if u, ok := msg.(common.UsePriceMsg); ok {
		return m, m.toDialogs(u) // the open form takes the clicked price
	}
	if m.focus == PaneTables {
		m.helpBar.invalidate() // a tab's fetch may have brought what its keys act on
	}
	return m, batch([]tea.Cmd{m.toHooks(msg), m.toDialogs(msg), m.toPages(msg), m.toPanes(msg)})
}

// request handles what components ask of the root.
func (m *Model) request(msg tea.Msg) (tea.Cmd, bool) {
	switch msg := msg.(type) {
	case common.OpenDialogMsg:
		if msg.Dialog != nil {
			m.pushDialog(msg.Dialog)
		}
	case common.CloseDialogMsg:
		m.popDialog()
	case common.NoticeMsg:
		if msg.Order != 0 && m.streamed.has(msg.Order) {
			m.logNotice(msg.Level, msg.Text) // the stream told more already
			break
		}
		m.notify(msg.Level, msg.Text)
	case common.SetSymbolMsg:
		return m.setSymbol(msg.Symbol), true
	case common.SetIntervalMsg:
		return m.setInterval(msg.Interval), true
	case common.ShowPageMsg:
		return m.showPage(msg.Name), true
	default:
		return nil, false
	}
	return nil, true
}

// resize takes a new terminal size: below the minimum, what acts on the
// screen closes (gate.go).
func (m *Model) resize(w, h int) {
	m.c.Width, m.c.Height = w, h
	m.stackChanged()
	if m.tooSmall() {
		m.shrunk()
	} else {
		m.grown()
	}
	m.relayout()
	for _, d := range m.dialogs {
		d.SetSize(w, h-headerRows)
	}
}

// toPanes offers a message to the grid panes (the account pane passes it
// on to its extra tabs).
func (m *Model) toPanes(msg tea.Msg) tea.Cmd {
	var cmds []tea.Cmd
	for _, p := range m.panes {
		if _, c := p.Update(msg); c != nil {
			cmds = append(cmds, c)
		}
	}
	m.retitle()
	return batch(cmds)
}

// toPages offers a message to the full-screen pages.
func (m *Model) toPages(msg tea.Msg) tea.Cmd {
	var cmds []tea.Cmd
	for _, n := range m.pageNames {
		if _, c := m.pages[n].Update(msg); c != nil {
			cmds = append(cmds, c)
		}
	}
	return batch(cmds)
}

// toHooks offers a message to the hooks (alerts, export, replay).
func (m *Model) toHooks(msg tea.Msg) tea.Cmd {
	var cmds []tea.Cmd
	for _, h := range m.hooks {
		cmds = append(cmds, h.Update(m, msg))
	}
	return batch(cmds)
}

// toDialogs offers a message to every open dialog.
func (m *Model) toDialogs(msg tea.Msg) tea.Cmd {
	var cmds []tea.Cmd
	for i, d := range m.dialogs {
		nd, c := d.Update(msg)
		m.dialogs[i] = nd
		if c != nil {
			cmds = append(cmds, c)
		}
	}
	return batch(cmds)
}

func batch(cmds []tea.Cmd) tea.Cmd {
	n := 0
	for _, c := range cmds {
		if c != nil {
			cmds[n] = c
			n++
		}
	}
	switch n {
	case 0:
		return nil
	case 1:
		return cmds[0]
	}
	return tea.Batch(cmds[:n]...)
}

// apply stores an Update, turns its events into notices and hands it to
// the panes and dialogs that show its data.
func (m *Model) apply(u *feed.Update) tea.Cmd {
	if u.Health != nil && healthNews(m.store.Health, u.Health) {
		m.status.invalidate()
	}
	m.store.Apply(u)
	m.header.note(u, m.symbol)
	if u.Account != nil {
		m.helpBar.invalidate() // rows came or went: the cursor keys with them
	}
	for _, e := range u.Events {
		m.event(e)
	}
	fm := common.FeedMsg{Update: u}
	return batch([]tea.Cmd{m.toPanes(fm), m.toDialogs(fm)})
}

func (m *Model) event(e feed.Event) {
	if e.Order != nil && e.Order.OrderID != 0 {
		m.streamed.add(e.Order.OrderID)
	}
	switch e.Kind {
	case feed.EventFill:
		m.notify(common.NoticeSuccess, e.Text)
	case feed.EventOrderAck, feed.EventCancelled:
		if m.workChild(e.Order) { // a rung, a slice, a re-price: the Algos tab shows it
			m.logNotice(common.NoticeInfo, e.Text)
			return
		}
		m.notify(common.NoticeInfo, e.Text)
	case feed.EventRejected:
		m.notify(common.NoticeWarn, e.Text)
	case feed.EventError:
		m.notify(common.NoticeError, e.Text)
	default:
		if e.Text != "" {
			m.notify(common.NoticeInfo, e.Text)
		}
	}
}

// NoticeFor is how long a notice stays (errors longer).
var NoticeFor = map[common.NoticeLevel]time.Duration{
	common.NoticeInfo: 4 * time.Second, common.NoticeSuccess: 6 * time.Second,
	common.NoticeWarn: 8 * time.Second, common.NoticeError: 10 * time.Second,
}

func (m *Model) notify(level common.NoticeLevel, text string) {
	if text == "" {
		return
	}
	m.logNotice(level, text)
	m.notices = append(m.notices, notice{level: level, text: text, expires: m.c.Clock().Add(NoticeFor[level])})
	if len(m.notices) > 20 {
		m.notices = m.notices[len(m.notices)-20:]
	}
	m.status.invalidate()
}

func (m *Model) expireNotices() {
	now := m.c.Clock()
	kept := m.notices[:0]
	for _, n := range m.notices {
		if now.Before(n.expires) {
			kept = append(kept, n)
		}
	}
	if len(kept) != len(m.notices) {
		m.status.invalidate()
	}
	m.notices = kept
}

// setSymbol focuses another symbol everywhere.
func (m *Model) setSymbol(s string) tea.Cmd {
	if s == "" || s == m.symbol {
		return nil
	}
	m.symbol = s
	if m.opts.Feed != nil {
		m.opts.Feed.Focus(s)
	}
	m.setTick()
	m.header.invalidate()
	m.title = "tradedeck " + m.opts.Venue + " " + s
	return m.toPanes(common.SymbolMsg{Symbol: s})
}

// setTick gives the book the focused symbol's price tick.
func (m *Model) setTick() {
	if v := m.tickOf(m.symbol); v > 0 {
		m.book.SetTick(v)
	}
}

// tickOf is a symbol's price tick in fixed-point units at the feed's
// scale (decimals of quote_tick); 0 when unknown.
func (m *Model) tickOf(symbol string) int64 {
	if m.opts.Feed == nil {
		return 0
	}
	for _, r := range m.opts.Feed.Symbols() {
		if r.Symbol == symbol {
			if v, ok := fixed.FromDecimal(r.QuoteTick, fixed.DecimalsOf(r.QuoteTick)); ok && v > 0 {
				return v
			}
			return 0
		}
	}
	return 0
}

// setInterval switches the candle interval.
func (m *Model) setInterval(iv string) tea.Cmd {
	if !venue.ValidInterval(iv) {
		return common.Notify(common.NoticeError, "unknown interval "+iv+" (one of 1m 5m 15m 30m 1h 1d 1w 1M)")
	}
	if iv == m.interval {
		return nil
	}
	m.interval = iv
	if m.opts.Feed != nil {
		m.opts.Feed.SetInterval(iv)
	}
	return m.toPanes(common.IntervalMsg{Interval: iv})
}

func (m *Model) showPage(name string) tea.Cmd {
	if name != "" {
		if _, ok := m.pages[name]; !ok {
			return common.Notify(common.NoticeError, "no page "+name)
		}
	}
	if m.page != "" {
		m.pages[m.page].Blur()
	}
	m.page = name
	if name != "" {
		m.pages[name].Focus()
	}
	m.relayout()
	return nil
}
