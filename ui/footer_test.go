package ui

import (
	"fmt"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"tradedeck/feed"
	"tradedeck/panes/common"
	"tradedeck/panes/panetest"
	"tradedeck/sim"
	"tradedeck/sim/simtest"
	"tradedeck/theme"
	"tradedeck/venue"
)

// footer is the help line: the screen's last line.
func footer(m *Model) string {
	lines := strings.Split(screen(m), "\n")
	return strings.TrimSpace(lines[len(lines)-1])
}

// The footer offers only keys that do something in the state shown
// (issue 20): each case drives the root model with keys into a state and
// names labels that must and must not be on the footer then.
func TestFooterNamesWhatKeysDoNow(t *testing.T) {
	for _, c := range []struct {
		name       string
		keys       []string
		has, lacks []string
	}{
		{"grid", nil, []string{"z zoom", "+ group more", "? help", "q quit"}, []string{"unzoom", "- group less"}},
		{"zoomed", []string{"z"}, []string{"z/esc unzoom"}, []string{"z zoom", "esc back"}},
		{"unzoomed again", []string{"z", "esc"}, []string{"z zoom"}, []string{"unzoom"}},
		{"book grouped", []string{"+"}, []string{"+ group more", "- group less"}, nil},
		{"book ungrouped again", []string{"+", "-"}, []string{"+ group more"}, []string{"- group less"}},
		{"chart at the shortest interval", []string{"2"}, []string{"> longer candles"}, []string{"< shorter candles"}},
		{"chart depth view", []string{"2", "v"}, []string{"v candles/depth/heat map"}, []string{"longer candles"}},
		// A dialog takes every key: the grid's labels would lie.
		{"help dialog", []string{"?"}, []string{"ctrl+c quit"}, []string{"? help", "z zoom", "b buy", "tab next pane"}},
		{"notice log", []string{":", "l", "o", "g", "enter"}, []string{"ctrl+c quit"}, []string{"q quit", "z zoom"}},
		{"dialog closed", []string{"?", "esc"}, []string{"? help", "z zoom"}, []string{"ctrl+c"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			m := newTestModel(t, 160, 48, false)
			press(m, c.keys...)
			f := " " + footer(m) + "  "
			for _, l := range c.has {
				if !strings.Contains(f, " "+l+"  ") {
					t.Errorf("footer lacks %q: %q", l, f)
				}
			}
			for _, l := range c.lacks {
				if strings.Contains(f, l) {
					t.Errorf("footer offers %q: %q", l, f)
				}
			}
		})
	}
}

// The zoomed footer keeps unzoom on screen at the narrowest size too (esc
// back used to be cut off): when the keys do not all fit, the pane's come
// first, globals only in the room they leave, then unzoom and "? help"
// (issue 29).
func TestZoomedFooterAt80(t *testing.T) {
	m := newTestModel(t, 80, 24, false)
	press(m, "z")
	if f := footer(m); f != "+ group more  / symbol  : command  tab next pane  z/esc unzoom  ? help" {
		t.Fatalf("zoomed footer at 80x24: %q", f)
	}
}

// An account tab with no rows offers no cursor keys; rows bring them.
func TestAccountTabFooterFollowsRows(t *testing.T) {
	m := newTestModel(t, 160, 48, false)
	exec(m, send(m, &feed.Update{Account: &feed.Account{Version: 1}}))
	press(m, "5")
	if f := footer(m); !strings.Contains(f, "] next tab") || strings.Contains(f, "↑/k") {
		t.Fatalf("empty Positions tab: %q", f)
	}
	acct := &feed.Account{Version: 2, Open: []feed.Order{
		{OrderID: 1, Symbol: "PERP_BTC_USDT", Side: "BUY", Status: "NEW"},
		{OrderID: 2, Symbol: "PERP_BTC_USDT", Side: "SELL", Status: "NEW"},
	}}
	press(m, "]") // Open orders, empty until the account says otherwise
	if f := footer(m); strings.Contains(f, "↑/k") {
		t.Fatalf("empty Open orders tab: %q", f)
	}
	exec(m, send(m, &feed.Update{Account: acct}))
	if f := footer(m); !strings.Contains(f, "↑/k up  ↓/j down") {
		t.Fatalf("Open orders with two rows offers no cursor keys: %q", f)
	}
}

// The notice log names its scroll keys only when there is more than fits.
func TestLogDialogScrollKeysOnlyWhenLong(t *testing.T) {
	m := newTestModel(t, 100, 30, false)
	exec(m, send(m, common.NoticeMsg{Level: common.NoticeInfo, Text: "one notice"}))
	openLog := func() string {
		runCommand(m, "log")
		return screen(m)
	}
	if sc := openLog(); !strings.Contains(sc, "Notices, newest first (1) · esc close") || strings.Contains(sc, "pgup") {
		t.Fatalf("a short log offers scroll keys:\n%s", sc)
	}
	press(m, "esc")
	for i := 0; i < 40; i++ {
		exec(m, send(m, common.NoticeMsg{Level: common.NoticeInfo, Text: "notice " + itoa(i)}))
	}
	sc := openLog()
	if !strings.Contains(sc, "· ↑↓ pgup/pgdn · esc close") {
		t.Fatalf("a long log lacks its scroll keys:\n%s", sc)
	}
	top := sc
	press(m, "down")
	if screen(m) == top {
		t.Fatal("↓ did not scroll the long log")
	}
}

// busyHealth is both streams reporting their full health: reconnect
// counts, latency and rates, the fields that used to push a notice off.
func busyHealth(m *Model) {
	exec(m, send(m, &feed.Update{Health: []feed.Health{
		{Stream: "market", State: feed.Connected, Latency: 12 * time.Millisecond, MsgsPerSec: 478, Reconnects: 3},
		{Stream: "private", State: feed.Connected, Latency: 3 * time.Millisecond, MsgsPerSec: 12, Reconnects: 1},
	}}))
}

// The status bar and the row under it, each stripped.
func bottomRows(m *Model) (string, string) {
	lines := strings.Split(screen(m), "\n")
	return lines[len(lines)-2], lines[len(lines)-1]
}

// A notice about an order or a refused action is readable whole (issue
// 29): it takes the room first, the health fields shrink to their short
// forms, and one that still does not fit goes on in a second line, over
// the footer, for its lifetime.
func TestNoticeReadableWhole(t *testing.T) {
	short := "not sent: the screen is too small"
	long := "order sent: BUY LIMIT 0.001 PERP_BTC_USDT @ 65000.1 (order id 1005754, client id 1000000042)"
	for _, c := range []struct {
		w, h     int
		text     string
		twoLines bool
	}{{80, 24, short, false}, {120, 40, short, false}, {160, 48, short, false}, {80, 24, long, true}, {160, 48, long, false}} {
		t.Run(fmt.Sprintf("%dx%d %d chars", c.w, c.h, len(c.text)), func(t *testing.T) {
			m := newTestModel(t, c.w, c.h, false)
			m.opts.Budget = func() string { return "9/10" }
			busyHealth(m)
			exec(m, send(m, common.NoticeMsg{Level: common.NoticeError, Text: c.text}))
			status, next := bottomRows(m)
			shown := strings.Join(strings.Fields(strings.Replace(status, "12:34:56 UTC", "", 1)+" "+next), " ")
			if !strings.Contains(shown, c.text) {
				t.Fatalf("notice not readable whole:\n%q\n%q", status, next)
			}
			if !strings.Contains(status, "market") || !strings.Contains(status, "private") || !strings.Contains(status, "UTC") {
				t.Fatalf("the notice pushed the streams' health or the clock off: %q", status)
			}
			if two := !strings.Contains(next, "quit") && !strings.Contains(next, "help"); two != c.twoLines {
				t.Fatalf("second line %v, want %v:\n%q\n%q", two, c.twoLines, status, next)
			}
			m.notices = nil // the notice's lifetime ends: full health, the footer back
			m.status.invalidate()
			status, next = bottomRows(m)
			if !strings.Contains(status, "rc 3") || !strings.Contains(next, "help") {
				t.Fatalf("after the notice:\n%q\n%q", status, next)
			}
		})
	}
}

// At 80 columns the focused pane's keys come first and the globals
// collapse to "? help" (issue 29); wide, the globals follow in the room
// left, "? help" still last.
func TestNarrowFooterPaneKeysFirst(t *testing.T) {
	inst := simtest.Start(t, sim.Options{Seed: 6, NoRateLimits: true, Living: sim.LivingOptions{NoMarket: true}})
	client := venue.NewClient(inst.Endpoints, inst.Credentials, venue.WithLimiter(nil))
	th, _ := theme.New("dark", false)
	m := New(Options{Venue: "SIM", Symbol: "SPOT_ETH_USDT", Watchlist: []string{"SPOT_ETH_USDT"}, Theme: th,
		Keys: common.DefaultKeyMap(), Desk: deskOn(t, client, nil), Now: panetest.Clock})
	m.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
	m.Update(panetest.Market(1, 40))
	press(m, "2") // the chart
	f := footer(m)
	if !strings.HasPrefix(f, "> longer candles") || !strings.HasSuffix(f, "? help") || strings.Contains(f, "/ symbol") {
		t.Fatalf("80-column footer on the chart: %q", f)
	}
	m.Update(tea.WindowSizeMsg{Width: 200, Height: 50})
	if f := footer(m); !strings.HasPrefix(f, "> longer candles") || !strings.HasSuffix(f, "/ symbol  : command  tab next pane  z zoom  q quit  ? help") {
		t.Fatalf("200-column footer: %q", f)
	}
}
