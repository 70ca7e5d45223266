package stats

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"tradedeck/panes/panetest"
	"tradedeck/sim/swapstats"
	st "tradedeck/stats"
	"tradedeck/theme"
)

// fixedNow is the clock of the simulated service and of the cache.
var fixedNow = time.Date(2026, 11, 22, 7, 30, 0, 0, time.UTC)

// testServer is the simulator's stats service on loopback, seed 42.
type testServer struct {
	sim  *swapstats.Server
	url  string
	fail func(w http.ResponseWriter) bool
}

func newTestServer(t testing.TB) *testServer {
	t.Helper()
	ts := &testServer{sim: swapstats.New(42, func() time.Time { return fixedNow })}
	ts.sim.SetRateLimit(0)
	inner := http.StripPrefix("/woofi", ts.sim.Handler())
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if ts.fail != nil && ts.fail(w) {
			return
		}
		inner.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	ts.url = srv.URL + "/woofi"
	return ts
}

func newCache(ts *testServer, now *time.Time) *st.Cache {
	c := st.NewCache(st.NewClient(ts.url, st.WithRateLimit(0)), time.Minute)
	c.SetClock(func() time.Time { return *now })
	return c
}

// run executes a command the way the runtime would and feeds every
// resulting message back into the model (ticks are off in these tests).
func run(t testing.TB, m Model, cmd tea.Cmd) Model {
	t.Helper()
	if cmd == nil {
		return m
	}
	switch msg := cmd().(type) {
	case tea.BatchMsg:
		for _, c := range msg {
			m = run(t, m, c)
		}
	case nil:
	default:
		var next tea.Cmd
		m, next = m.Update(msg)
		m = run(t, m, next)
	}
	return m
}

func press(t testing.TB, m Model, k tea.KeyPressMsg) Model {
	t.Helper()
	m, cmd := m.Update(k)
	return run(t, m, cmd)
}

func keyRune(r rune) tea.KeyPressMsg { return tea.KeyPressMsg{Code: r, Text: string(r)} }

func newModel(t testing.TB, o Options, w, h int) (Model, *testServer) {
	t.Helper()
	ts := newTestServer(t)
	now := fixedNow
	o.RefreshEvery = -1
	m := New(newCache(ts, &now), o)
	m.SetSize(w, h)
	m.Focus()
	return run(t, m, m.Init()), ts
}

// checkSize asserts the view fills exactly w x h cells.
func checkSize(t *testing.T, view string, w, h int) {
	t.Helper()
	lines := strings.Split(view, "\n")
	if len(lines) != h {
		t.Fatalf("%d lines, want %d", len(lines), h)
	}
	for i, l := range lines {
		if got := ansi.StringWidth(l); got != w {
			t.Fatalf("line %d is %d cells wide, want %d: %q", i, got, w, ansi.Strip(l))
		}
	}
}

func TestGolden(t *testing.T) {
	for _, c := range []struct {
		name  string
		w, h  int
		o     Options
		setup func(t *testing.T, m Model) Model
	}{
		{name: "bsc_1w_80x24", w: 80, h: 24},
		{name: "bsc_1w_200x60", w: 200, h: 60},
		{name: "arbitrum_1d_80x24", w: 80, h: 24, setup: func(t *testing.T, m Model) Model {
			m = press(t, m, tea.KeyPressMsg{Code: tea.KeyRight})
			m = press(t, m, tea.KeyPressMsg{Code: tea.KeyRight})
			m = press(t, m, keyRune('N')) // back to fantom? no: 1 left of avax+1
			m = press(t, m, keyRune('n'))
			m = press(t, m, keyRune('n'))
			m = press(t, m, keyRune('n'))
			return press(t, m, keyRune('['))
		}},
		{name: "polygon_1y_200x60", w: 200, h: 60, o: Options{Network: "polygon", Period: "1y"}},
		{name: "optimism_all_120x40_ascii", w: 120, h: 40, o: Options{Network: "optimism", Period: "all", Theme: asciiMono()}},
		{name: "avax_3m_80x24_ascii", w: 80, h: 24, o: Options{Network: "avax", Period: "3m", Theme: asciiMono()}},
	} {
		t.Run(c.name, func(t *testing.T) {
			m, _ := newModel(t, c.o, c.w, c.h)
			if c.setup != nil {
				m = c.setup(t, m)
			}
			view := m.View()
			checkSize(t, view, c.w, c.h)
			if c.o.Theme != nil && c.o.Theme.Glyphs.ASCII {
				for _, r := range ansi.Strip(view) {
					if r > 126 || (r < 32 && r != '\n') {
						t.Fatalf("ASCII view has %q", r)
					}
				}
			}
			panetest.Golden(t, c.name, view)
		})
	}
}

// asciiMono is the theme of a plain terminal: ASCII glyphs, no colour.
func asciiMono() *theme.Theme {
	t, _ := theme.New("mono", true)
	return t
}

// The pane is drawn in the dashboard's theme, and :theme (which
// overwrites the shared theme in place) restyles it at once: the same
// text in the new colours, the theme's glyphs in ASCII.
func TestFollowsTheThemeSwitchedInPlace(t *testing.T) {
	th, _ := theme.New("dark", false)
	m, _ := newModel(t, Options{Theme: th}, 80, 24)
	dark := m.View()
	if !strings.Contains(dark, "38;2;") {
		t.Fatalf("not in the theme's truecolour palette:\n%q", dark[:200])
	}
	light, _ := theme.New("light", false)
	*th = *light
	lv := m.View()
	if lv == dark || ansi.Strip(lv) != ansi.Strip(dark) {
		t.Fatal("the light theme did not restyle the same text")
	}
	mono, _ := theme.New("mono", true)
	*th = *mono
	for _, r := range ansi.Strip(m.View()) {
		if r > 126 {
			t.Fatalf("ASCII theme drew %q", r)
		}
	}
}
