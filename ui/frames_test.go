package ui

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"
	"unsafe"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"tradedeck/feed"
	"tradedeck/panes/panetest"
)

// With a dialog open, an unchanged screen hands back the same frame
// (not cut and joined again); a change under the dialog shows through.
func TestOverlaidFrameReusedWhileUnchanged(t *testing.T) {
	m := newTestModel(t, 200, 60, false)
	press(m, "?")
	first := m.renderLines()
	again := m.renderLines()
	if unsafe.SliceData(first) != unsafe.SliceData(again) {
		t.Fatal("an unchanged screen with the help open was composed again")
	}
	m.Update(panetest.Market(2, 40)) // the book and tape under the help change
	changed := m.renderLines()
	if slices.Equal(changed, first) {
		t.Fatal("a change under the help did not show")
	}
	if !slices.Equal(m.renderLines(), changed) {
		t.Fatal("the reused frame differs from the one composed")
	}
	// Lines taken from the last composition make what cutting them all
	// again makes.
	whole, _, _ := overlay(m.rows, m.dialogs[0].View(), 200, 60)
	if !slices.Equal(changed, whole) {
		t.Fatal("the frame composed from kept lines differs from one cut whole")
	}
	press(m, "esc")
	if got := m.renderLines(); slices.Equal(got, changed) {
		t.Fatal("the help still shows after esc")
	}
}

// A model whose host pushes the feed (PushUpdates) starts no command
// reading it, after Init or after an Update; ForwardUpdates delivers
// each Update, in order, until the channel closes.
func TestPushedUpdatesNeedNoCommand(t *testing.T) {
	src := &fakeSource{ch: make(chan feed.Update)}
	m := New(Options{Feed: src, Symbol: "PERP_BTC_USDT", Keys: panetest.Keys()})
	if m.wait() == nil {
		t.Fatal("a model reading its feed has no command to read it")
	}
	m.PushUpdates()
	if m.wait() != nil || m.waitPaced() != nil {
		t.Fatal("a pushed model still reads the feed through a command")
	}
	var got []uint64
	done := make(chan struct{})
	go func() {
		ForwardUpdates(src.ch, func(msg tea.Msg) { got = append(got, msg.(*feed.Update).Seq) })
		close(done)
	}()
	for i := uint64(1); i <= 3; i++ {
		src.ch <- feed.Update{Seq: i}
	}
	close(src.ch)
	<-done
	if len(got) != 3 || got[0] != 1 || got[2] != 3 {
		t.Fatalf("forwarded %v, want [1 2 3]", got)
	}
}

// A dialog that grows or shrinks is centred again, so its lines move to
// other rows: the cached composition of a row must not come back with the
// dialog line that stood there before (a form switched to MARKET showed
// two "notional" lines, the old one left a row above the new).
func TestOverlayCachedFollowsADialogThatMoves(t *testing.T) {
	var base []string
	for i := range 24 {
		base = append(base, strings.Repeat(string(rune('a'+i)), 80))
	}
	screen := base
	var cache overlayLines
	dialog := func(n int) string {
		var ls []string
		for i := range n {
			ls = append(ls, fmt.Sprintf("line %02d", i)) // line i the same, whatever the height
		}
		return strings.Join(ls, "\n")
	}
	for _, n := range []int{10, 12, 11, 9, 12} {
		got, _, _ := overlayCached(&cache, screen, dialog(n), 80, 24)
		want, _, _ := overlay(screen, dialog(n), 80, 24)
		if !slices.Equal(got, want) {
			t.Fatalf("a dialog of %d lines after another height: cached composition differs:\n%s\nwant:\n%s", n, got, want)
		}
	}
}

// The health line's once-a-second figures (latency, message rate) moving
// alone draw no frame of their own: the screen stays the same string
// until the clock's second redraws the status bar with them. A stream's
// state changing shows at once. (An idle screen drew a second frame a
// second for the rate going 11/s, 12/s, 11/s.)
func TestHealthFiguresWaitForTheClock(t *testing.T) {
	m := newTestModel(t, 200, 60, false)
	press(m, "?")
	first := m.renderLines()
	health := func(edit func(h *feed.Health)) *feed.Update {
		hs := append([]feed.Health(nil), m.store.Health...)
		edit(&hs[0])
		return &feed.Update{Health: hs}
	}
	for i := range 5 {
		m.Update(health(func(h *feed.Health) {
			h.Latency += time.Millisecond
			h.MsgsPerSec += 3
			h.LastMsg = h.LastMsg.Add(time.Second)
		}))
		if got := m.renderLines(); unsafe.SliceData(got) != unsafe.SliceData(first) {
			t.Fatalf("figures update %d drew a new frame", i)
		}
	}
	m.Update(tickMsg(m.c.Clock()))
	ticked := m.Render()
	if ticked == strings.Join(first, "\n") || !strings.Contains(ansi.Strip(ticked), "19ms 427/s") {
		t.Fatalf("the clock's redraw lacks the new figures: %q", statusLine(m))
	}
	m.Update(health(func(h *feed.Health) { h.State = feed.Reconnecting; h.RetryIn = 2 * time.Second }))
	if got := ansi.Strip(m.Render()); !strings.Contains(got, "reconnecting in 2s") {
		t.Fatalf("a stream going down waited for the clock: %q", statusLine(m))
	}
}

// View hands the renderer the screen's rows: a row that did not change
// is the same string as in the last frame (the renderer finds it by
// identity), a screen that did not change is the same slice and costs no
// allocation, and the rows joined are what Render shows.
func TestViewHandsUnchangedRowsAgain(t *testing.T) {
	m := newTestModel(t, 200, 60, false)
	before := m.View().Lines
	if len(before) != 60 || strings.Join(before, "\n") != m.Render() {
		t.Fatalf("%d rows, or they are not the screen", len(before))
	}
	if n := testing.AllocsPerRun(20, func() { _ = m.View() }); n != 0 {
		t.Fatalf("an unchanged screen's View allocated %v times", n)
	}
	m.Update(panetest.Market(2, 40)) // the book and tape change, the header's first line does not
	after := m.View().Lines
	same, moved := 0, 0
	for y := range after {
		switch {
		case after[y] != before[y]:
			moved++
		case unsafe.StringData(after[y]) != unsafe.StringData(before[y]):
			t.Fatalf("row %d did not change but is a new string", y)
		default:
			same++
		}
	}
	if moved == 0 || same == 0 {
		t.Fatalf("%d rows changed, %d handed again: the change under test did not happen", moved, same)
	}
	if strings.Join(after, "\n") != m.Render() {
		t.Fatal("the rows handed over are not the screen")
	}
}
