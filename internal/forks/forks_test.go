package forks

import (
	"context"
	"fmt"
	"io"
	"strings"
	"sync/atomic"
	"testing"
	"time"
	"unsafe"

	tea "charm.land/bubbletea/v2"
	uv "github.com/charmbracelet/ultraviolet"

	"tradedeck/internal/testkit"
)

// A frame as the dashboard draws them: styled ASCII, borders, blocks,
// braille, a middle dot, CJK and an emoji.
func frame(w, h int) string {
	var b strings.Builder
	for y := range h {
		fmt.Fprintf(&b, "\x1b[38;5;%dm│%-8d·", y%200, y)
		for x := 12; x < w-6; x++ {
			b.WriteString([]string{"a", "█", "⣿", "─", "9"}[(x+y)%5])
		}
		b.WriteString("中🙂\x1b[m")
		if y < h-1 {
			b.WriteByte('\n')
		}
	}
	return b.String()
}

// Every cell drawn from a frame must own its content: a cell pointing
// into the frame string keeps the whole frame alive after the screen has
// moved on (upstream, a screen's unchanged cells pinned old frames).
func TestCellsDoNotPointIntoTheFrame(t *testing.T) {
	f := frame(80, 24)
	start := uintptr(unsafe.Pointer(unsafe.StringData(f)))
	end := start + uintptr(len(f))
	buf := uv.NewScreenBuffer(80, 24)
	uv.NewStyledString(f).Draw(buf, buf.Bounds())
	seen := map[string]bool{}
	for y := range 24 {
		for x := range 80 {
			c := buf.CellAt(x, y)
			if c == nil || c.Content == "" {
				continue
			}
			seen[c.Content] = true
			if p := uintptr(unsafe.Pointer(unsafe.StringData(c.Content))); p >= start && p < end {
				t.Fatalf("cell %d,%d (%q) points into the frame", x, y, c.Content)
			}
		}
	}
	for _, want := range []string{"│", "a", "█", "⣿", "─", "·", "中", "🙂"} {
		if !seen[want] {
			t.Errorf("no cell shows %q: %v", want, seen)
		}
	}
}

// More distinct graphemes than the intern set keeps still draw as
// themselves.
func TestManyDistinctGraphemesDrawAsThemselves(t *testing.T) {
	const n = 6000 // more than the fork keeps
	buf := uv.NewScreenBuffer(2, 1)
	for i := range n {
		g := string(rune(0x4E00 + i)) // CJK, two columns each
		uv.NewStyledString(g).Draw(buf, buf.Bounds())
		if got := buf.CellAt(0, 0).Content; got != g {
			t.Fatalf("grapheme %d: cell shows %q, want %q", i, got, g)
		}
	}
}

// A terminal reader shares the key table of its kind of terminal instead
// of building ~1,000 entries for itself.
func TestTerminalReadersShareTheKeyTable(t *testing.T) {
	uv.NewTerminalReader(strings.NewReader(""), "xterm-256color")
	allocs := testing.AllocsPerRun(20, func() {
		uv.NewTerminalReader(strings.NewReader(""), "xterm-256color")
	})
	if allocs > 50 {
		t.Fatalf("a terminal reader costs %.0f allocations: the key table is built per reader", allocs)
	}
}

// screen is a model that draws a full 160x48 frame that changes every
// tick, like a served dashboard.
type screen struct{ n int }

type tick struct{}

// still stops every screen's ticks, so that no frame is being drawn
// while the heap is measured.
var still atomic.Bool

func (s screen) Init() tea.Cmd { return func() tea.Msg { return tick{} } }

func (s screen) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	if _, ok := msg.(tick); ok && !still.Load() {
		s.n++
		return s, tea.Tick(100*time.Millisecond, func(time.Time) tea.Msg { return tick{} })
	}
	return s, nil
}

func (s screen) View() tea.View {
	v := tea.NewView(strings.Replace(frame(160, 48), "a", fmt.Sprint(s.n%10), 40))
	v.AltScreen = true
	return v
}

// Programs between frames hold one screen of cells each (the terminal
// renderer's copy of what is on screen), not two, and no old frames.
// Upstream a 160x48 program held 1.7 MB of cells and a key table; the
// bound here sits between the fork (~0.9 MB) and upstream.
func TestProgramsHoldOneScreenEach(t *testing.T) {
	const programs = 10
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{}, programs)
	start := func() {
		p := tea.NewProgram(screen{}, tea.WithContext(ctx), tea.WithInput(nil), tea.WithOutput(io.Discard),
			tea.WithWindowSize(160, 48), tea.WithEnvironment([]string{"TERM=xterm-256color"}))
		go func() {
			_, _ = p.Run()
			done <- struct{}{}
		}()
	}
	start()
	time.Sleep(500 * time.Millisecond)
	before := testkit.HeapInUse()
	for range programs - 1 {
		start()
	}
	time.Sleep(2 * time.Second) // every program has drawn many frames
	still.Store(true)
	// The last frames are out when the heap stops shrinking: a loaded
	// machine (or -race) can leave programs frames behind for a while.
	after := testkit.HeapInUse()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); {
		time.Sleep(250 * time.Millisecond)
		h := testkit.HeapInUse()
		if h >= after-after/100 {
			after = min(after, h)
			break
		}
		after = h
	}
	cancel()
	for range programs {
		<-done
	}
	per := float64(after-before) / (programs - 1) / 1e6
	t.Logf("live heap per added 160x48 program: %.2f MB", per)
	if per > 1.5 {
		t.Fatalf("each added 160x48 program holds %.2f MB: more than one screen of cells", per)
	}
}
