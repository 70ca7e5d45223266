package main

import (
	"context"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"tradedeck/config"
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

func TestDashboardFlags(t *testing.T) {
	f, err := parseDashboardFlags([]string{"--live", "--read-only", "--symbol", "SPOT_ETH_USDT", "--theme", "light", "--fps", "120", "--ascii", "--config", "/x.toml"})
	if err != nil {
		t.Fatal(err)
	}
	if !f.live || !f.readOnly || f.symbol != "SPOT_ETH_USDT" || f.theme != "light" || f.fps != 120 || !f.ascii || f.config != "/x.toml" {
		t.Fatalf("%+v", f)
	}
	if _, err := parseDashboardFlags([]string{"extra"}); err == nil {
		t.Fatal("stray argument accepted")
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

func TestLiveWithoutKeysIsReadOnly(t *testing.T) {
	cfg := config.Defaults()
	cfg.Live.BaseURL = "http://127.0.0.1:1" // never contacted: the feed is not run
	t.Setenv(config.EnvAPIKey, "")
	t.Setenv(config.EnvAPISecret, "")
	t.Setenv(config.EnvApplicationID, "app") // public streams need one; keys do not
	d, err := startDashboard(context.Background(), dashboardFlags{venueFlags: venueFlags{live: true}}, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer d.close()
	if !d.model.ReadOnly() {
		t.Fatal("live without keys must be read-only")
	}
	d.model.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
	s := ansi.Strip(d.model.Render())
	if !strings.HasPrefix(s, " LIVE  READ-ONLY") {
		t.Fatalf("header: %q", strings.SplitN(s, "\n", 2)[0])
	}
	if strings.Contains(s, "b buy") {
		t.Fatal("trading keys shown in read-only mode")
	}
}

func TestLiveKeysFromEnvNeverShown(t *testing.T) {
	cfg := config.Defaults()
	cfg.Live.BaseURL = "http://127.0.0.1:1"
	t.Setenv(config.EnvAPIKey, "key-123")
	t.Setenv(config.EnvAPISecret, "very-secret-value")
	t.Setenv(config.EnvApplicationID, "0123456789abcdef")
	d, err := startDashboard(context.Background(), dashboardFlags{venueFlags: venueFlags{live: true}}, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer d.close()
	if d.model.ReadOnly() {
		t.Fatal("keys given: trading allowed")
	}
	d.model.Update(tea.WindowSizeMsg{Width: 200, Height: 60})
	s := d.model.Render()
	if strings.Contains(s, "very-secret-value") || strings.Contains(s, "key-123") {
		t.Fatal("a key is on screen")
	}
	if !strings.Contains(ansi.Strip(s), "acct 01234567…") {
		t.Fatal("account label missing")
	}
}

// A [keys] binding that clashes with another is refused at start, naming
// both actions (issue 20: buy = ["q"] showed "q buy" but q quit).
func TestClashingKeysRefusedAtStart(t *testing.T) {
	for _, c := range []struct {
		over map[string][]string
		want string
	}{
		{map[string][]string{"buy": {"q"}}, `"q" is bound to both quit and buy`},
		{map[string][]string{"sell": {"b"}}, `"b" is bound to both buy and sell`},
		{map[string][]string{"quit": {"ctrl+q"}, "panic_cancel": {"ctrl+c"}}, `"ctrl+c" always quits; it cannot be panic_cancel`},
		{map[string][]string{"up": {"X"}}, `"X" is bound to both panic_cancel and up (panic_cancel takes it first)`},
	} {
		if err := defaultKeyMap().Rebind(c.over); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: %v, want %q", c.over, err, c.want)
		}
	}
	if err := defaultKeyMap().Clash(); err != nil {
		t.Fatalf("the default keys clash: %v", err)
	}
	// The dashboard itself refuses to start with such a config.
	cfg := config.Defaults()
	cfg.Keys = map[string][]string{"buy": {"q"}}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	d, err := startDashboard(ctx, dashboardFlags{venueFlags: venueFlags{seed: 1}}, cfg)
	if err == nil {
		d.close()
		t.Fatal("the dashboard started with buy = [\"q\"]")
	}
	if !strings.Contains(err.Error(), `"q" is bound to both quit and buy`) {
		t.Fatalf("error %v", err)
	}
}
