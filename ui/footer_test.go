package ui

import (
	"strings"
	"testing"

	"tradedeck/feed"
	"tradedeck/panes/common"
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

// The zoomed footer keeps unzoom in the zoom key's place, so it is on
// screen at the narrowest size too (esc back used to be cut off).
func TestZoomedFooterAt80(t *testing.T) {
	m := newTestModel(t, 80, 24, false)
	press(m, "z")
	if f := footer(m); !strings.HasPrefix(f, "? help  / symbol  : command  tab next pane  z/esc unzoom  + group more") {
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
