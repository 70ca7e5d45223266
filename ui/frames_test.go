package ui

import (
	"testing"
	"unsafe"

	tea "charm.land/bubbletea/v2"

	"tradedeck/feed"
	"tradedeck/panes/panetest"
)

// With a dialog open, an unchanged screen hands back the same frame
// (not cut and joined again); a change under the dialog shows through.
func TestOverlaidFrameReusedWhileUnchanged(t *testing.T) {
	m := newTestModel(t, 200, 60, false)
	press(m, "?")
	first := m.Render()
	again := m.Render()
	if unsafe.StringData(first) != unsafe.StringData(again) {
		t.Fatal("an unchanged screen with the help open was composed again")
	}
	m.Update(panetest.Market(2, 40)) // the book and tape under the help change
	changed := m.Render()
	if changed == first {
		t.Fatal("a change under the help did not show")
	}
	if m.Render() != changed {
		t.Fatal("the reused frame differs from the one composed")
	}
	// Lines taken from the last composition make what cutting them all
	// again makes.
	whole, _, _ := overlay(m.frameStr, m.dialogs[0].View(), 200, 60)
	if changed != whole {
		t.Fatal("the frame composed from kept lines differs from one cut whole")
	}
	press(m, "esc")
	if got := m.Render(); got == changed {
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
