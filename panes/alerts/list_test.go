package alerts

import (
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"tradedeck/alerts"
	"tradedeck/feed"
	"tradedeck/panes/common"
	"tradedeck/panes/panetest"
)

func engine(t *testing.T) *alerts.Engine {
	t.Helper()
	time.Local = time.UTC // the dialog shows local times; goldens need one zone
	e, err := alerts.NewEngine(alerts.Options{Now: panetest.Clock})
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range []string{"SPOT_BTC_USDT above 100", "PERP_ETH_USDT change beyond 5% every", "* order filled", "stream market down 30s"} {
		a, err := alerts.Parse(strings.Fields(l), nil)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := e.Add(a); err != nil {
			t.Fatal(err)
		}
	}
	e.ObserveTrade("SPOT_BTC_USDT", feed.Scale{PriceDec: 2}, feed.Trade{Price: 10050})
	return e
}

// run executes a command the dialog returned and hands its message back,
// as the root would.
func run(m *Model, cmd tea.Cmd) {
	for cmd != nil {
		msg := cmd()
		if _, ok := msg.(common.NoticeMsg); ok || msg == nil {
			return
		}
		_, cmd = m.Update(msg)
	}
}

func press(s string) tea.KeyPressMsg {
	switch s {
	case "tab":
		return tea.KeyPressMsg{Code: tea.KeyTab}
	case "space":
		return tea.KeyPressMsg{Code: tea.KeySpace, Text: " "}
	case "down":
		return tea.KeyPressMsg{Code: tea.KeyDown}
	}
	return tea.KeyPressMsg{Code: rune(s[0]), Text: s}
}

func TestDialog(t *testing.T) {
	e := engine(t)
	c := panetest.Common(common.NewStore(), nil, false)
	c.Width, c.Height = 120, 30
	m := New(c, e)
	// Unread firings: the dialog opens on them and marks them read.
	panetest.Golden(t, "fired", m.View())
	run(m, m.Init())
	if e.Unread() != 0 {
		t.Fatalf("%d unread after opening the fired tab", e.Unread())
	}
	_, cmd := m.Update(press("tab"))
	run(m, cmd)
	panetest.Golden(t, "alerts", m.View())

	// space pauses the selected alert, space again resumes; d deletes.
	_, cmd = m.Update(press("down"))
	run(m, cmd)
	if h := footer(m); h != "tab alerts/fired · ↑↓ select · space pause · d delete · esc close" {
		t.Fatalf("help on an active alert: %q", h)
	}
	_, cmd = m.Update(press("space"))
	run(m, cmd)
	if l := e.List(); !l[1].Paused || !strings.Contains(ansiStrip(m.View()), "paused") {
		t.Fatalf("space did not pause alert 2: %+v", l[1])
	}
	if h := footer(m); !strings.Contains(h, "space resume") {
		t.Fatalf("help on a paused alert offers no resume: %q", h)
	}
	_, cmd = m.Update(press("space"))
	run(m, cmd)
	if l := e.List(); l[1].Paused {
		t.Fatal("space did not resume alert 2")
	}
	_, cmd = m.Update(press("d"))
	run(m, cmd)
	if l := e.List(); len(l) != 3 || l[1].ID != 3 {
		t.Fatalf("d did not delete alert 2: %+v", l)
	}
	if v := ansiStrip(m.View()); !strings.Contains(v, "Alerts (3)") || strings.Contains(v, "PERP_ETH_USDT") {
		t.Fatalf("the list after deleting:\n%s", v)
	}
}

func TestDialogEmptyASCII(t *testing.T) {
	e, err := alerts.NewEngine(alerts.Options{Now: panetest.Clock})
	if err != nil {
		t.Fatal(err)
	}
	c := panetest.Common(common.NewStore(), nil, true)
	c.Width, c.Height = 80, 24
	m := New(c, e)
	v := ansiStrip(m.View())
	if !strings.Contains(v, "no alerts: :alert SYMBOL above|below PRICE") || strings.ContainsAny(v, "·↑↓╭") {
		t.Fatalf("empty ASCII dialog:\n%s", v)
	}
	// Nothing to select, pause or delete: only the tab and close keys.
	if h := footer(m); h != "tab alerts/fired - esc close" {
		t.Fatalf("help of the empty dialog: %q", h)
	}
	for _, l := range strings.Split(v, "\n") {
		if n := len([]rune(l)); n != 78 {
			t.Fatalf("line of %d cells, want 78: %q", n, l)
		}
	}
}

func ansiStrip(s string) string { return ansi.Strip(s) }

// footer is the dialog's key line (the last inside its box).
func footer(m *Model) string {
	lines := strings.Split(ansiStrip(m.View()), "\n")
	return strings.Trim(lines[len(lines)-2], "│| ")
}

// An alert that acts shows its action next to its condition.
func TestDialogShowsTheAction(t *testing.T) {
	e, err := alerts.NewEngine(alerts.Options{Now: panetest.Clock, Check: func(alerts.Action) error { return nil }})
	if err != nil {
		t.Fatal(err)
	}
	a, err := alerts.Parse(strings.Fields("SPOT_BTC_USDT below 90 then pause chase 3"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.Add(a); err != nil {
		t.Fatal(err)
	}
	c := panetest.Common(common.NewStore(), nil, false)
	c.Width, c.Height = 120, 30
	m := New(c, e)
	if v := ansiStrip(m.View()); !strings.Contains(v, "SPOT_BTC_USDT last below 90 then pause chase 3") {
		t.Fatalf("the action is not in the list:\n%s", v)
	}
}
