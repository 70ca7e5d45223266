package confirm

import (
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"tradedeck/panes/common"
	"tradedeck/panes/confirm/cmdtest"
	"tradedeck/theme"
)

type clock struct{ t time.Time }

func (c *clock) now() time.Time { return c.t }

type sent struct{}

func setup(t *testing.T, strong bool) (*Model, *clock) {
	t.Helper()
	th, err := theme.New("dark", false)
	if err != nil {
		t.Fatal(err)
	}
	clk := &clock{t: time.Unix(1_700_000_000, 0)}
	m := New(common.Common{Theme: th, Now: clk.now}, Options{
		Title: "Confirm order", Lines: []string{"BUY 0.01 BTC @ 27000"}, Strong: strong,
		Warning: "MARKET order", Action: "send BUY",
		OnConfirm: func() tea.Msg { return sent{} },
	})
	return m, clk
}

func press(m *Model, k string) []tea.Msg {
	var code rune
	text := k
	switch k {
	case "enter":
		code, text = tea.KeyEnter, ""
	case "esc":
		code, text = tea.KeyEscape, ""
	default:
		code = rune(k[0])
	}
	_, cmd := m.Update(tea.KeyPressMsg{Code: code, Text: text})
	return cmdtest.Run(cmd)
}

func TestGracePeriodIgnoresKeysInFlight(t *testing.T) {
	m, clk := setup(t, false)
	// Keys typed just before the dialog opened arrive right after it.
	for _, k := range []string{"enter", "y", "enter"} {
		clk.t = clk.t.Add(50 * time.Millisecond)
		if msgs := press(m, k); len(msgs) != 0 {
			t.Fatalf("key %q within the grace period did something: %v", k, msgs)
		}
	}
	if m.Ignored() != 3 {
		t.Fatalf("ignored %d keys, want 3", m.Ignored())
	}
	clk.t = clk.t.Add(DefaultGrace) // now past the grace period
	msgs := press(m, "enter")
	if _, ok := cmdtest.Find[common.CloseDialogMsg](msgs); !ok {
		t.Fatalf("no close: %v", msgs)
	}
	if _, ok := cmdtest.Find[sent](msgs); !ok {
		t.Fatalf("enter after the grace period did not confirm: %v", msgs)
	}
	if msgs := press(m, "y"); len(msgs) != 0 {
		t.Fatalf("a closed dialog confirmed twice: %v", msgs)
	}
}

func TestStrongNeedsExplicitYes(t *testing.T) {
	m, clk := setup(t, true)
	clk.t = clk.t.Add(time.Second)
	if msgs := press(m, "enter"); len(msgs) != 0 {
		t.Fatalf("enter confirmed a strong dialog: %v", msgs)
	}
	if !strings.Contains(m.View(), "press y to confirm") {
		t.Fatalf("no hint after enter:\n%s", m.View())
	}
	if !strings.Contains(m.View(), "MARKET order") {
		t.Fatalf("no warning")
	}
	if _, ok := cmdtest.Find[sent](press(m, "y")); !ok {
		t.Fatal("y did not confirm")
	}
}

func TestCancelWorksAtOnce(t *testing.T) {
	m, _ := setup(t, false)
	msgs := press(m, "esc") // within the grace period: backing out is safe
	if _, ok := cmdtest.Find[sent](msgs); ok {
		t.Fatal("esc confirmed")
	}
	if _, ok := cmdtest.Find[common.CloseDialogMsg](msgs); !ok {
		t.Fatal("esc did not close")
	}
}
