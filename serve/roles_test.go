package serve

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"tradedeck/serve/servetest"
)

// Each key's role comes from its line: viewer by default, trader with
// tradedeck-role=trader; the session learns the role of the key it
// authenticated with, read again at session start.
func TestRolesFromAuthorizedKeys(t *testing.T) {
	viewer, trader, quoted := servetest.NewKey(t), servetest.NewKey(t), servetest.NewKey(t)
	path := servetest.AuthorizedKeysFile(t,
		"# desk viewers\n", servetest.Line(viewer, ""),
		"# traders\n", servetest.Line(trader, "tradedeck-role=trader"),
		servetest.Line(quoted, `tradedeck-role="trader"`))
	ts := start(t, Config{AuthorizedKeys: path})
	for k, want := range map[*servetest.Key]string{&viewer: "role=viewer", &trader: "role=trader", &quoted: "role=trader"} {
		servetest.Open(t, dial(t, ts.addr(), *k), "xterm", 80, 24, nil).WaitFor(t, 10*time.Second, "ready user=trader "+want+" ")
	}

	// Demoted while logged out: the next session is a viewer's.
	if err := os.WriteFile(path, []byte(servetest.Line(trader, "")), 0o600); err != nil {
		t.Fatal(err)
	}
	c := dial(t, ts.addr(), trader)
	servetest.Open(t, c, "xterm", 80, 24, nil).WaitFor(t, 10*time.Second, "role=viewer")
	// Removed after login: no new session on the open connection.
	if err := os.WriteFile(path, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	tm := servetest.Open(t, c, "xterm", 80, 24, nil)
	tm.WaitFor(t, 10*time.Second, "key no longer authorized")
}

// A line the server cannot enforce or understand stops it from starting.
func TestAuthorizedKeysRolesRefused(t *testing.T) {
	k, k2 := servetest.NewKey(t), servetest.NewKey(t)
	app := func(context.Context, Terminal) (*Session, error) { return nil, nil }
	for _, c := range []struct{ lines, want string }{
		{servetest.Line(k, "tradedeck-role=admin"), "the roles are viewer and trader"},
		{servetest.Line(k, "tradedeck-role=trader,tradedeck-role=viewer"), "given twice"},
		{servetest.Line(k, "tradedeck-role=trader,no-pty"), "does not enforce"},
		{servetest.Line(k, `command="ls"`), "does not enforce"},
		{servetest.Line(k2, "") + servetest.Line(k, "tradedeck-role=trader") + servetest.Line(k, ""), "listed twice, as trader and as viewer"},
	} {
		_, err := New(Config{Listen: "127.0.0.1:0", HostKeyPEM: k.PEM, AuthorizedKeys: servetest.AuthorizedKeysFile(t, c.lines), App: app})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want %q", c.lines, err, c.want)
		}
	}
}
