package confirm

import (
	"fmt"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"tradedeck/panes/common"
	"tradedeck/panes/confirm/cmdtest"
	"tradedeck/theme"
)

// A ladder of 100 rungs on a 24-row screen: the box stays within the
// screen, scrolls, and confirms only once every rung has been drawn.
func TestListScrollsAndConfirmsOnlyWhenAllShown(t *testing.T) {
	th, err := theme.New("dark", false)
	if err != nil {
		t.Fatal(err)
	}
	clk := &clock{t: time.Unix(1_700_000_000, 0)}
	var rungs []string
	for i := 1; i <= 100; i++ {
		rungs = append(rungs, fmt.Sprintf("rung %03d %s", i, strings.Repeat(".", 30))) // one per row in 56 columns
	}
	m := New(common.Common{Theme: th, Now: clk.now}, Options{Title: "Confirm scale", Lines: []string{"BUY 1 in 100 rungs"},
		List: rungs, SeeAll: true, Action: "place", OnConfirm: func() tea.Msg { return sent{} }})
	m.SetSize(80, 22)
	clk.t = clk.t.Add(time.Second)
	v := m.View()
	if n := strings.Count(v, "\n") + 1; n > 22 {
		t.Fatalf("the box is %d rows on a 22-row screen:\n%s", n, v)
	}
	if !strings.Contains(v, "rung 001") || strings.Contains(v, "rung 100") || !strings.Contains(v, "of 100") {
		t.Fatalf("first window wrong:\n%s", v)
	}
	if msgs := press(m, "y"); len(msgs) != 0 {
		t.Fatalf("y confirmed with rungs never shown: %v", msgs)
	}
	if v := m.View(); !strings.Contains(v, "scroll through the rest") {
		t.Fatalf("no hint:\n%s", v)
	}
	_, _ = m.Update(tea.KeyPressMsg{Code: tea.KeyEnd})
	if v := m.View(); !strings.Contains(v, "rung 100") || strings.Contains(v, "rung 001") || strings.Contains(v, "scroll through the rest") {
		t.Fatalf("end did not show the last rung:\n%s", v)
	}
	if msgs := press(m, "y"); len(msgs) != 0 {
		t.Fatal("y confirmed with the middle rungs never shown")
	}
	_, _ = m.Update(tea.KeyPressMsg{Code: tea.KeyHome})
	for i := 0; i < 30 && !m.AllSeen(); i++ {
		_, _ = m.Update(tea.KeyPressMsg{Code: tea.KeyPgDown})
		m.View()
	}
	if !m.AllSeen() {
		t.Fatal("paging through did not show every rung")
	}
	if _, ok := cmdtest.Find[sent](press(m, "y")); !ok {
		t.Fatal("y did not confirm once every rung was shown")
	}
}

// A list that fits is shown whole, and confirms at once.
func TestShortListConfirms(t *testing.T) {
	th, _ := theme.New("dark", false)
	clk := &clock{t: time.Unix(1_700_000_000, 0)}
	m := New(common.Common{Theme: th, Now: clk.now}, Options{Title: "Confirm scale", List: []string{"a", "b", "c"}, SeeAll: true,
		Action: "place", OnConfirm: func() tea.Msg { return sent{} }})
	m.SetSize(160, 46)
	clk.t = clk.t.Add(time.Second)
	if v := m.View(); strings.Contains(v, "of 3") {
		t.Fatalf("a short list scrolls:\n%s", v)
	}
	if _, ok := cmdtest.Find[sent](press(m, "y")); !ok {
		t.Fatal("y did not confirm")
	}
}
