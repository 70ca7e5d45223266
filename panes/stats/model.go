// Package stats is the dashboard's swap statistics pane (and, at full-screen
// size, the stats view): network and period selectors, volume over time,
// traders/trades/turnover series, totals with the change against the
// previous period, and the split by source. All data comes through a
// stats.Cache in tea.Cmds; Update and View never do I/O, and View returns
// cached text until something it shows changes.
package stats

import (
	"context"
	"slices"
	"sync/atomic"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"tradedeck/panes/common"
	st "tradedeck/stats"
	"tradedeck/theme"
)

// Options configure a Model; the zero value is usable.
type Options struct {
	Networks []string       // default stats.DefaultNetworks
	Periods  []string       // default stats.Periods
	Network  string         // initial selection; default the first network
	Period   string         // initial selection; default "1w"
	Keys     *common.KeyMap // the dashboard's; default common.DefaultKeyMap()
	// Theme colours and glyphs (ASCII or Unicode) of the dashboard; default
	// dark Unicode. The pane follows the theme when it is switched in place.
	Theme *theme.Theme
	// Page names the full-screen page that shows the statistics (a
	// compact instance, the account pane's tab, opens it with enter);
	// "" when this is that page.
	Page string
	// RefreshEvery re-fetches the shown report this often (the cache
	// decides whether it is due). 0 means the cache's interval; negative
	// turns automatic refresh off.
	RefreshEvery time.Duration
	// FetchTimeout bounds one fetch (default 30 s).
	FetchTimeout time.Duration
}

// ResultMsg carries a fetch result to every stats model; each keeps the
// snapshots of the (network, period) it was asked for, so results arriving
// after the user moved on are still cached for later.
type ResultMsg struct {
	Network, Period string
	Snapshot        st.Snapshot
}

// tickMsg drives the automatic refresh of one model instance.
type tickMsg struct{ id int64 }

var (
	instances atomic.Int64
	versions  atomic.Uint64
)

// Model is the stats component. It is a small value (its settings sit
// behind a pointer), so passing it around and calling View is cheap.
type Model struct {
	*config
	ni, pi int

	snaps    map[st.Key]st.Snapshot
	inflight map[st.Key]time.Time // fetches started and not answered yet
	width    int
	height   int
	focused  bool

	version uint64       // changes whenever anything shown changes
	render  *renderCache // shared by copies: View renders only on a new version
}

// config is what New fixes for the life of a model.
type config struct {
	cache    *st.Cache
	keys     *common.KeyMap
	theme    *theme.Theme
	networks []string
	periods  []string
	every    time.Duration
	timeout  time.Duration
	id       int64
	page     string
}

// New returns a model showing reports from cache.
func New(cache *st.Cache, o Options) Model {
	m := Model{
		config: &config{
			cache:    cache,
			keys:     o.Keys,
			theme:    o.Theme,
			page:     o.Page,
			networks: slices.Clone(o.Networks),
			periods:  slices.Clone(o.Periods),
			every:    o.RefreshEvery,
			timeout:  o.FetchTimeout,
			id:       instances.Add(1),
		},
		snaps:    map[st.Key]st.Snapshot{},
		inflight: map[st.Key]time.Time{},
		render:   &renderCache{},
	}
	if len(m.networks) == 0 {
		m.networks = slices.Clone(st.DefaultNetworks)
	}
	if len(m.periods) == 0 {
		m.periods = slices.Clone(st.Periods)
	}
	if m.keys == nil {
		m.keys = common.DefaultKeyMap()
	}
	if m.theme == nil {
		m.theme, _ = theme.New("dark", false)
	}
	if m.every == 0 && cache != nil {
		m.every = cache.Interval()
	}
	if m.timeout <= 0 {
		m.timeout = 30 * time.Second
	}
	if i := slices.Index(m.networks, o.Network); i >= 0 {
		m.ni = i
	}
	period := o.Period
	if period == "" {
		period = "1w"
	}
	if i := slices.Index(m.periods, period); i >= 0 {
		m.pi = i
	}
	m.touch()
	return m
}

// Key is the (network, period) shown.
func (m Model) Key() st.Key { return st.Key{Network: m.networks[m.ni], Period: m.periods[m.pi]} }

// Network is the selected network.
func (m Model) Network() string { return m.networks[m.ni] }

// Period is the selected period.
func (m Model) Period() string { return m.periods[m.pi] }

// Title names the pane for its border.
func (m Model) Title() string { return "Swap stats " + m.Network() + " " + m.Period() }

// Init fetches the shown report and starts the refresh ticker.
func (m Model) Init() tea.Cmd {
	return tea.Batch(m.fetch(m.Key(), false), m.tick())
}

func (m *Model) touch() { m.version = versions.Add(1) }

// SetSize sets the size in cells the view fills exactly.
func (m *Model) SetSize(w, h int) {
	if w != m.width || h != m.height {
		m.width, m.height = max(w, 0), max(h, 0)
		m.touch()
	}
}

// Focus lets the model take keys. The content does not depend on focus
// (the dashboard draws the focus border), so nothing is re-rendered.
func (m *Model) Focus() { m.focused = true }

// Blur stops the model taking keys.
func (m *Model) Blur() { m.focused = false }

// Focused reports whether the model takes keys.
func (m Model) Focused() bool { return m.focused }

// Keys returns the bindings (for the dashboard's help and rebinding).
func (m Model) Keys() *common.KeyMap { return m.keys }

// ShortHelp implements help.KeyMap.
func (m Model) ShortHelp() []key.Binding {
	if m.page != "" {
		return append(shortHelp(m.keys), m.fullScreen())
	}
	return shortHelp(m.keys)
}

// fullScreen is the key that opens the full-screen page.
func (m Model) fullScreen() key.Binding {
	return key.NewBinding(key.WithKeys(m.keys.Select.Keys()...), key.WithHelp(m.keys.Select.Help().Key, "full screen"))
}

// FullHelp implements help.KeyMap.
func (m Model) FullHelp() [][]key.Binding { return fullHelp(m.keys) }

// Invalidate draws the pane again on the next View (the theme's colours
// or glyphs changed).
func (m *Model) Invalidate() { m.touch() }

// Update handles keys (when focused), fetch results and refresh ticks.
func (m Model) Update(msg tea.Msg) (Model, tea.Cmd) {
	switch msg := msg.(type) {
	case ResultMsg:
		k := st.Key{Network: msg.Network, Period: msg.Period}
		delete(m.inflight, k)
		if old, ok := m.snaps[k]; ok && !newer(msg.Snapshot, old) {
			return m, nil // a slower, older answer: keep what we show
		}
		m.snaps[k] = msg.Snapshot
		if k == m.Key() {
			m.touch()
		}
		return m, nil
	case tickMsg:
		if msg.id != m.id {
			return m, nil
		}
		return m, tea.Batch(m.fetch(m.Key(), false), m.tick())
	case tea.KeyPressMsg:
		if !m.focused {
			return m, nil
		}
		switch {
		case key.Matches(msg, m.keys.NextNetwork):
			return m.selectKey((m.ni+1)%len(m.networks), m.pi)
		case key.Matches(msg, m.keys.PrevNetwork):
			return m.selectKey((m.ni+len(m.networks)-1)%len(m.networks), m.pi)
		case key.Matches(msg, m.keys.NextPeriod):
			return m.selectKey(m.ni, min(m.pi+1, len(m.periods)-1))
		case key.Matches(msg, m.keys.PrevPeriod):
			return m.selectKey(m.ni, max(m.pi-1, 0))
		case key.Matches(msg, m.keys.Refresh):
			return m, m.fetch(m.Key(), true)
		case m.page != "" && key.Matches(msg, m.keys.Select):
			page := m.page
			return m, func() tea.Msg { return common.ShowPageMsg{Name: page} }
		}
	}
	return m, nil
}

// newer reports whether snapshot a is later news than b: a newer fetch or
// a newer failure.
func newer(a, b st.Snapshot) bool {
	return a.FetchedAt.After(b.FetchedAt) || a.ErrAt.After(b.ErrAt)
}

// Select shows a network and period (for the dashboard's commands);
// unknown names are ignored.
func (m Model) Select(network, period string) (Model, tea.Cmd) {
	ni, pi := slices.Index(m.networks, network), slices.Index(m.periods, period)
	if ni < 0 {
		ni = m.ni
	}
	if pi < 0 {
		pi = m.pi
	}
	return m.selectKey(ni, pi)
}

func (m Model) selectKey(ni, pi int) (Model, tea.Cmd) {
	if ni == m.ni && pi == m.pi {
		return m, nil
	}
	m.ni, m.pi = ni, pi
	m.touch()
	k := m.Key()
	if _, ok := m.snaps[k]; !ok {
		// Another instance may have fetched it already: show that at once.
		if s, ok := m.cache.Peek(k); ok {
			m.snaps[k] = s
		}
	}
	return m, m.fetch(k, false)
}

// fetch returns the command that asks the cache (which only goes to the
// service when the report is missing, due, or forced).
func (m Model) fetch(k st.Key, force bool) tea.Cmd {
	if m.cache == nil {
		return nil
	}
	// One fetch per key at a time; an answer that never came back (a host
	// that dropped the message) stops blocking once the fetch timed out.
	if started, ok := m.inflight[k]; ok && time.Since(started) < m.timeout+time.Second {
		return nil
	}
	m.inflight[k] = time.Now()
	cache, timeout := m.cache, m.timeout
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), timeout)
		defer cancel()
		var s st.Snapshot
		if force {
			s, _ = cache.Refresh(ctx, k)
		} else {
			s, _ = cache.Get(ctx, k)
		}
		return ResultMsg{Network: k.Network, Period: k.Period, Snapshot: s}
	}
}

func (m Model) tick() tea.Cmd {
	if m.every <= 0 {
		return nil
	}
	id := m.id
	return tea.Tick(m.every, func(time.Time) tea.Msg { return tickMsg{id: id} })
}

// View is the pane's content: exactly the set size, rendered again only
// when something shown changed.
func (m Model) View() string {
	if m.render.fresh(&m) {
		return m.render.view
	}
	m.render.update(&m)
	return m.render.view
}

// Lines is View split into its lines (each exactly the set width).
func (m Model) Lines() []string {
	m.render.update(&m)
	return m.render.lines
}
