package tea

// tradedeck fork: frames only when something changed (framedue.go).

import (
	"bytes"
	"strconv"
	"sync"
	"testing"
	"time"
)

// writeCounter counts the writes to the terminal (one per flush that
// wrote anything).
type writeCounter struct {
	mu     sync.Mutex
	writes int
	buf    bytes.Buffer
}

func (w *writeCounter) Write(b []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.writes++
	return w.buf.Write(b)
}

func (w *writeCounter) count() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.writes
}

// counterModel shows n; setMsg sets it, nopMsg changes nothing.
type counterModel struct{ n int }

type (
	setMsg int
	nopMsg struct{}
)

func (m *counterModel) Init() Cmd { return nil }

func (m *counterModel) Update(msg Msg) (Model, Cmd) {
	if s, ok := msg.(setMsg); ok {
		m.n = int(s)
	}
	return m, nil
}

func (m *counterModel) View() View {
	v := NewView("n=" + strconv.Itoa(m.n))
	v.AltScreen = true
	return v
}

// An unchanged screen is not flushed at all; a changed view is flushed
// once, and views handed over faster than the frame rate are merged.
func TestFramesOnlyWhenTheViewChanged(t *testing.T) {
	out := &writeCounter{}
	p := NewProgram(&counterModel{}, WithInput(nil), WithOutput(out), WithFPS(20), WithWindowSize(40, 10))
	done := make(chan error, 1)
	go func() { _, err := p.Run(); done <- err }()
	defer func() {
		p.Quit()
		if err := <-done; err != nil {
			t.Error(err)
		}
	}()
	waitFor(t, "the first frame", func() bool { return out.count() > 0 })
	time.Sleep(150 * time.Millisecond) // anything the start queued
	settled := out.count()
	for range 20 {
		p.Send(nopMsg{}) // a message that changes nothing on screen
	}
	time.Sleep(300 * time.Millisecond) // six frame intervals
	if got := out.count(); got != settled {
		t.Fatalf("%d writes with nothing changed on screen, want none", got-settled)
	}
	start := time.Now()
	for i := 1; i <= 10; i++ { // ten views within about one interval
		p.Send(setMsg(i))
	}
	waitFor(t, "10 on screen", func() bool {
		out.mu.Lock()
		defer out.mu.Unlock()
		return bytes.Contains(out.buf.Bytes(), []byte("10"))
	})
	if frames, took := out.count()-settled, time.Since(start); frames > 1+int(took/(50*time.Millisecond)) {
		t.Fatalf("%d frames in %v at 20 fps: views were not merged", frames, took)
	}
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("no %s in 5 s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// countingRenderer counts flushes; nothing else of it is used.
type countingRenderer struct {
	renderer
	mu      sync.Mutex
	flushes []time.Time
}

func (c *countingRenderer) flush(bool) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.flushes = append(c.flushes, time.Now())
	return nil
}

func (c *countingRenderer) times() []time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]time.Time(nil), c.flushes...)
}

// The renderer's goroutine does not wake while no flush is due (upstream
// flushed on a ticker, 20 times a second here, changed or not), flushes
// once for many signals within a frame interval, and keeps the interval
// between two flushes.
func TestRendererSleepsUntilAFlushIsDue(t *testing.T) {
	const interval = 50 * time.Millisecond
	r := &countingRenderer{}
	p := &Program{renderer: r, frameDue: make(chan struct{}, 1), rendererDone: make(chan struct{})}
	go p.renderOnDemand(interval)
	defer func() { p.rendererDone <- struct{}{} }()
	time.Sleep(6 * interval)
	if n := len(r.times()); n != 0 {
		t.Fatalf("%d flushes with none due, want 0", n)
	}
	for range 10 {
		p.frameDueSignal()
	}
	waitFor(t, "a flush", func() bool { return len(r.times()) > 0 })
	time.Sleep(3 * interval)
	if n := len(r.times()); n != 1 {
		t.Fatalf("%d flushes for ten signals at once, want 1", n)
	}
	p.frameDueSignal()
	waitFor(t, "a second flush", func() bool { return len(r.times()) == 2 })
	for range 3 {
		p.frameDueSignal()
		time.Sleep(interval / 5)
	}
	waitFor(t, "a third flush", func() bool { return len(r.times()) >= 3 })
	ts := r.times()
	for i := 1; i < len(ts); i++ {
		if gap := ts[i].Sub(ts[i-1]); gap < interval-5*time.Millisecond {
			t.Fatalf("flushes %d and %d %v apart, want at least %v", i-1, i, gap, interval)
		}
	}
}
