package ui

import (
	"fmt"
	"testing"

	"tradedeck/feed"
	"tradedeck/panes/panetest"
)

// benchSizes are the screens the rendering budget is stated for.
var benchSizes = [][2]int{{200, 60}, {80, 24}}

// BenchmarkView is the whole screen when nothing changed: every pane
// serves its cached lines and the root only joins them.
func BenchmarkView(b *testing.B) {
	for _, sz := range benchSizes {
		b.Run(fmt.Sprintf("%dx%d", sz[0], sz[1]), func(b *testing.B) {
			m := newTestModel(b, sz[0], sz[1], false)
			m.View()
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				_ = m.View()
			}
		})
	}
}

// BenchmarkViewBookChanged is one frame in a moving market: a new book
// snapshot of the focused symbol arrives (routed through Update) and the
// screen is rendered; the book pane rebuilds, the others are cached.
func BenchmarkViewBookChanged(b *testing.B) {
	for _, sz := range benchSizes {
		b.Run(fmt.Sprintf("%dx%d", sz[0], sz[1]), func(b *testing.B) {
			benchBookUpdates(b, newTestModel(b, sz[0], sz[1], false))
		})
	}
}

// benchBookUpdates routes book snapshots of the focused symbol through m
// and renders the screen after each.
func benchBookUpdates(b *testing.B, m *Model) {
	books := bookVariants(8)
	updates := make([]*feed.Update, len(books))
	for i, bk := range books {
		updates[i] = &feed.Update{Books: map[string]*feed.Book{bk.Symbol: bk}}
	}
	m.View()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		u := updates[i%len(updates)]
		u.Books["PERP_BTC_USDT"].Version = uint64(i + 2)
		m.Update(u)
		_ = m.View()
	}
}

// bookVariants are n books of the focused symbol with sizes changed.
func bookVariants(n int) []*feed.Book {
	base := panetest.Market(1, 60).Books["PERP_BTC_USDT"]
	out := make([]*feed.Book, n)
	for i := range out {
		bk := *base
		bk.Asks = append([]feed.Level(nil), base.Asks...)
		bk.Bids = append([]feed.Level(nil), base.Bids...)
		bk.Asks[i%5].Qty += int64(10 * (i + 1))
		bk.Bids[(i+2)%5].Qty += int64(10 * (i + 1))
		out[i] = &bk
	}
	return out
}

// BenchmarkViewAllChanged is a busy frame: the focused symbol's book,
// trades and candles, every symbol's BBO and ticker, and the account all
// changed. Every pane and the header rebuild.
func BenchmarkViewAllChanged(b *testing.B) {
	for _, sz := range benchSizes {
		b.Run(fmt.Sprintf("%dx%d", sz[0], sz[1]), func(b *testing.B) {
			m := newTestModel(b, sz[0], sz[1], false)
			us := make([]*feed.Update, 4)
			for i := range us {
				us[i] = panetest.Market(uint64(i+2), 40)
			}
			m.View()
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				u := us[i%len(us)]
				v := uint64(i + 2)
				for _, bk := range u.Books {
					bk.Version = v
				}
				for _, t := range u.Trades {
					t.Version = v
				}
				for _, c := range u.Candles {
					c.Version = v
				}
				u.Account.Version = v
				m.Update(u)
				_ = m.View()
			}
		})
	}
}

// BenchmarkViewBookChangedUnderHelp is a book update with the help open
// over the screen: the screen under the dialog changed, so the dialog is
// composed over it again (its lines' widths are the last composition's).
func BenchmarkViewBookChangedUnderHelp(b *testing.B) {
	for _, sz := range benchSizes {
		b.Run(fmt.Sprintf("%dx%d", sz[0], sz[1]), func(b *testing.B) {
			m := newTestModel(b, sz[0], sz[1], false)
			press(m, "?")
			benchBookUpdates(b, m)
		})
	}
}
