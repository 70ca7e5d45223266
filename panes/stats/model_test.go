package stats

import (
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/shopspring/decimal"

	"tradedeck/panes/common"
	st "tradedeck/stats"
	"tradedeck/theme"
)

func plain(m Model) string { return ansi.Strip(m.View()) }

func TestSwitchingNetworkAndPeriod(t *testing.T) {
	m, _ := newModel(t, Options{}, 120, 40)
	if v := plain(m); !strings.Contains(v, "[bsc]") || !strings.Contains(v, "[1w]") || !strings.Contains(v, "Nov 15") || !strings.Contains(v, "Sources by volume, bsc 1w") {
		t.Fatalf("initial view:\n%s", v)
	}
	steps := []struct {
		key             tea.KeyPressMsg
		network, period string
		label           string // an x-axis label the new chart must show
	}{
		{tea.KeyPressMsg{Code: tea.KeyRight}, "avax", "1w", "Nov 15"},
		{keyRune('n'), "fantom", "1w", "Nov 15"},
		{keyRune(']'), "fantom", "1m", "Oct 23"},
		{keyRune('p'), "fantom", "3m", "Aug 24"},
		{keyRune('P'), "fantom", "1m", "Oct 23"},
		{keyRune('['), "fantom", "1w", "Nov 15"},
		{keyRune('['), "fantom", "1d", "07:00"},
		{keyRune('['), "fantom", "1d", "07:00"}, // stays at the shortest
		{tea.KeyPressMsg{Code: tea.KeyLeft}, "avax", "1d", "07:00"},
		{keyRune('N'), "bsc", "1d", "07:00"},
		{keyRune('N'), "optimism", "1d", "07:00"}, // wraps around
	}
	for _, s := range steps {
		m = press(t, m, s.key)
		v := plain(m)
		if m.Network() != s.network || m.Period() != s.period || !strings.Contains(v, "["+s.network+"]") || !strings.Contains(v, "["+s.period+"]") {
			t.Fatalf("after %v: %s %s\n%s", s.key, m.Network(), m.Period(), v)
		}
		if !strings.Contains(v, s.label) || !strings.Contains(v, "Sources by volume, "+s.network+" "+s.period) || !strings.Contains(v, "$0") {
			t.Fatalf("after %v: chart labels missing (%q)\n%s", s.key, s.label, v)
		}
	}
}

func TestKeysOnlyWhenFocused(t *testing.T) {
	m, _ := newModel(t, Options{}, 80, 24)
	m.Blur()
	m, cmd := m.Update(keyRune('n'))
	if cmd != nil || m.Network() != "bsc" {
		t.Fatal("a blurred pane took a key")
	}
	m.Focus()
	if m, _ = m.Update(keyRune('n')); m.Network() != "avax" {
		t.Fatal("a focused pane ignored a key")
	}
}

func TestRebindableKeys(t *testing.T) {
	keys := common.DefaultKeyMap()
	keys.NextNetwork = key.NewBinding(key.WithKeys("ctrl+n"))
	m, _ := newModel(t, Options{Keys: keys, Networks: []string{"arbitrum", "bsc"}, Network: "bsc"}, 80, 24)
	if m, _ = m.Update(keyRune('n')); m.Network() != "bsc" {
		t.Fatal("the old binding still works")
	}
	m, _ = m.Update(tea.KeyPressMsg{Code: 'n', Mod: tea.ModCtrl})
	if m.Network() != "arbitrum" {
		t.Fatal("the new binding does not work")
	}
	if got := m.ShortHelp(); len(got) != 3 || got[0].Keys()[0] != "ctrl+n" {
		t.Fatalf("help does not show the new binding: %v", got[0].Keys())
	}
	if v := plain(m); !strings.Contains(v, "[arbitrum]") || strings.Contains(v, "fantom") {
		t.Fatalf("configured network list not shown:\n%s", v)
	}
}

// Update never does I/O: switching returns a command, and only running it
// reaches the service.
func TestNoIOInUpdateOrView(t *testing.T) {
	m, ts := newModel(t, Options{}, 80, 24)
	var hits atomic.Int64
	ts.fail = func(http.ResponseWriter) bool { hits.Add(1); return false }
	m, cmd := m.Update(keyRune('n'))
	_ = m.View()
	if hits.Load() != 0 {
		t.Fatal("Update or View reached the service")
	}
	if cmd == nil {
		t.Fatal("no fetch command for a new network")
	}
	if v := plain(m); !strings.Contains(v, "loading avax 1w") {
		t.Fatalf("no loading state:\n%s", v)
	}
	msg := cmd()
	if hits.Load() == 0 {
		t.Fatal("the command did not fetch")
	}
	res, ok := msg.(ResultMsg)
	if !ok || res.Network != "avax" || res.Period != "1w" || !res.Snapshot.HasData() {
		t.Fatalf("result %T %+v", msg, msg)
	}
}

// Results are routed by (network, period): a late result for another
// selection is kept (shown when selected) and does not replace the view.
func TestResultsRoutedByKey(t *testing.T) {
	m, _ := newModel(t, Options{}, 80, 24)
	m, cmdAvax := m.Update(keyRune('n')) // avax 1w requested
	m, _ = m.Update(keyRune('n'))        // then fantom 1w
	m, cmdFantom := m.Update(keyRune('n'))
	_ = cmdFantom
	m = run(t, m, cmdAvax) // avax arrives while polygon is shown
	if m.Network() != "polygon" || !strings.Contains(plain(m), "loading polygon 1w") {
		t.Fatalf("a result for avax changed the polygon view:\n%s", plain(m))
	}
	m = press(t, m, keyRune('N'))
	m = press(t, m, keyRune('N'))
	if v := plain(m); !strings.Contains(v, "[avax]") || !strings.Contains(v, "Sources by volume, avax 1w") {
		t.Fatalf("avax result was not kept:\n%s", v)
	}
}

// Two instances (pane and full-screen view) share one cache: the second
// shows what the first fetched at once.
func TestSharedCache(t *testing.T) {
	ts := newTestServer(t)
	now := fixedNow
	cache := newCache(ts, &now)
	a := New(cache, Options{RefreshEvery: -1})
	a.SetSize(80, 24)
	a = run(t, a, a.Init())
	b := New(cache, Options{RefreshEvery: -1, Period: "1d"})
	b.SetSize(200, 60)
	b.Focus()
	b, _ = b.Update(keyRune(']')) // to 1w: cached by a, shown without running the command
	if v := plain(b); !strings.Contains(v, "Sources by volume, bsc 1w") {
		t.Fatalf("the second instance did not use the cache:\n%s", v)
	}
}

func TestStaleMarkerAndRecovery(t *testing.T) {
	ts := newTestServer(t)
	now := fixedNow
	m := New(newCache(ts, &now), Options{RefreshEvery: -1})
	m.SetSize(100, 30)
	m.Focus()
	m = run(t, m, m.Init())
	before := plain(m)
	if strings.Contains(before, "STALE") {
		t.Fatal("fresh data marked stale")
	}
	ts.fail = func(w http.ResponseWriter) bool {
		w.WriteHeader(502)
		w.Write([]byte(`{"status":"error","message":"upstream down"}`))
		return true
	}
	now = now.Add(2 * time.Minute)
	m = press(t, m, keyRune('r'))
	v := plain(m)
	if !strings.Contains(v, "STALE") || !strings.Contains(v, "upstream down") || !strings.Contains(v, "refresh failed 07:32:00") || !strings.Contains(v, "fetched 2026-11-22 07:30:00 UTC") {
		t.Fatalf("no stale marker:\n%s", v)
	}
	if !strings.Contains(v, "Sources by volume, bsc 1w") {
		t.Fatal("the last good data is gone")
	}
	ts.fail = nil
	m = press(t, m, keyRune('r'))
	if v := plain(m); strings.Contains(v, "STALE") || !strings.Contains(v, "fetched 2026-11-22 07:32:00 UTC") {
		t.Fatalf("not recovered:\n%s", v)
	}
	// A selection that never loaded shows the error instead of data.
	ts.fail = func(w http.ResponseWriter) bool { w.WriteHeader(429); return true }
	m = press(t, m, keyRune('n'))
	if v := plain(m); !strings.Contains(v, "ERROR") || !strings.Contains(v, "rate limited") {
		t.Fatalf("no error for a failed first load:\n%s", v)
	}
}

func TestRefreshTick(t *testing.T) {
	ts := newTestServer(t)
	now := fixedNow
	m := New(newCache(ts, &now), Options{RefreshEvery: time.Hour})
	other := New(newCache(ts, &now), Options{RefreshEvery: time.Hour})
	m, cmd := m.Update(tickMsg{id: m.id})
	if cmd == nil {
		t.Fatal("own tick started nothing")
	}
	if _, cmd := m.Update(tickMsg{id: other.id}); cmd != nil {
		t.Fatal("another instance's tick was taken")
	}
}

func TestTinySizes(t *testing.T) {
	m, _ := newModel(t, Options{}, 200, 60)
	for _, sz := range [][2]int{{0, 0}, {1, 1}, {10, 3}, {30, 8}, {45, 12}, {60, 16}, {119, 25}, {120, 14}, {300, 100}} {
		m.SetSize(sz[0], sz[1])
		v := m.View()
		if sz[0] == 0 {
			if v != "" {
				t.Fatalf("0x0: %q", v)
			}
			continue
		}
		checkSize(t, v, sz[0], sz[1])
	}
}

// One fetch per key at a time; an answer that never came back stops
// blocking refreshes once the fetch has timed out, plus a second. In a
// synctest bubble the wait takes no real time and the bound is exact.
func TestOneFetchPerKeyUntilTimeout(t *testing.T) {
	ts := newTestServer(t) // outside the bubble: no request reaches it here
	synctest.Test(t, func(t *testing.T) {
		now := fixedNow
		m := New(newCache(ts, &now), Options{RefreshEvery: -1, FetchTimeout: time.Millisecond})
		m.Focus()
		if m.Init() == nil {
			t.Fatal("no initial fetch")
		}
		if _, cmd := m.Update(keyRune('r')); cmd != nil {
			t.Fatal("a second fetch while the first is in flight")
		}
		time.Sleep(time.Second) // the answer never came; timeout + 1 s is not over yet
		if _, cmd := m.Update(keyRune('r')); cmd != nil {
			t.Fatal("a second fetch before the first timed out (plus its second)")
		}
		time.Sleep(time.Millisecond)
		if _, cmd := m.Update(keyRune('r')); cmd == nil {
			t.Fatal("a lost answer blocks refreshing forever")
		}
	})
}

func TestOlderResultIgnored(t *testing.T) {
	m, _ := newModel(t, Options{}, 80, 24)
	before := m.View()
	old := st.Snapshot{Key: st.Key{Network: "bsc", Period: "1w"}, FetchedAt: fixedNow.Add(-time.Hour), Report: st.Report{Series: st.Series{Network: "bsc", Period: "1w"}}}
	m, _ = m.Update(ResultMsg{Network: "bsc", Period: "1w", Snapshot: old})
	if m.View() != before {
		t.Fatal("an older snapshot replaced a newer one")
	}
}

func TestEmptySeries(t *testing.T) {
	m, _ := newModel(t, Options{}, 80, 24)
	m, _ = m.Update(ResultMsg{Network: "bsc", Period: "1w", Snapshot: st.Snapshot{Key: st.Key{Network: "bsc", Period: "1w"}, FetchedAt: fixedNow.Add(time.Second), Report: st.Report{Series: st.Series{Network: "bsc", Period: "1w"}}}})
	v := plain(m)
	if !strings.Contains(v, "no data for bsc 1w") {
		t.Fatalf("empty series:\n%s", v)
	}
	checkSize(t, m.View(), 80, 24)
}

// View re-renders only when something shown changed.
func TestViewIsCached(t *testing.T) {
	m, _ := newModel(t, Options{}, 200, 60)
	a := m.View()
	if allocs := testing.AllocsPerRun(100, func() { _ = m.View() }); allocs != 0 {
		t.Fatalf("an unchanged View allocates %v times", allocs)
	}
	m.Blur()
	m.Focus()
	if allocs := testing.AllocsPerRun(10, func() { _ = m.View() }); allocs != 0 {
		t.Fatalf("focus changes re-render (%v allocs)", allocs)
	}
	m.SetSize(199, 60)
	if b := m.View(); b == a {
		t.Fatal("resize did not re-render")
	}
}

func BenchmarkViewUnchanged(b *testing.B) {
	m, _ := newModel(b, Options{}, 200, 60)
	_ = m.View()
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		_ = m.View()
	}
}

func BenchmarkViewRender(b *testing.B) {
	m, _ := newModel(b, Options{Period: "1y"}, 200, 60)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		m.touch() // force a full re-render each time
		_ = m.View()
	}
}

func TestAxisScale(t *testing.T) {
	for _, c := range []struct {
		max      float64
		rows     int
		top      float64
		minTicks int
	}{{56.7e6, 3, 60e6, 1}, {56.7e6, 20, 60e6, 2}, {210e3, 10, 250e3, 1}, {0, 10, 1, 1}, {47.2e6, 30, 50e6, 1}, {9.9, 8, 10, 1}} {
		top, ticks := axisScale(c.max, c.rows)
		if top != c.top || ticks < c.minTicks || top < c.max {
			t.Errorf("axisScale(%v, %d) = %v, %d; want top %v", c.max, c.rows, top, ticks, c.top)
		}
	}
}

// Extreme but valid data keeps the layout exact.
func TestExtremeData(t *testing.T) {
	day := func(i int, vol string, traders, trades int64) st.Row {
		ts := fixedNow.Truncate(24*time.Hour).AddDate(0, 0, i-7)
		return st.Row{ID: ts.Unix() / 86400, Time: ts, VolumeUSD: decimal.RequireFromString(vol), Traders: traders, Trades: trades, Turnover: decimal.RequireFromString("1e6"), HasTurnover: true}
	}
	cases := map[string][]st.Row{
		"zeros":  {day(0, "0", 0, 0), day(1, "0", 0, 0)},
		"single": {day(6, "0.000000000000000001", 1, 1)},
		"huge":   {day(0, "123456789012345678901234567890", 9e15, 9e15), day(1, "1", 1, 1)},
	}
	for name, rows := range cases {
		for _, sz := range [][2]int{{80, 24}, {200, 60}, {50, 12}} {
			m, _ := newModel(t, Options{Theme: map[bool]*theme.Theme{true: asciiMono()}[name == "huge"]}, sz[0], sz[1])
			snap := st.Snapshot{Key: st.Key{Network: "bsc", Period: "1w"}, FetchedAt: fixedNow.Add(time.Minute),
				Report: st.Report{Series: st.Series{Network: "bsc", Period: "1w", Rows: rows},
					Sources: []st.Source{{ID: "1", Name: "a very long source name indeed", VolumeUSD: decimal.Zero, Percentage: decimal.Zero}}}}
			m, _ = m.Update(ResultMsg{Network: "bsc", Period: "1w", Snapshot: snap})
			checkSize(t, m.View(), sz[0], sz[1])
		}
	}
}

// A compact instance (the account pane's tab) opens the full-screen page
// with enter and says so in its help; the page itself does not.
func TestEnterOpensTheFullScreenPage(t *testing.T) {
	m, _ := newModel(t, Options{Page: "stats"}, 80, 24)
	_, cmd := m.Update(tea.KeyPressMsg{Code: tea.KeyEnter})
	if cmd == nil {
		t.Fatal("enter did nothing")
	}
	if msg, ok := cmd().(common.ShowPageMsg); !ok || msg.Name != "stats" {
		t.Fatalf("enter sent %#v", cmd())
	}
	help := m.ShortHelp()
	if last := help[len(help)-1].Help(); last.Key != "enter" || last.Desc != "full screen" {
		t.Fatalf("help %+v", last)
	}
	page, _ := newModel(t, Options{}, 80, 24)
	if _, cmd := page.Update(tea.KeyPressMsg{Code: tea.KeyEnter}); cmd != nil {
		t.Fatal("the page itself opened a page")
	}
}
