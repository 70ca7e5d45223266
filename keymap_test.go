package main

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"tradedeck/panes/panetest"
	"tradedeck/theme"
	"tradedeck/ui"
)

// screenModel is the dashboard on the deterministic fixture with the
// real default keymap.
func screenModel(t *testing.T, w, h int, ascii bool) *ui.Model {
	t.Helper()
	th, err := theme.New("dark", ascii)
	if err != nil {
		t.Fatal(err)
	}
	m := ui.New(ui.Options{
		Venue: "SIM", Account: "demo-app", Symbol: "PERP_BTC_USDT", Interval: "1m",
		Watchlist: panetest.Symbols, Theme: th, Keys: defaultKeyMap(), ASCII: ascii, Now: panetest.Clock,
	})
	m.Update(tea.WindowSizeMsg{Width: w, Height: h})
	m.Update(panetest.Market(1, 40))
	return m
}

func TestScreenGolden(t *testing.T) {
	for _, c := range []panetest.Size{
		panetest.At("screen_80x24", 80, 24, false),
		panetest.At("screen_200x60", 200, 60, false),
		panetest.At("screen_ascii_80x24", 80, 24, true),
	} {
		m := screenModel(t, c.W, c.H, c.ASCII)
		panetest.Golden(t, c.Name, m.Render())
	}
}

func TestScreenZoomAndHelpGolden(t *testing.T) {
	m := screenModel(t, 80, 24, false)
	m.Update(tea.KeyPressMsg{Code: '2', Text: "2"})
	m.Update(tea.KeyPressMsg{Code: 'z', Text: "z"})
	panetest.Golden(t, "screen_zoom_chart_80x24", m.Render())
	m = screenModel(t, 200, 60, false)
	_, cmd := m.Update(tea.KeyPressMsg{Code: '?', Text: "?"})
	m.Update(cmd())
	panetest.Golden(t, "screen_help_200x60", m.Render())
}

// The footer shows the real bindings with their descriptions.
func TestFooterHelp(t *testing.T) {
	m := screenModel(t, 200, 60, false)
	lines := strings.Split(ansi.Strip(m.Render()), "\n")
	foot := lines[len(lines)-1]
	for _, want := range []string{"? help", "/ symbol", ": command", "tab next pane", "z zoom", "+ group more", "q quit"} {
		if !strings.Contains(foot, want) {
			t.Fatalf("footer %q lacks %q", foot, want)
		}
	}
}

func TestDefaultKeyMapIsComplete(t *testing.T) {
	k := defaultKeyMap()
	for name, b := range k.Named() {
		if len(b.Keys()) == 0 || b.Help().Key == "" || b.Help().Desc == "" {
			t.Errorf("binding %s has no keys or help", name)
		}
	}
	if err := k.Rebind(map[string][]string{"quit": {"ctrl+q"}}); err != nil || k.Quit.Help().Key != "ctrl+q" || k.Quit.Help().Desc != "quit" {
		t.Fatal(err, k.Quit.Help())
	}
	if err := k.Rebind(map[string][]string{"qiut": {"x"}}); err == nil {
		t.Fatal("unknown binding name accepted")
	}
}

func TestASCIIScreensAreASCII(t *testing.T) {
	m := screenModel(t, 200, 60, true)
	check := func(what string) {
		for i, r := range ansi.Strip(m.Render()) {
			if r > 127 {
				t.Fatalf("%s: ASCII mode drew %q at %d", what, r, i)
			}
		}
	}
	check("grid")
	m.Update(tea.KeyPressMsg{Code: '5', Text: "5"})
	check("footer with the account pane's keys")
	_, cmd := m.Update(tea.KeyPressMsg{Code: '?', Text: "?"})
	m.Update(cmd())
	check("help")
}
