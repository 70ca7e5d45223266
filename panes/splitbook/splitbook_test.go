package splitbook

import (
	"fmt"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"tradedeck/feed"
	"tradedeck/panes/common"
	"tradedeck/panes/panetest"
)

func newSplit(t *testing.T, w, h int, ascii bool, syms ...string) *Model {
	t.Helper()
	store := common.NewStore()
	u := panetest.Market(1, 30)
	store.Apply(u)
	m := New(panetest.Common(store, panetest.Keys(), ascii), syms, nil)
	m.SetSize(w, h)
	m.Update(common.FeedMsg{Update: u})
	return m
}

// Two to four books side by side at 80x24 and 200x60, Unicode and ASCII.
func TestGoldenSplit(t *testing.T) {
	for _, c := range []struct {
		w, h  int
		ascii bool
		syms  []string
	}{
		{80, 24, false, []string{"SPOT_BTC_USDT", "PERP_BTC_USDT"}},
		{80, 24, true, []string{"SPOT_BTC_USDT", "PERP_BTC_USDT"}},
		{200, 60, false, []string{"SPOT_BTC_USDT", "PERP_BTC_USDT", "SPOT_ETH_USDT", "PERP_ETH_USDT"}},
		{200, 60, true, []string{"SPOT_ETH_USDT", "PERP_ETH_USDT", "PERP_SOL_USDT"}},
	} {
		m := newSplit(t, c.w, c.h, c.ascii, c.syms...)
		panetest.CheckLines(t, m.Lines(), c.w, c.h)
		name := fmt.Sprintf("split_%d_%dx%d", len(c.syms), c.w, c.h)
		if c.ascii {
			name += "_ascii"
		}
		panetest.Golden(t, name, m.View())
	}
}

// The spread line is the exact difference of the mids: PERP 654321.0
// against SPOT 654298.0 in the fixture.
func TestSpreadOfSpotAndPerp(t *testing.T) {
	m := newSplit(t, 120, 20, false, "SPOT_BTC_USDT", "PERP_BTC_USDT")
	lines := m.Lines()
	last := ansi.Strip(lines[len(lines)-1])
	if !strings.Contains(last, "PERP_BTC_USDT - SPOT_BTC_USDT 23 (0.4 bps)") {
		t.Fatalf("spread line %q", last)
	}
}

// Each book has its own grouping: keys go to the focused book, tab moves
// the focus; a book update redraws only what changed.
func TestKeysGoToTheFocusedBook(t *testing.T) {
	m := newSplit(t, 120, 20, false, "SPOT_BTC_USDT", "PERP_BTC_USDT")
	t0, t1 := m.books[0].Title(), m.books[1].Title()
	m.Update(tea.KeyPressMsg{Code: '+', Text: "+"})
	if m.books[0].Title() == t0 || m.books[1].Title() != t1 {
		t.Fatalf("group key: %q %q", m.books[0].Title(), m.books[1].Title())
	}
	t0 = m.books[0].Title()
	m.Update(tea.KeyPressMsg{Code: ']', Text: "]"})
	m.Update(tea.KeyPressMsg{Code: '+', Text: "+"})
	if m.books[0].Title() != t0 || m.books[1].Title() == t1 {
		t.Fatalf("after tab: %q %q", m.books[0].Title(), m.books[1].Title())
	}
	// a new book of the second symbol only
	b := *m.Store.Books["PERP_BTC_USDT"]
	b.Version++
	b.Bids = append([]feed.Level{{Price: b.Bids[0].Price + 1, Qty: 5}}, b.Bids...)
	m.Store.Apply(&feed.Update{Books: map[string]*feed.Book{b.Symbol: &b}})
	m.Update(common.FeedMsg{Update: &feed.Update{Books: map[string]*feed.Book{b.Symbol: &b}}})
	if !strings.Contains(ansi.Strip(m.View()), "PERP_BTC_USDT - SPOT_BTC_USDT 23.05 (0.4 bps)") {
		t.Fatalf("spread after the bid moved:\n%s", ansi.Strip(m.View()))
	}
}

func TestParse(t *testing.T) {
	known := func(s string) bool { return s != "SPOT_NOPE_USDT" }
	if got, err := Parse([]string{"spot_btc_usdt", "PERP_BTC_USDT"}, known); err != nil || got[0] != "SPOT_BTC_USDT" {
		t.Fatal(got, err)
	}
	for _, bad := range [][]string{{"SPOT_BTC_USDT"}, {"A_B_C", "A_B_C"}, {"SPOT_NOPE_USDT", "PERP_BTC_USDT"}, {"A", "B", "C", "D", "E"}} {
		if _, err := Parse(bad, known); err == nil {
			t.Errorf("%v accepted", bad)
		}
	}
}
