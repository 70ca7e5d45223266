package ui

import (
	"fmt"
	"os"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"tradedeck/panes/panetest"
	"tradedeck/theme"
)

func newTestModel(t testing.TB, w, h int, ascii bool) *Model {
	th, err := theme.New("dark", ascii)
	if err != nil {
		t.Fatal(err)
	}
	m := New(Options{
		Venue: "SIM", Account: "demo-app", Symbol: "PERP_BTC_USDT", Interval: "1m",
		Watchlist: panetest.Symbols, Theme: th, Keys: panetest.Keys(), ASCII: ascii, Now: panetest.Clock,
	})
	m.Update(tea.WindowSizeMsg{Width: w, Height: h})
	m.Update(panetest.Market(1, 40))
	return m
}

func TestPeek(t *testing.T) {
	if os.Getenv("PEEK") == "" {
		t.Skip()
	}
	for _, sz := range [][2]int{{80, 24}, {120, 40}, {200, 60}} {
		m := newTestModel(t, sz[0], sz[1], false)
		fmt.Println(ansi.Strip(m.Render()))
	}
}
