package app

import (
	"strings"
	"testing"
	"time"

	gossh "golang.org/x/crypto/ssh"

	"tradedeck/internal/testkit"
	"tradedeck/serve/servetest"
)

// heapInUse is the live heap after a full collection, in MB.
func heapInUse() float64 { return float64(testkit.HeapInUse()) / (1 << 20) }

// A hostile viewer cannot make the server hold much: a 1600x800 window
// (drawn at the cap), a flood of window changes, thousands of env vars
// and a huge TERM cost the server about what one large screen does.
// Before the caps, the window alone cost ~300 MB.
func TestServeMemoryBoundedWhateverTheClientSends(t *testing.T) {
	addr, user, _ := startServe(t, false)
	openDashboard(t, addr, user).WaitFor(t, 20*time.Second, "Trades ")
	base := heapInUse()

	c, err := servetest.Dial(addr, user)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	s, err := c.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	value := strings.Repeat("v", 8000)
	for i := range 2000 {
		// Each refused or accepted; either way the server keeps little.
		if _, err := s.SendRequest("env", true, gossh.Marshal(struct{ Key, Value string }{"X" + strings.Repeat("x", i%50), value})); err != nil {
			t.Fatal(err)
		}
	}
	s.Close()

	tm := servetest.Open(t, c, "xterm-256color", 1600, 800, nil)
	tm.WaitFor(t, 30*time.Second, "Trades ", "live")
	for i := range 500 {
		if err := tm.Session.WindowChange(800+i, 1600+i); err != nil {
			t.Fatal(err)
		}
	}
	// A bracketed paste that is never closed (Bubble Tea buffers a paste
	// until its end marker).
	beforePaste := heapInUse()
	tm.Type(t, "\x1b[200~")
	chunk := strings.Repeat("p", 64<<10)
	for range 256 { // 16 MB
		tm.Type(t, chunk)
	}
	grownPaste := heapInUse() - beforePaste
	tm.Type(t, "\x1b[201~")
	tm.Type(t, "?") // a round trip through the program after the resizes and the paste
	tm.WaitFor(t, 30*time.Second, "Help (esc to close)")
	grown := heapInUse() - base
	t.Logf("heap: %.1f MB with one 160x48 viewer, +%.1f MB with the hostile one (+%.1f MB during its unclosed paste)", base, grown, grownPaste)
	if grownPaste > 10 {
		t.Fatalf("an unclosed 16 MB paste grew the heap by %.1f MB", grownPaste)
	}
	if grown > 40 {
		t.Fatalf("a hostile viewer grew the heap by %.1f MB (bound 40 MB)", grown)
	}
	s, err = c.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.RequestPty(strings.Repeat("t", 60000), 800, 1600, gossh.TerminalModes{}); err == nil {
		t.Fatal("a 60 KB TERM accepted")
	}
}

// serve lowers the GC target (most of its heap is sessions' screens)
// unless the operator set GOGC.
func TestServeGCPercent(t *testing.T) {
	env := map[string]string{}
	getenv := func(k string) string { return env[k] }
	if gc, ok := serveGCPercent(getenv); !ok || gc != ServeGCPercent {
		t.Fatalf("without GOGC: %d %v", gc, ok)
	}
	env["GOGC"] = "200"
	if _, ok := serveGCPercent(getenv); ok {
		t.Fatal("GOGC=200 overridden")
	}
}
