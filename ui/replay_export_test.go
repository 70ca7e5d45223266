package ui

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/shopspring/decimal"

	"tradedeck/feed"
	"tradedeck/panes/accountpane"
	"tradedeck/panes/common"
	"tradedeck/panes/panetest"
	"tradedeck/theme"
)

func newServicedModel(t *testing.T, exportDir string, replay ReplayControl) *Model {
	t.Helper()
	th, err := theme.New("dark", false)
	if err != nil {
		t.Fatal(err)
	}
	m := New(Options{Venue: "REPLAY", Symbol: "PERP_BTC_USDT", Watchlist: panetest.Symbols, Theme: th,
		Keys: panetest.Keys(), Now: panetest.Clock, ExportDir: exportDir, Replay: replay, ReadOnly: "a replay cannot trade"})
	m.Update(tea.WindowSizeMsg{Width: 160, Height: 48})
	return m
}

func noticeOf(t *testing.T, cmd tea.Cmd) common.NoticeMsg {
	t.Helper()
	if cmd == nil {
		t.Fatal("no command")
	}
	n, ok := cmd().(common.NoticeMsg)
	if !ok {
		t.Fatal("no notice")
	}
	return n
}

func TestExportWritesTheTabInView(t *testing.T) {
	dir := t.TempDir()
	m := newServicedModel(t, dir, nil)
	when := time.Date(2026, 1, 2, 3, 4, 5, 678e6, time.UTC)
	m.Update(&feed.Update{Account: &feed.Account{Fills: []feed.Fill{
		{TradeID: 7, OrderID: 9, Symbol: "PERP_BTC_USDT", Side: "BUY", Price: decimal.RequireFromString("97032.5"),
			Qty: decimal.RequireFromString("0.0012"), Fee: decimal.RequireFromString("0.00000036"), FeeAsset: "USDT", Maker: true, Time: when},
	}}})
	m.tables.SetTab(accountpane.Fills)
	n := noticeOf(t, m.Run(":export mine.csv"))
	path := filepath.Join(dir, "mine.csv")
	if n.Level != common.NoticeInfo || n.Text != "exported 1 fills to "+path {
		t.Fatalf("notice %+v", n)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	want := "id,time,symbol,side,price,quantity,fee,fee_asset,maker,order_id\n7,2026-01-02T03:04:05.678Z,PERP_BTC_USDT,BUY,97032.5,0.0012,0.00000036,USDT,true,9\n"
	if string(b) != want {
		t.Fatalf("file:\n%s\nwant:\n%s", b, want)
	}
	// Default name, JSON by extension.
	m.tables.SetTab(accountpane.Balances)
	if n := noticeOf(t, m.Run(":export")); !strings.HasPrefix(n.Text, "exported 0 balances to "+filepath.Join(dir, "tradedeck-balances-")) {
		t.Fatalf("notice %+v", n)
	}
	noticeOf(t, m.Run(":export b.json"))
	if b, _ := os.ReadFile(filepath.Join(dir, "b.json")); string(b) != "[]\n" {
		t.Fatalf("json %q", b)
	}
}

func TestExportRefusedWithoutDirectory(t *testing.T) {
	m := newServicedModel(t, "", nil) // an SSH session
	if n := noticeOf(t, m.Run(":export x.csv")); n.Level != common.NoticeWarn || !strings.Contains(n.Text, "not available") {
		t.Fatalf("notice %+v", n)
	}
}

type fakeReplay struct {
	paused bool
	steps  int
	speed  float64
	jumped time.Duration
}

func (f *fakeReplay) TogglePause() bool      { f.paused = !f.paused; return f.paused }
func (f *fakeReplay) Step()                  { f.steps++ }
func (f *fakeReplay) Speed() float64         { return f.speed }
func (f *fakeReplay) SetSpeed(s float64)     { f.speed = s }
func (f *fakeReplay) JumpBy(d time.Duration) { f.jumped += d }

func TestReplayKeys(t *testing.T) {
	rc := &fakeReplay{speed: 1}
	m := newServicedModel(t, "", rc)
	press := func(r rune) { m.Update(tea.KeyPressMsg{Code: r, Text: string(r)}) }
	m.Update(tea.KeyPressMsg{Code: tea.KeySpace, Text: " "})
	press('o')
	press('o')
	press('}')
	press('}')
	press('(')
	if !rc.paused || rc.steps != 2 || rc.speed != 4 || rc.jumped != -10*time.Second {
		t.Fatalf("%+v", rc)
	}
	for i := 0; i < 10; i++ {
		press('}')
	}
	if rc.speed != 0 {
		t.Fatalf("faster tops out at max, got %v", rc.speed)
	}
	press('{')
	if rc.speed != 64 {
		t.Fatalf("slower from max: %v", rc.speed)
	}
	// Typing in the command line is not playback.
	press(':')
	m.Update(tea.KeyPressMsg{Code: tea.KeySpace, Text: " "})
	press('o')
	if !rc.paused || rc.steps != 2 {
		t.Fatalf("keys leaked from the command line: %+v", rc)
	}
}
