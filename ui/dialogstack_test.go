package ui

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"tradedeck/panes/common"
)

// boxDialog is a fixed-size dialog that shows its name.
type boxDialog struct{ lines []string }

func (d boxDialog) Update(tea.Msg) (common.Dialog, tea.Cmd) { return d, nil }
func (d boxDialog) View() string                            { return strings.Join(d.lines, "\n") }
func (d boxDialog) SetSize(int, int)                        {}

func newBoxDialog(name string, w, h int) boxDialog {
	lines := make([]string, h)
	for i := range lines {
		lines[i] = strings.Repeat("#", w)
	}
	lines[h/2] = "#" + name + strings.Repeat("#", w-1-len(name))
	return boxDialog{lines: lines}
}

// A prompt opened over a screen-sized dialog (the account screen) must be
// drawn over that dialog, not over the grid with the dialog hidden.
func TestDialogStackDrawsEveryLevel(t *testing.T) {
	m := newTestModel(t, 120, 40, true)
	m.Update(common.OpenDialogMsg{Dialog: newBoxDialog("ACCOUNTSCREEN", 100, 30)})
	m.Update(common.OpenDialogMsg{Dialog: newBoxDialog("PROMPT", 30, 5)})
	screen := m.Render()
	if !strings.Contains(screen, "PROMPT") {
		t.Fatal("top dialog not drawn")
	}
	lines := strings.Split(ansi.Strip(screen), "\n")
	// The account screen's first row (above the prompt) must still show.
	if !strings.Contains(lines[5], strings.Repeat("#", 100)) {
		t.Fatalf("the dialog under the prompt is hidden; row 5 = %q", lines[5])
	}
	m.Update(common.CloseDialogMsg{})
	if screen := m.Render(); strings.Contains(screen, "PROMPT") || !strings.Contains(screen, "ACCOUNTSCREEN") {
		t.Fatal("closing the prompt must leave the account screen")
	}
}
