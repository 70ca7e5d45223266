package uv

import (
	"bytes"
	"strings"
	"testing"
)

// A row whose two ends changed must not be resent whole: the renderer
// jumps over the unchanged cells between them when the cursor move is
// shorter than the run, as ncurses' PutRange does (tradedeck fork,
// third_party/patches/0002).
func TestPutRangeJumpsOverUnchangedRun(t *testing.T) {
	var buf bytes.Buffer
	s := NewTerminalRenderer(&buf, []string{"TERM=xterm-256color"})
	s.SetFullscreen(true)
	s.SaveCursor()
	s.Erase()
	scr := NewScreenBuffer(80, 1)
	middle := strings.Repeat("-", 60)
	for i, frame := range []string{"A" + middle + "B", "X" + middle + "Y"} {
		buf.Reset()
		scr.Clear()
		NewStyledString(frame).Draw(scr, scr.Bounds())
		s.Render(scr.RenderBuffer)
		if err := s.Flush(); err != nil {
			t.Fatalf("Flush: %v", err)
		}
		if i == 0 {
			continue
		}
		out := buf.String()
		if strings.Contains(out, "--") {
			t.Errorf("the unchanged run between the changed ends was resent: %q", out)
		}
		if !strings.Contains(out, "X") || !strings.Contains(out, "Y") {
			t.Errorf("the changed ends are missing: %q", out)
		}
	}
}
