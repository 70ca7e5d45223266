package book

import (
	"math"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"tradedeck/feed"
	"tradedeck/panes/common"
	"tradedeck/panes/panetest"
)

const sym = "PERP_BTC_USDT"

func newBook(t *testing.T, w, h int, ascii bool) (*Model, *common.Store, *feed.Update) {
	store := common.NewStore()
	u := panetest.Market(1, 40)
	store.Apply(u)
	m := New(panetest.Common(store, panetest.Keys(), ascii), sym)
	m.SetSize(w, h)
	return m, store, u
}

func TestGolden(t *testing.T) {
	sizes := []panetest.Size{panetest.At("book_34x18", 34, 18, false), panetest.At("book_44x30", 44, 30, false), panetest.At("book_ascii_34x18", 34, 18, true)}
	panetest.GoldenSizes(t, sizes, func(s panetest.Size) panetest.Pane {
		m, _, _ := newBook(t, s.W, s.H, s.ASCII)
		return m
	})
}

func TestOwnOrdersMarked(t *testing.T) {
	m, store, _ := newBook(t, 44, 30, false)
	var marked []string
	for _, l := range m.Lines() {
		if p := ansi.Strip(l); strings.HasPrefix(p, "•") {
			marked = append(marked, strings.Fields(p[len("•"):])[0])
		}
	}
	want := []string{store.Account.Open[1].Price.StringFixed(1), store.Account.Open[0].Price.StringFixed(1)}
	if strings.Join(marked, " ") != strings.Join(want, " ") {
		t.Fatalf("marked %v, want %v (ask first, then bid)", marked, want)
	}
}

func TestGrouping(t *testing.T) {
	m, _, _ := newBook(t, 44, 30, false)
	m.Update(tea.KeyPressMsg{Code: '+', Text: "+"})
	m.Update(tea.KeyPressMsg{Code: '+', Text: "+"}) // x5 ticks = 0.5
	if m.Title() != "Book PERP_BTC_USDT by 0.5" {
		t.Fatal(m.Title())
	}
	// Asks round up, bids round down to multiples of 0.5, and the grouped
	// sizes add up to the raw sizes of the levels they hold.
	var rawAsk int64
	for _, l := range m.book.Asks {
		if l.Price <= m.asks[0].Price {
			rawAsk += l.Qty
		}
	}
	if m.asks[0].Price%5 != 0 || m.bids[0].Price%5 != 0 || m.asks[0].Qty != rawAsk {
		t.Fatalf("grouped best ask %+v (raw %d), best bid %+v", m.asks[0], rawAsk, m.bids[0])
	}
	if m.asks[0].Price < m.book.Asks[0].Price || m.bids[0].Price > m.book.Bids[0].Price {
		t.Fatal("grouping showed a better price than the book has")
	}
	panetest.Golden(t, "book_grouped_44x30", m.View())
	for i := 0; i < 20; i++ {
		m.Update(tea.KeyPressMsg{Code: '-', Text: "-"})
	}
	if m.Title() != "Book PERP_BTC_USDT" {
		t.Fatal(m.Title())
	}
}

func TestChangedLevelFlashesThenFades(t *testing.T) {
	m, _, u := newBook(t, 44, 30, false)
	now := panetest.Now
	m.Now = func() time.Time { return now }
	m.Lines()
	nb := *u.Books[sym]
	nb.Asks = append([]feed.Level(nil), nb.Asks...)
	nb.Asks[0].Qty += 1000
	nb.Version++
	_, cmd := m.Update(common.FeedMsg{Update: &feed.Update{Books: map[string]*feed.Book{sym: &nb}}})
	if cmd == nil {
		t.Fatal("no redraw scheduled for the end of the highlight")
	}
	flashed := 0
	for _, l := range m.Lines() {
		if strings.Contains(l, m.Theme.Flash) {
			flashed++
		}
	}
	if flashed != 1 {
		t.Fatalf("%d rows highlighted, want 1", flashed)
	}
	now = now.Add(FlashFor + time.Millisecond)
	m.Update(flashMsg{})
	for _, l := range m.Lines() {
		if strings.Contains(l, m.Theme.Flash) {
			t.Fatal("highlight did not fade")
		}
	}
}

func TestSyncStatesShownOverTheBook(t *testing.T) {
	for _, c := range []struct {
		state feed.SyncState
		want  string
	}{{feed.Stale, "STALE: no update for 12.5s"}, {feed.Resyncing, "RESYNCING"}, {feed.Syncing, "SYNCING"}} {
		m, _, u := newBook(t, 44, 30, false)
		nb := *u.Books[sym]
		nb.State, nb.Age, nb.Version, nb.Resyncs = c.state, 12500*time.Millisecond, nb.Version+1, 3
		m.Update(common.FeedMsg{Update: &feed.Update{Books: map[string]*feed.Book{sym: &nb}}})
		v := m.View()
		if !strings.Contains(ansi.Strip(v), c.want) {
			t.Fatalf("%v: %s", c.state, ansi.Strip(v))
		}
		if strings.Contains(v, m.Theme.BuyBar) {
			t.Fatalf("%v: levels still drawn as live", c.state)
		}
		if c.state == feed.Stale {
			panetest.Golden(t, "book_stale_44x30", v)
		}
	}
	m := New(panetest.Common(common.NewStore(), nil, false), "SPOT_NONE_USDT")
	m.SetSize(40, 10)
	if !strings.Contains(m.View(), "waiting for SPOT_NONE_USDT book") {
		t.Fatal(m.View())
	}
}

func TestClickUsesPrice(t *testing.T) {
	m, _, u := newBook(t, 44, 30, false)
	m.Lines()
	// First bid row is right below the spread line: header + 14 asks + spread.
	_, cmd := m.Update(common.PaneMouse{X: 3, Y: 16, Button: tea.MouseLeft})
	if cmd == nil {
		t.Fatal("no command for a click")
	}
	var got common.UsePriceMsg
	for _, c := range cmd().(tea.BatchMsg) {
		if p, ok := c().(common.UsePriceMsg); ok {
			got = p
		}
	}
	bk := u.Books[sym]
	if got.Side != feed.Buy || got.Price.StringFixed(1) != "654320.9" || bk.Bids[0].Price != 6543209 {
		t.Fatalf("%+v", got)
	}
	if _, cmd := m.Update(common.PaneMouse{X: 3, Y: 0, Button: tea.MouseLeft}); cmd != nil {
		t.Fatal("a click on the header is not a price")
	}
}

// Odd snapshots and sizes never crash the pane.
func TestOddInputs(t *testing.T) {
	books := []*feed.Book{
		{Symbol: sym, State: feed.Live, Version: 2},
		{Symbol: sym, State: feed.Live, Version: 3, Asks: []feed.Level{{Price: 10, Qty: 0}}},
		{Symbol: sym, State: feed.Live, Version: 4, Bids: []feed.Level{{Price: 10, Qty: 5}}},
		{Symbol: sym, State: feed.Live, Version: 5, Scale: feed.Scale{PriceDec: 18, QtyDec: 18},
			Asks: []feed.Level{{Price: math.MaxInt64 / 2, Qty: math.MaxInt64}}, Bids: []feed.Level{{Price: math.MaxInt64 / 3, Qty: 1}}},
		{Symbol: sym, State: feed.SyncState(99), Version: 6},
	}
	for _, sz := range [][2]int{{0, 0}, {1, 1}, {3, 2}, {12, 5}, {44, 30}} {
		for _, bk := range books {
			m, _, _ := newBook(t, sz[0], sz[1], false)
			m.Update(common.FeedMsg{Update: &feed.Update{Books: map[string]*feed.Book{sym: bk}}})
			m.Update(tea.KeyPressMsg{Code: '+', Text: "+"})
			m.Lines()
			m.Update(common.PaneMouse{X: 1, Y: 1, Button: tea.MouseLeft})
		}
	}
}

func TestKeyboardSelectionUsesPrice(t *testing.T) {
	m, _, u := newBook(t, 44, 30, false)
	m.Focus()
	bk := u.Books[sym]
	up, down := tea.KeyPressMsg{Code: tea.KeyUp}, tea.KeyPressMsg{Code: tea.KeyDown}
	m.Update(up) // best ask
	m.Update(up) // second ask
	if l, side, _ := m.selected(); side != feed.Sell || l.Price != bk.Asks[1].Price {
		t.Fatalf("selected %+v %v", l, side)
	}
	if n := strings.Count(m.View(), m.Theme.Selected); n != 1 {
		t.Fatalf("%d rows drawn selected", n)
	}
	m.Update(down)
	m.Update(down) // through the spread to the best bid
	_, cmd := m.Update(tea.KeyPressMsg{Code: tea.KeyEnter})
	var got common.UsePriceMsg
	for _, c := range cmd().(tea.BatchMsg) {
		if p, ok := c().(common.UsePriceMsg); ok {
			got = p
		}
	}
	if got.Side != feed.Buy || got.Price.StringFixed(1) != "654320.9" {
		t.Fatalf("%+v", got)
	}
}

// With a Pace (SSH sessions) a book that comes within it of the last one
// drawn is held, the newest winning, and drawn on the pace's tick.
func TestPaceBatchesBooks(t *testing.T) {
	// In a synctest bubble the tick's wait takes no real time and is
	// measured exactly: the redraw comes when the next slot begins.
	synctest.Test(t, func(t *testing.T) {
		store := common.NewStore()
		u := panetest.Market(1, 40)
		store.Apply(u)
		c, clk := panetest.Paced(store, 400*time.Millisecond)
		m := New(c, sym)
		m.SetSize(44, 30)
		book := func(v uint64, add int64) common.FeedMsg {
			nb := *u.Books[sym]
			nb.Asks = append([]feed.Level(nil), nb.Asks...)
			nb.Asks[0].Qty += add
			nb.Version = v
			return common.FeedMsg{Update: &feed.Update{Books: map[string]*feed.Book{sym: &nb}}}
		}
		m.Update(book(10, 1000)) // the first is drawn at once
		drawn := strings.Join(m.Lines(), "\n")
		clk.Advance(100 * time.Millisecond)
		_, cmd := m.Update(book(11, 2000))
		m.Update(book(12, 3000))
		if cmd == nil {
			t.Fatal("a book within the pace scheduled no redraw")
		}
		if got := strings.Join(m.Lines(), "\n"); got != drawn {
			t.Fatal("a book within the pace was drawn at once")
		}
		clk.Advance(300 * time.Millisecond)
		start := time.Now()
		msgs := []tea.Msg{cmd()}
		if waited := time.Since(start); waited != 300*time.Millisecond {
			t.Fatalf("the redraw came %v after the book, want 300ms (the next slot)", waited)
		}
		if batch, ok := msgs[0].(tea.BatchMsg); ok {
			msgs = msgs[:0]
			for _, c := range batch {
				if c != nil {
					msgs = append(msgs, c())
				}
			}
		}
		for _, msg := range msgs {
			m.Update(msg)
		}
		want := New(panetest.Common(store, panetest.Keys(), false), sym)
		want.SetSize(44, 30)
		want.Update(book(12, 3000))
		if got := ansi.Strip(strings.Join(m.Lines(), "\n")); got != ansi.Strip(strings.Join(want.Lines(), "\n")) {
			t.Fatalf("after the tick the book shows\n%s\nwant the newest\n%s", got, ansi.Strip(strings.Join(want.Lines(), "\n")))
		}
	})
}
