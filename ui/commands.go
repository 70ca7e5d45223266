package ui

import (
	"slices"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"tradedeck/panes/common"
	"tradedeck/theme"
	"tradedeck/venue"
)

// cmdKey edits the command line; enter runs it, esc leaves it.
func (m *Model) cmdKey(msg tea.KeyPressMsg) tea.Cmd {
	switch msg.String() {
	case "esc":
		m.leaveCmdline()
		return nil
	case "enter":
		line := m.cmdline.Value()
		m.leaveCmdline()
		return m.Run(line)
	}
	var cmd tea.Cmd
	m.cmdline, cmd = m.cmdline.Update(msg)
	m.algoSuggest()
	return cmd
}

func (m *Model) leaveCmdline() {
	m.cmdActive = false
	m.cmdline.Blur()
	m.helpBar.invalidate()
}

func (m *Model) commandLine(w int) string {
	return truncate(" "+m.cmdline.View(), w, "")
}

// Commands lists the built-in ':' commands for the help.
var Commands = []string{
	"symbol SYM", "interval 1m|5m|15m|30m|1h|1d|1w|1M", "theme dark|light|contrast|mono",
	"watch add|rm SYM", "zoom", "stats", "alert SYM above|below PRICE", "alerts", "log", "help", "quit",
}

// Run executes one command line (without the leading ':').
func (m *Model) Run(line string) tea.Cmd {
	f := strings.Fields(strings.TrimPrefix(strings.TrimSpace(line), ":"))
	if len(f) == 0 {
		return nil
	}
	name, args := strings.ToLower(f[0]), f[1:]
	arg := ""
	if len(args) > 0 {
		arg = args[0]
	}
	switch name {
	case "q", "quit", "exit":
		return tea.Quit
	case "symbol", "sym", "s":
		if arg == "" {
			return common.Open(newPicker(m))
		}
		s, ok := m.resolveSymbol(arg)
		if !ok {
			return common.Notify(common.NoticeError, "no symbol matches "+arg)
		}
		return m.setSymbol(s)
	case "interval", "iv", "i":
		return m.setInterval(arg)
	case "theme":
		return m.setTheme(arg)
	case "zoom", "z":
		m.zoom = !m.zoom
		m.relayout()
		return nil
	case "help", "h":
		return common.Open(m.helpDialog())
	case "log", "notices":
		return common.Open(newLogDialog(m.c, m.log.entries()))
	case "watch", "w":
		return m.watchCmd(args)
	case "grid", "main":
		return m.showPage("")
	}
	if _, ok := m.pages[name]; ok {
		return m.showPage(name)
	}
	if cmd, ok := m.trader.HandleCommand(m.c, name, args, m.tradeFocus()); ok {
		return cmd
	}
	for _, h := range m.hooks {
		if ok, cmd := h.Command(m, name, args); ok {
			return cmd
		}
	}
	return common.Notify(common.NoticeError, "unknown command :"+name+" (try :help)")
}

// suggestions completes the command line: built-in commands with their
// arguments, pages, and a symbol for ":symbol".
func (m *Model) suggestions() []string {
	out := []string{"quit", "zoom", "help", "grid", "stats", "log"}
	for _, iv := range venue.Intervals {
		out = append(out, "interval "+iv)
	}
	for _, n := range theme.Names() {
		out = append(out, "theme "+n)
	}
	out = append(out, m.pageNames...)
	out = append(out, m.alertSuggestions()...)
	syms := m.allSymbols()
	for _, s := range syms {
		out = append(out, "symbol "+s, "watch add "+s, "watch rm "+s)
	}
	out = append(out, m.algoKindSuggestions()...)
	return append(out, m.trader.completions(syms)...)
}

// resolveSymbol finds a symbol by exact name or best fuzzy match.
func (m *Model) resolveSymbol(q string) (string, bool) {
	all := m.allSymbols()
	for _, s := range all {
		if strings.EqualFold(s, q) {
			return s, true
		}
	}
	if r := rank(q, all); len(r) > 0 {
		return r[0].text, true
	}
	return "", false
}

func (m *Model) allSymbols() []string {
	if s := m.feedSymbols(); len(s) > 0 {
		return s
	}
	return m.opts.Watchlist
}

// feedSymbols are the names of the feed's symbol rules (nil without a feed).
func (m *Model) feedSymbols() []string {
	if m.opts.Feed == nil {
		return nil
	}
	rules := m.opts.Feed.Symbols()
	out := make([]string, len(rules))
	for i, r := range rules {
		out[i] = r.Symbol
	}
	return out
}

func (m *Model) watchCmd(args []string) tea.Cmd {
	if len(args) != 2 {
		return common.Notify(common.NoticeError, "usage: :watch add|rm SYMBOL")
	}
	list := slices.Clone(m.watch.Symbols())
	s, ok := m.resolveSymbol(args[1])
	if !ok {
		return common.Notify(common.NoticeError, "no symbol matches "+args[1])
	}
	switch args[0] {
	case "add":
		if !slices.Contains(list, s) {
			list = append(list, s)
		}
	case "rm", "remove", "del":
		list = slices.DeleteFunc(list, func(x string) bool { return x == s })
	default:
		return common.Notify(common.NoticeError, "usage: :watch add|rm SYMBOL")
	}
	m.watch.SetSymbols(list)
	m.opts.Watchlist = list
	if m.opts.Feed != nil {
		m.opts.Feed.SetWatchlist(list)
	}
	return common.Notify(common.NoticeInfo, "watchlist: "+strings.Join(list, " "))
}

// setTheme switches the theme in place: every component holds the same
// *theme.Theme, so overwriting it and dropping the caches repaints all.
func (m *Model) setTheme(name string) tea.Cmd {
	nt, err := theme.New(name, m.c.Theme.Glyphs.ASCII)
	if err != nil {
		return common.Notify(common.NoticeError, err.Error())
	}
	*m.c.Theme = *nt
	for _, p := range m.panes {
		p.Invalidate()
	}
	for _, p := range m.pages {
		p.Invalidate()
	}
	m.relayout()
	return nil
}

// helpDialog lists every binding: global, the focused pane's, trading.
func (m *Model) helpDialog() common.Dialog {
	k := m.c.Keys
	groups := []helpGroup{
		{"Global", []key.Binding{k.Help, k.Quit, k.NextPane, k.PrevPane, k.FocusPane, k.Search, k.Command, k.Zoom, k.Back, k.Stats}},
	}
	var pane [][]key.Binding
	title := ""
	if m.page != "" {
		pane, title = m.pages[m.page].FullHelp(), m.pages[m.page].Title()
	} else {
		pane, title = m.panes[m.focus].FullHelp(), m.panes[m.focus].Title()
	}
	var pb []key.Binding
	for _, g := range pane {
		pb = append(pb, g...)
	}
	groups = append(groups, helpGroup{title, pb})
	hb := m.trader.Help(k)
	for _, h := range m.hooks {
		hb = append(hb, h.Help(m)...)
	}
	if len(hb) > 0 {
		groups = append(groups, helpGroup{"Trading", hb})
	}
	return &helpDialog{c: m.c, groups: groups, trading: append(m.trader.Commands(), m.algoHelp()...), w: m.c.Width, h: m.c.Height}
}
