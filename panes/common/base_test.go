package common_test

import (
	"testing"

	tea "charm.land/bubbletea/v2"

	"tradedeck/panes/common"
)

// The movement keys and the wheel mean the same distance in every pane.
func TestMotion(t *testing.T) {
	k := common.DefaultKeyMap()
	for _, c := range []struct {
		msg  tea.Msg
		want int
		ok   bool
	}{
		{tea.KeyPressMsg{Code: tea.KeyDown}, 1, true},
		{tea.KeyPressMsg{Code: 'k', Text: "k"}, -1, true},
		{tea.KeyPressMsg{Code: tea.KeyPgDown}, 7, true},
		{tea.KeyPressMsg{Code: tea.KeyPgUp}, -7, true},
		{tea.KeyPressMsg{Code: 'g', Text: "g"}, -common.Far, true},
		{tea.KeyPressMsg{Code: 'G', Text: "G"}, common.Far, true},
		{common.PaneMouse{Wheel: true, Button: tea.MouseWheelDown}, 3, true},
		{common.PaneMouse{Wheel: true, Button: tea.MouseWheelUp}, -3, true},
		{common.PaneMouse{Button: tea.MouseLeft}, 0, false},
		{tea.KeyPressMsg{Code: 'x', Text: "x"}, 0, false},
	} {
		if got, ok := common.Motion(c.msg, k, 7, 3); got != c.want || ok != c.ok {
			t.Errorf("%v: %d %v, want %d %v", c.msg, got, ok, c.want, c.ok)
		}
	}
}
