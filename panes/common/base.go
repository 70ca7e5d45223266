package common

import (
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
)

// Base carries what every grid pane has besides Common: focus, a dirty
// flag and the cached lines. Panes embed it and set Draw; Lines and View
// come from Base.
type Base struct {
	Common
	Focused bool
	// Draw renders the pane into the canvas (Begin already called); it
	// runs only when the cache was invalidated.
	Draw   func(c *Canvas)
	dirty  bool
	lines  []string
	Canvas Canvas
}

// Lines returns the pane's cached lines, drawn again when invalidated.
func (b *Base) Lines() []string { return b.Cached(b.Draw) }

// View is the pane's lines as one string.
func (b *Base) View() string { return JoinLines(b.Lines()) }

// Focus marks the pane focused.
func (b *Base) Focus() { b.Focused = true; b.dirty = true }

// Blur marks the pane unfocused.
func (b *Base) Blur() { b.Focused = false; b.dirty = true }

// SetSize records the inner size and invalidates the cache.
func (b *Base) SetSize(w, h int) {
	if w != b.Width || h != b.Height {
		b.Width, b.Height = w, h
		b.dirty = true
	}
}

// Invalidate forces the next Cached call to render.
func (b *Base) Invalidate() { b.dirty = true }

// Cached returns the cached lines, calling render first when invalidated.
// render draws into b.Canvas (Begin already called) and Cached finishes it.
func (b *Base) Cached(render func(c *Canvas)) []string {
	if !b.dirty && len(b.lines) == b.Height {
		return b.lines
	}
	b.Canvas.Begin(b.Width)
	if b.Width > 0 && b.Height > 0 {
		render(&b.Canvas)
	}
	b.lines = b.Canvas.Finish(b.Height)
	b.dirty = false
	return b.lines
}

// JoinLines is a View for panes: their cached lines joined.
func JoinLines(lines []string) string {
	n := 0
	for _, l := range lines {
		n += len(l) + 1
	}
	buf := make([]byte, 0, n)
	for i, l := range lines {
		if i > 0 {
			buf = append(buf, '\n')
		}
		buf = append(buf, l...)
	}
	return string(buf)
}

// PaneMouse is a mouse event translated into a pane's inner coordinates.
type PaneMouse struct {
	X, Y   int
	Button tea.MouseButton
	Wheel  bool // a wheel event (Button says which way)
}

// Far is a motion to the first or last row, whatever their number.
const Far = 1 << 30

// Motion is how far the movement keys (up, down, page up/down, top,
// bottom) and the wheel move a pane's cursor or scroll: page rows per
// page, wheel rows per wheel notch. ok is false for any other message.
func Motion(msg tea.Msg, k *KeyMap, page, wheel int) (delta int, ok bool) {
	switch msg := msg.(type) {
	case tea.KeyPressMsg:
		switch {
		case key.Matches(msg, k.Down):
			return 1, true
		case key.Matches(msg, k.Up):
			return -1, true
		case key.Matches(msg, k.PageDown):
			return max(page, 1), true
		case key.Matches(msg, k.PageUp):
			return -max(page, 1), true
		case key.Matches(msg, k.Top):
			return -Far, true
		case key.Matches(msg, k.Bottom):
			return Far, true
		}
	case PaneMouse:
		switch {
		case msg.Wheel && msg.Button == tea.MouseWheelDown:
			return wheel, true
		case msg.Wheel && msg.Button == tea.MouseWheelUp:
			return -wheel, true
		}
	}
	return 0, false
}
