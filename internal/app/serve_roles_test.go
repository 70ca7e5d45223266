package app

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"charm.land/log/v2"
	gossh "golang.org/x/crypto/ssh"

	"tradedeck/internal/testkit"
	"tradedeck/serve/servetest"
)

// With --trade only a trader's key trades; a viewer's key is refused
// every trading key. Each order and cancel from a session is logged with
// the key's fingerprint and the SSH user, before it is sent and with the
// venue's answer.
func TestServeRolesAndTradeAudit(t *testing.T) {
	viewer, trader := servetest.NewKey(t), servetest.NewKey(t)
	logs := &testkit.SyncBuffer{}
	fl := ServerOptions{
		Listen: "127.0.0.1:0", HostKey: filepath.Join(t.TempDir(), "host_key"), Trade: true, VenueChoice: VenueChoice{Seed: 3},
		AuthorizedKeys: servetest.AuthorizedKeysFile(t, servetest.Line(viewer, ""), servetest.Line(trader, "tradedeck-role=trader")),
	}
	addr, dv := serveForTest(t, fl, log.New(logs))

	// The refusal is a notice in the status bar, after the streams' health
	// and the budget; on a loaded machine (4-digit latencies, 2-digit
	// rates) 120 columns leave it cut to "trading is disabled: S…".
	v := openDashboardSized(t, addr, viewer, 200, 40)
	v.WaitFor(t, 20*time.Second, "READ-ONLY")
	v.Type(t, "b")
	v.WaitFor(t, 10*time.Second, "disabled: SSH viewer")

	tm := openDashboard(t, addr, trader)
	tm.WaitFor(t, 20*time.Second, "b buy", "private", "spread")
	if strings.Contains(tm.Text(), "READ-ONLY") {
		t.Fatal("a trader's session drawn read-only")
	}
	tm.Type(t, "b")
	tm.WaitFor(t, 10*time.Second, "New order")
	// Price row: the best bid, 30 ticks lower so the order rests; quantity.
	tm.Type(t, "\x1b[Z["+strings.Repeat("\x1b[B", 30)+"\t0.01")
	tm.WaitFor(t, 10*time.Second, "review & send")
	tm.Type(t, "\r")
	tm.WaitFor(t, 10*time.Second, "Confirm BUY", "[y]")
	time.Sleep(500 * time.Millisecond) // the confirmation's keystroke grace (300 ms) by design
	tm.Type(t, "y")
	fp := gossh.FingerprintSHA256(trader.Signer.PublicKey())
	waitLog(t, logs, "trade: accepted", "action=send_order")
	// C confirms only once the dashboard knows an open order on the
	// symbol (the private stream's NEW may trail the REST ack): press it
	// until its own confirmation shows (not the last one's stale "[y]").
	for deadline := time.Now().Add(20 * time.Second); !strings.Contains(tm.Text(), "Cancel all on"); {
		if time.Now().After(deadline) {
			t.Fatal("C never opened its confirmation")
		}
		tm.Type(t, "C")
		time.Sleep(300 * time.Millisecond) // a retry's pace, not a synchronisation
	}
	time.Sleep(500 * time.Millisecond)
	tm.Type(t, "y")
	waitLog(t, logs, "action=cancel_all")

	var audit []string
	for _, l := range strings.Split(logs.String(), "\n") {
		if strings.Contains(l, "trade: ") {
			audit = append(audit, l)
			if !strings.Contains(l, "user=trader") || !strings.Contains(l, "key="+fp) {
				t.Errorf("audit line without the user or the key's fingerprint: %s", l)
			}
		}
	}
	joined := strings.Join(audit, "\n")
	for _, want := range []string{"trade: sending", "request=\"POST /v1/order\"", "client_order_id=", "action=cancel_all"} {
		if !strings.Contains(joined, want) {
			t.Errorf("audit lacks %q:\n%s", want, joined)
		}
	}
	if dv.Credentials.APISecret == "" || strings.Contains(joined, dv.Credentials.APISecret) {
		t.Fatal("the audit log holds the API secret")
	}
}

func waitLog(t *testing.T, logs *testkit.SyncBuffer, want ...string) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for {
		s, ok := logs.String(), true
		for _, l := range strings.Split(s, "\n") {
			ok = true
			for _, w := range want {
				ok = ok && strings.Contains(l, w)
			}
			if ok {
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("no log line with %q:\n%s", want, s)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
