package ui

import (
	"strings"
	"sync"
	"testing"

	tea "charm.land/bubbletea/v2"

	"tradedeck/feed"
	"tradedeck/panes/panetest"
)

// bookSource records what the split view asks the feed to stream.
type bookSource struct {
	fakeSource
	bmu   sync.Mutex
	books [][]string
}

func (b *bookSource) SetBooks(s []string) { b.bmu.Lock(); b.books = append(b.books, s); b.bmu.Unlock() }

// :split opens two books side by side over the grid, streams their books
// while open, and esc closes it and drops them; bad input is a notice.
func TestSplitCommand(t *testing.T) {
	src := &bookSource{fakeSource: fakeSource{ch: make(chan feed.Update, 4)}}
	th := panetest.Common(nil, nil, false).Theme
	m := New(Options{Feed: src, Venue: "SIM", Symbol: "PERP_BTC_USDT", Watchlist: panetest.Symbols, Theme: th, Keys: panetest.Keys(), Now: panetest.Clock})
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
	m.Update(panetest.Market(1, 30))
	runCommand(m, "split spot_btc_usdt PERP_BTC_USDT")
	s := screen(m)
	if !strings.Contains(s, "Book SPOT_BTC_USDT") || !strings.Contains(s, "PERP_BTC_USDT - SPOT_BTC_USDT 23 (0.4 bps)") {
		t.Fatalf("split not shown:\n%s", s)
	}
	checkScreen(t, m, 120, 40)
	press(m, "esc")
	if s := screen(m); strings.Contains(s, "PERP_BTC_USDT - SPOT_BTC_USDT") {
		t.Fatalf("esc did not close the split:\n%s", s)
	}
	src.bmu.Lock()
	got := src.books
	src.bmu.Unlock()
	if len(got) != 2 || strings.Join(got[0], ",") != "SPOT_BTC_USDT,PERP_BTC_USDT" || got[1] != nil {
		t.Fatalf("books asked of the feed: %q", got)
	}
	runCommand(m, "split SPOT_BTC_USDT")
	if s := screen(m); !strings.Contains(s, "give 2 to 4 symbols") {
		t.Fatalf("one symbol must be refused:\n%s", s)
	}
}
