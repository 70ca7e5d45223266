package ui

import (
	"reflect"
	"runtime"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/shopspring/decimal"

	"tradedeck/feed"
	"tradedeck/panes/common"
	"tradedeck/panes/panetest"
	"tradedeck/venue"
)

// exec runs a command and feeds what it yields back into the model, like
// the Bubble Tea runtime. Commands that wait for time or for the feed
// (ticks, cursor blinks, the source's next update when none is queued)
// would deliver later: they are recognised by their function, not by a
// timeout, and dropped. Every other command must finish; a generous
// deadline only bounds a hang. It returns every message seen.
func exec(m *Model, cmd tea.Cmd) []tea.Msg {
	if cmd == nil {
		return nil
	}
	name := runtime.FuncForPC(reflect.ValueOf(cmd).Pointer()).Name()
	switch {
	case strings.HasPrefix(name, "tradedeck/ui.(*Model).wait."):
		if m.opts.Feed == nil || len(m.opts.Feed.Updates()) == 0 {
			return nil // nothing queued: it would block until the feed sends
		}
	case waits(name):
		return nil
	}
	ch := make(chan tea.Msg, 1)
	go func() { ch <- cmd() }()
	var msg tea.Msg
	select {
	case msg = <-ch:
	case <-time.After(10 * time.Second):
		panic("command " + name + " did not finish in 10 s (if it waits for time, list it in waits)")
	}
	if msg == nil {
		return nil
	}
	if b, ok := msg.(tea.BatchMsg); ok {
		var out []tea.Msg
		for _, c := range b {
			out = append(out, exec(m, c)...)
		}
		return out
	}
	if v := reflect.ValueOf(msg); v.Kind() == reflect.Slice && v.Type().Elem() == reflect.TypeOf(tea.Cmd(nil)) {
		var out []tea.Msg
		for i := 0; i < v.Len(); i++ {
			out = append(out, exec(m, v.Index(i).Interface().(tea.Cmd))...)
		}
		return out
	}
	if _, ok := msg.(tea.QuitMsg); ok {
		return []tea.Msg{msg}
	}
	_, next := m.Update(msg)
	m.View() // the runtime draws after every Update
	return append([]tea.Msg{msg}, exec(m, next)...)
}

// waits reports the commands that wait for time: Bubble Tea's Tick and
// Every, and the text inputs' cursor blink.
func waits(name string) bool {
	for _, p := range []string{"charm.land/bubbletea/v2.Tick.", "charm.land/bubbletea/v2.Every.", "charm.land/bubbles/v2/cursor."} {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return false
}

// press types keys ("ctrl+c", "tab", "esc", "enter" or single runes).
func press(m *Model, keys ...string) []tea.Msg {
	var out []tea.Msg
	for _, k := range keys {
		out = append(out, exec(m, send(m, keyMsg(k)))...)
	}
	return out
}

func typeText(m *Model, s string) {
	for _, r := range s {
		press(m, string(r))
	}
}

// runCommand types line on the command line and runs it.
func runCommand(m *Model, line string) []tea.Msg {
	press(m, ":")
	typeText(m, line)
	return press(m, "enter")
}

func send(m *Model, msg tea.Msg) tea.Cmd { _, c := m.Update(msg); m.View(); return c }

func keyMsg(k string) tea.KeyPressMsg {
	switch k {
	case "tab":
		return tea.KeyPressMsg{Code: tea.KeyTab}
	case "shift+tab":
		return tea.KeyPressMsg{Code: tea.KeyTab, Mod: tea.ModShift}
	case "esc":
		return tea.KeyPressMsg{Code: tea.KeyEscape}
	case "enter":
		return tea.KeyPressMsg{Code: tea.KeyEnter}
	case "ctrl+c":
		return tea.KeyPressMsg{Code: 'c', Mod: tea.ModCtrl}
	case "down":
		return tea.KeyPressMsg{Code: tea.KeyDown}
	case "up":
		return tea.KeyPressMsg{Code: tea.KeyUp}
	}
	r := []rune(k)[0]
	return tea.KeyPressMsg{Code: r, Text: k}
}

func screen(m *Model) string { return ansi.Strip(m.Render()) }

func checkScreen(t *testing.T, m *Model, w, h int) {
	t.Helper()
	lines := strings.Split(m.Render(), "\n")
	if len(lines) != h {
		t.Fatalf("%d lines, want %d", len(lines), h)
	}
	for i, l := range lines {
		if n := ansi.StringWidth(l); n != w {
			t.Fatalf("line %d: %d cells, want %d: %q", i, n, w, ansi.Strip(l))
		}
	}
}

func TestEveryLineFillsTheScreen(t *testing.T) {
	for _, ascii := range []bool{false, true} {
		for _, sz := range [][2]int{{80, 24}, {100, 30}, {120, 40}, {149, 45}, {150, 50}, {200, 60}, {320, 90}} {
			m := newTestModel(t, sz[0], sz[1], ascii)
			checkScreen(t, m, sz[0], sz[1])
			press(m, "z")
			checkScreen(t, m, sz[0], sz[1])
			press(m, "z", "?")
			checkScreen(t, m, sz[0], sz[1])
			if ascii {
				for i, r := range screen(m) {
					if r > 127 {
						t.Fatalf("ASCII mode drew %q at byte %d", r, i)
					}
				}
			}
		}
	}
}

func TestTooSmall(t *testing.T) {
	m := newTestModel(t, 79, 24, false)
	if s := screen(m); !strings.Contains(s, "terminal too small: 79x24") || !strings.Contains(s, "80x24") {
		t.Fatalf("screen:\n%s", s)
	}
	m.Update(tea.WindowSizeMsg{Width: 80, Height: 23})
	if s := screen(m); !strings.Contains(s, "too small") {
		t.Fatalf("screen:\n%s", s)
	}
	m.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
	if s := screen(m); strings.Contains(s, "too small") || !strings.Contains(s, "Book PERP_BTC_USDT") {
		t.Fatalf("screen:\n%s", s)
	}
}

func TestFocusCycleDigitsAndZoom(t *testing.T) {
	m := newTestModel(t, 120, 40, false)
	if m.Focused() != PaneBook {
		t.Fatal(m.Focused())
	}
	press(m, "tab")
	if m.Focused() != PaneChart {
		t.Fatal(m.Focused())
	}
	press(m, "shift+tab", "shift+tab")
	if m.Focused() != PaneTables {
		t.Fatal("shift+tab from book should wrap to the last pane, got", m.Focused())
	}
	press(m, "3")
	if m.Focused() != PaneTrades {
		t.Fatal(m.Focused())
	}
	press(m, "z")
	s := screen(m)
	if !m.Zoomed() || !strings.Contains(s, "3 Trades") || strings.Contains(s, "Book PERP_BTC_USDT") || !strings.Contains(s, "unzoom") {
		t.Fatalf("zoomed screen:\n%s", s)
	}
	press(m, "esc")
	if m.Zoomed() || !strings.Contains(screen(m), "Book PERP_BTC_USDT") {
		t.Fatal("esc should unzoom")
	}
	// At 80 columns the watchlist is hidden: its digit shows it zoomed,
	// and tab skips it.
	m = newTestModel(t, 80, 24, false)
	press(m, "4")
	if !m.Zoomed() || !strings.Contains(screen(m), "4 Watchlist") {
		t.Fatalf("hidden pane by digit:\n%s", screen(m))
	}
	press(m, "esc")
	if m.Focused() != PaneBook {
		t.Fatal("unzooming a hidden pane should give the focus to a visible one, got", m.Focused())
	}
	for i := 0; i < 5; i++ {
		press(m, "tab")
		if m.Focused() == PaneWatch {
			t.Fatal("tab focused the hidden watchlist")
		}
	}
}

type fakeSource struct {
	mu        sync.Mutex
	ch        chan feed.Update
	focus     []string
	intervals []string
	watch     [][]string
}

func (f *fakeSource) Updates() <-chan feed.Update { return f.ch }
func (f *fakeSource) Symbols() []venue.SymbolRule { return nil }
func (f *fakeSource) SetBooks([]string)           {}
func (f *fakeSource) Focus(s string)              { f.mu.Lock(); f.focus = append(f.focus, s); f.mu.Unlock() }
func (f *fakeSource) SetInterval(s string) {
	f.mu.Lock()
	f.intervals = append(f.intervals, s)
	f.mu.Unlock()
}
func (f *fakeSource) SetWatchlist(s []string) {
	f.mu.Lock()
	f.watch = append(f.watch, s)
	f.mu.Unlock()
}

func newSourced(t *testing.T) (*Model, *fakeSource) {
	src := &fakeSource{ch: make(chan feed.Update, 4)}
	th := panetest.Common(nil, nil, false).Theme
	m := New(Options{Feed: src, Venue: "SIM", Symbol: "PERP_BTC_USDT", Watchlist: panetest.Symbols, Theme: th, Keys: panetest.Keys(), Now: panetest.Clock})
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
	return m, src
}

func TestCommandsDriveTheFeed(t *testing.T) {
	m, src := newSourced(t)
	m.Init()
	src.ch <- *panetest.Market(1, 30)
	if msg := exec(m, m.wait()); len(msg) == 0 {
		t.Fatal("no update read from the source")
	}
	if !strings.Contains(screen(m), "654320.9") {
		t.Fatalf("the update did not reach the book:\n%s", screen(m))
	}
	runCommand(m, "interval 5m")
	if m.Interval() != "5m" || !strings.Contains(screen(m), "Chart PERP_BTC_USDT 5m") {
		t.Fatalf("interval: %s\n%s", m.Interval(), screen(m))
	}
	runCommand(m, "symbol eth")
	if m.Symbol() != "PERP_ETH_USDT" {
		t.Fatalf("fuzzy :symbol eth gave %s", m.Symbol())
	}
	press(m, ">")
	if m.Interval() != "5m" {
		t.Fatal("> acts on the chart only when it is focused")
	}
	press(m, "2", ">")
	if m.Interval() != "15m" {
		t.Fatal("> on the chart should step to 15m, got", m.Interval())
	}
	runCommand(m, "interval 7m")
	if m.Interval() != "15m" || !strings.Contains(screen(m), "unknown interval 7m") {
		t.Fatalf("bad interval must be refused with a notice:\n%s", screen(m))
	}
	runCommand(m, "frobnicate")
	if !strings.Contains(screen(m), "unknown command :frobnicate") {
		t.Fatalf("%s", screen(m))
	}
	src.mu.Lock()
	defer src.mu.Unlock()
	if !reflect.DeepEqual(src.focus, []string{"PERP_BTC_USDT", "PERP_ETH_USDT"}) {
		t.Fatal("focus calls", src.focus)
	}
	if !reflect.DeepEqual(src.intervals, []string{"1m", "5m", "15m"}) {
		t.Fatal("interval calls", src.intervals)
	}
}

func TestPickerSwitchesSymbol(t *testing.T) {
	m := newTestModel(t, 120, 40, false)
	press(m, "/")
	if !m.DialogOpen() || !strings.Contains(screen(m), "Symbol") {
		t.Fatalf("picker not open:\n%s", screen(m))
	}
	typeText(m, "sol")
	s := ansi.Strip(m.dialogs[0].View())
	if !strings.Contains(s, "PERP_SOL_USDT") || strings.Contains(s, "SPOT_WOO_USDT") {
		t.Fatalf("ranking for sol:\n%s", s)
	}
	// Keys go to the dialog: q types, it does not quit.
	if msgs := press(m, "q"); len(msgs) > 0 {
		for _, msg := range msgs {
			if _, ok := msg.(tea.QuitMsg); ok {
				t.Fatal("q quit while the picker was open")
			}
		}
	}
	press(m, "backspace")
	m.Update(keyBackspace())
	press(m, "enter")
	if m.DialogOpen() || m.Symbol() != "PERP_SOL_USDT" {
		t.Fatalf("symbol %s, dialog open %v", m.Symbol(), m.DialogOpen())
	}
	if !strings.Contains(screen(m), "Book PERP_SOL_USDT") {
		t.Fatal("book did not follow")
	}
	press(m, "/", "esc")
	if m.DialogOpen() {
		t.Fatal("esc should close the picker")
	}
}

func keyBackspace() tea.KeyPressMsg { return tea.KeyPressMsg{Code: tea.KeyBackspace} }

func TestRankPrefersWholeWords(t *testing.T) {
	r := rank("btc", []string{"SPOT_WOO_USDT", "PERP_BTC_USDT", "SPOT_BTCDOM_USDT", "SPOT_BTC_USDT"})
	if len(r) != 3 || r[0].text != "PERP_BTC_USDT" && r[0].text != "SPOT_BTC_USDT" || r[2].text != "SPOT_BTCDOM_USDT" {
		t.Fatalf("%+v", r)
	}
	if r := rank("xyz", []string{"PERP_BTC_USDT"}); len(r) != 0 {
		t.Fatal(r)
	}
	if r := rank("", []string{"B", "A"}); r[0].text != "B" {
		t.Fatal("empty query keeps the order")
	}
}

func TestMouseFocusAndBookClick(t *testing.T) {
	m := newTestModel(t, 120, 40, false)
	r := m.rects[PaneChart]
	exec(m, send(m, tea.MouseClickMsg{X: r.x + 3, Y: r.y + 3, Button: tea.MouseLeft}))
	if m.Focused() != PaneChart {
		t.Fatal("click did not focus the chart")
	}
	// Click the best ask row: just above the spread line.
	br := m.rects[PaneBook]
	lines := m.book.Lines()
	spread := -1
	for i, l := range lines {
		if strings.Contains(ansi.Strip(l), "spread") {
			spread = i
		}
	}
	if spread < 1 {
		t.Fatal("no spread line")
	}
	msgs := exec(m, send(m, tea.MouseClickMsg{X: br.x + 5, Y: br.y + 1 + spread - 1, Button: tea.MouseLeft}))
	var got *common.UsePriceMsg
	for _, msg := range msgs {
		if p, ok := msg.(common.UsePriceMsg); ok {
			got = &p
		}
	}
	if got == nil || got.Symbol != "PERP_BTC_USDT" || got.Side != feed.Sell || got.Price.String() != "654321.1" {
		t.Fatalf("click on best ask gave %+v", got)
	}
	if m.Focused() != PaneBook {
		t.Fatal("click did not focus the book")
	}
	if !strings.Contains(screen(m), "price 654321.1 picked") {
		t.Fatal("no notice for the picked price")
	}
}

func TestNoticesFromEventsExpire(t *testing.T) {
	now := panetest.Now
	m := newTestModel(t, 120, 40, false)
	m.c.Now = func() time.Time { return now }
	m.Update(&feed.Update{Events: []feed.Event{{Kind: feed.EventFill, Text: "FILL BUY 0.2 PERP_BTC_USDT @ 654300.5"}}})
	if !strings.Contains(screen(m), "FILL BUY 0.2 PERP_BTC_USDT") {
		t.Fatalf("fill notice missing:\n%s", screen(m))
	}
	now = now.Add(7 * time.Second)
	m.Update(tickMsg(now))
	if strings.Contains(screen(m), "FILL BUY") {
		t.Fatal("the notice did not expire")
	}
	m.Update(&feed.Update{Events: []feed.Event{{Kind: feed.EventError, Text: "REST 429: rate limited"}}})
	now = now.Add(11 * time.Second)
	m.Update(tickMsg(now))
	if s := screen(m); !strings.Contains(s, "last error: REST 429") {
		t.Fatalf("the last error should stay in the status bar:\n%s", s)
	}
}

func TestThemeSwitchRepaints(t *testing.T) {
	m := newTestModel(t, 120, 40, false)
	before := m.Render()
	runCommand(m, "theme light")
	after := m.Render()
	if before == after || ansi.Strip(before) != ansi.Strip(after) {
		t.Fatal("theme switch should change colours only")
	}
	runCommand(m, "theme nope")
	if !strings.Contains(screen(m), "unknown theme") {
		t.Fatal("bad theme not reported")
	}
}

func TestQuit(t *testing.T) {
	m := newTestModel(t, 120, 40, false)
	msgs := press(m, "q")
	if len(msgs) != 1 {
		t.Fatalf("q gave %v", msgs)
	}
	if _, ok := msgs[0].(tea.QuitMsg); !ok {
		t.Fatalf("q gave %T", msgs[0])
	}
}

func TestLiveBannerIsRed(t *testing.T) {
	th := panetest.Common(nil, nil, false).Theme
	m := New(Options{Venue: "LIVE", Symbol: "PERP_BTC_USDT", Theme: th, Keys: panetest.Keys(), Now: panetest.Clock})
	m.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
	first := strings.SplitN(m.Render(), "\n", 2)[0]
	if !strings.Contains(first, th.Live+" LIVE ") {
		t.Fatalf("LIVE badge not in its red style: %q", first)
	}
	// It stays through zoom, pages, dialogs.
	press(m, "z", "?")
	if !strings.HasPrefix(screen(m), " LIVE ") {
		t.Fatal("LIVE badge hidden")
	}
}

// Odd or hostile snapshots never crash the screen.
func TestOddUpdatesNeverCrash(t *testing.T) {
	m := newTestModel(t, 200, 60, false)
	d := func(s string) decimal.Decimal { return decimal.RequireFromString(s) }
	sym := "PERP_BTC_USDT"
	for _, u := range []feed.Update{
		{},
		{Health: []feed.Health{{Stream: "market", State: feed.StreamState(42), Err: "boom"}}},
		{Trades: map[string]*feed.Trades{sym: {Symbol: sym, Version: 99}}},
		{Candles: map[string]*feed.Candles{feed.CandleKey(sym, "1m"): {Symbol: sym, Loaded: true, Version: 99, Rows: []feed.Candle{
			{High: d("1"), Low: d("5"), Open: d("3"), Close: d("-2"), Volume: d("-1")},
			{High: d("0"), Low: d("0"), Open: d("0"), Close: d("0")},
		}}}},
		{Tickers: map[string]feed.Ticker{sym: {Symbol: sym}}},
		{Futures: map[string]feed.Futures{sym: {Symbol: sym, NextFunding: panetest.Now.Add(-time.Hour)}}},
		{BBOs: map[string]feed.BBO{sym: {Symbol: sym, Bid: -1, Ask: 0}}},
		{Account: &feed.Account{Version: 99, Open: []feed.Order{{Symbol: sym, Side: "BUY", Status: "NEW"}},
			Positions: []feed.Position{{Symbol: sym}}}},
		{Events: []feed.Event{{Kind: feed.EventKind(77), Text: strings.Repeat("x", 500)}}},
	} {
		m.Update(&u)
		checkScreen(t, m, 200, 60)
		for _, p := range []string{"1", "2", "3", "4", "5"} {
			press(m, p)
			checkScreen(t, m, 200, 60)
		}
	}
}

func TestCommandLineCompletes(t *testing.T) {
	m := newTestModel(t, 120, 40, false)
	press(m, ":")
	typeText(m, "symbol PERP_S")
	press(m, "tab")
	press(m, "enter")
	if m.Symbol() != "PERP_SOL_USDT" {
		t.Fatalf("tab completion: symbol %s", m.Symbol())
	}
	press(m, ":")
	typeText(m, "interval 1")
	press(m, "tab")
	press(m, "enter")
	if m.Interval() != "1m" {
		t.Fatalf("tab completion: interval %s", m.Interval())
	}
}

// A paced screen (an SSH session) reads the next update only when the
// next slot of Pace begins, however early it is there: the hub session
// merges what arrives meanwhile. Unpaced, it reads at once. In a synctest
// bubble the waits take no real time and are measured exactly.
func TestPacedScreenReadsUpdatesPerSlot(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		m, src := newSourced(t)
		m.opts.Pace = 300 * time.Millisecond
		time.Sleep(10 * time.Millisecond) // inside a slot, not at its start
		src.ch <- *panetest.Market(1, 30)
		slot := time.Now().Truncate(m.opts.Pace).Add(m.opts.Pace)
		if msg := m.waitPaced()(); msg == nil {
			t.Fatal("no update read from the source")
		}
		if read := time.Now(); !read.Equal(slot) {
			t.Fatalf("read at %v, want the next slot's start %v", read, slot)
		}
		m.opts.Pace = 0
		src.ch <- *panetest.Market(1, 30)
		start := time.Now()
		if msg := m.waitPaced()(); msg == nil {
			t.Fatal("unpaced: no update read")
		}
		if waited := time.Since(start); waited != 0 {
			t.Fatalf("unpaced: read after %v, want at once", waited)
		}
	})
}
