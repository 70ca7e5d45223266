package serve

import (
	"strings"
	"testing"
	"time"

	gossh "golang.org/x/crypto/ssh"

	"tradedeck/serve/servetest"
)

// A window larger than the cap is drawn at the cap, at start and on every
// resize; smaller ones are taken as they are.
func TestWindowSizeCapped(t *testing.T) {
	user := servetest.NewKey(t)
	ts := start(t, Config{AuthorizedKeys: servetest.AuthorizedKeys(t, user)})
	tm := servetest.Open(t, dial(t, ts.addr(), user), "xterm", 1600, 800, nil)
	tm.WaitFor(t, 10*time.Second, "size=320x100.")
	resize := func(w, h int) {
		t.Helper()
		if err := tm.Session.WindowChange(h, w); err != nil {
			t.Fatal(err)
		}
	}
	resize(90, 30)
	tm.WaitFor(t, 10*time.Second, "size=90x30.")
	resize(1<<30, 1<<30)
	waitUntil(t, "the huge window drawn at the cap", func() bool { return strings.Count(tm.Text(), "size=320x100.") >= 2 })
	resize(321, 101)
	resize(133, 44)
	tm.WaitFor(t, 10*time.Second, "size=133x44.")
	if strings.Contains(tm.Text(), "size=321x") || strings.Contains(tm.Text(), "size=1073741824") {
		t.Fatal("a size above the cap reached the program")
	}
}

// Env requests past the limits and an overlong TERM are refused, so a
// client cannot make a session hold what it likes.
func TestSessionRequestsBounded(t *testing.T) {
	user := servetest.NewKey(t)
	ts := start(t, Config{AuthorizedKeys: servetest.AuthorizedKeys(t, user)})
	c := dial(t, ts.addr(), user)
	s, err := c.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	accepted := 0
	for i := range 1000 {
		ok, err := s.SendRequest("env", true, gossh.Marshal(struct{ Key, Value string }{"V" + strings.Repeat("x", i%7), strings.Repeat("v", 100)}))
		if err != nil {
			t.Fatal(err)
		}
		if ok {
			accepted++
		}
	}
	if accepted == 0 || accepted > maxEnvVars {
		t.Fatalf("%d of 1000 env requests accepted, want 1..%d", accepted, maxEnvVars)
	}
	big, err := s.SendRequest("env", true, gossh.Marshal(struct{ Key, Value string }{"BIG", strings.Repeat("v", 20000)}))
	if err != nil || big {
		t.Fatalf("a 20 KB env var accepted (%v)", err)
	}
	if err := s.RequestPty(strings.Repeat("x", 60000), 24, 80, gossh.TerminalModes{}); err == nil {
		t.Fatal("a 60 KB TERM accepted")
	}
	// The refused pty leaves a session without a terminal: refused too.
	s.Close()

	// A normal session on the same connection still works.
	servetest.Open(t, c, "xterm", 80, 24, nil).WaitFor(t, 10*time.Second, "size=80x24.")
}

// One connection holds a bounded number of sessions at once.
func TestSessionsPerConnectionCapped(t *testing.T) {
	user := servetest.NewKey(t)
	ts := start(t, Config{AuthorizedKeys: servetest.AuthorizedKeys(t, user)})
	c := dial(t, ts.addr(), user)
	var open []*gossh.Session
	for range maxChannelsPerConn {
		s, err := c.NewSession()
		if err != nil {
			t.Fatal(err)
		}
		open = append(open, s)
	}
	if s, err := c.NewSession(); err == nil {
		s.Close()
		t.Fatalf("session %d on one connection opened", maxChannelsPerConn+1)
	}
	open[0].Close()
	waitUntil(t, "a slot freed", func() bool {
		s, err := c.NewSession()
		if err == nil {
			s.Close()
		}
		return err == nil
	})
}
