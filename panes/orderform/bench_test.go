package orderform

import (
	"testing"

	tea "charm.land/bubbletea/v2"
)

// One keystroke in the quantity field: input, validation, preview, and
// the redraw Bubble Tea asks for after it.
func BenchmarkKeystrokeAndView(b *testing.B) {
	f := newForm(b, "BUY")
	press(f, "0.001")
	keys := []tea.KeyPressMsg{{Code: '1', Text: "1"}, {Code: tea.KeyBackspace}}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		f.Update(keys[i&1])
		_ = f.View()
		i++
	}
}
