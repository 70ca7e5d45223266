package ui

import (
	"bytes"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/teatest/v2"

	"tradedeck/panes/panetest"
)

// The model inside a real Bubble Tea program (teatest): the first frame
// shows the market once an update arrives, keys reach it, q ends it.
func TestInProgram(t *testing.T) {
	m := newTestModel(t, 120, 40, false)
	tm := teatest.NewTestModel(t, m, teatest.WithInitialTermSize(120, 40))
	tm.Send(panetest.Market(2, 30))
	teatest.WaitFor(t, tm.Output(), func(b []byte) bool {
		return bytes.Contains(b, []byte("Book PERP_BTC_USDT")) && bytes.Contains(b, []byte("spread"))
	}, teatest.WithDuration(10*time.Second))
	tm.Send(tea.KeyPressMsg{Code: '2', Text: "2"})
	tm.Send(tea.KeyPressMsg{Code: 'z', Text: "z"})
	teatest.WaitFor(t, tm.Output(), func(b []byte) bool { return bytes.Contains(b, []byte("unzoom")) },
		teatest.WithDuration(10*time.Second))
	tm.Send(tea.KeyPressMsg{Code: 'q', Text: "q"})
	tm.WaitFinished(t, teatest.WithFinalTimeout(10*time.Second))
	if fm := tm.FinalModel(t).(*Model); !fm.Zoomed() || fm.Focused() != PaneChart {
		t.Fatalf("final model: zoomed %v focus %v", fm.Zoomed(), fm.Focused())
	}
}

// The renderer measures cells by grapheme, as the panes lay them out:
// the program switches it (and the terminal, mode 2027) at start, whether
// or not the terminal answered Bubble Tea's query. On wcwidth the
// renderer built go-runewidth's 2.2 MB table (docs/ui.md "Memory").
func TestRendererMeasuresByGrapheme(t *testing.T) {
	m := newTestModel(t, 120, 40, false)
	tm := teatest.NewTestModel(t, m, teatest.WithInitialTermSize(120, 40))
	tm.Send(panetest.Market(2, 30))
	teatest.WaitFor(t, tm.Output(), func(b []byte) bool {
		return bytes.Contains(b, []byte(ansi.SetModeUnicodeCore))
	}, teatest.WithDuration(30*time.Second))
	tm.Send(tea.KeyPressMsg{Code: 'q', Text: "q"})
	tm.WaitFinished(t, teatest.WithFinalTimeout(30*time.Second))
}
