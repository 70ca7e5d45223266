package app

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"charm.land/log/v2"
	"github.com/shopspring/decimal"
	gossh "golang.org/x/crypto/ssh"

	"tradedeck/alerts"
	"tradedeck/algo"
	"tradedeck/config"
	"tradedeck/internal/testkit"
	"tradedeck/serve/servetest"
)

// deskHost is `tradedeck desk` on the embedded simulated venue (a real
// venue on loopback, its feed, the account's engine) with its alerts in
// a file of the test's, running until the test ends.
func deskHost(t *testing.T, path string) (*Headless, *testkit.SyncBuffer) {
	t.Helper()
	t.Setenv("XDG_RUNTIME_DIR", shortDir(t))
	var out, log testkit.SyncBuffer
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	t.Cleanup(cancel)
	h, err := StartHeadless(ctx, HeadlessOptions{VenueChoice: VenueChoice{Seed: 1}, Config: config.Defaults(),
		Alerts: alerts.NewStore(path), Desk: true, JSON: true, Out: &out, Log: &log})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	runCtx, stop := context.WithCancel(ctx)
	go func() { done <- h.Run(runCtx) }()
	t.Cleanup(func() {
		stop()
		if err := <-done; err != nil {
			t.Error(err)
		}
		h.Close()
	})
	select {
	case <-h.algos.Ready():
	case <-ctx.Done():
		t.Fatalf("the engine never got ready: %s", log.String())
	}
	return h, &out
}

// deskWithTrail is deskHost with a trailing stop of 10% on the demo
// account's BTC in its engine (far from firing in a test's time).
func deskWithTrail(t *testing.T, path string) (*Headless, *testkit.SyncBuffer, algo.Algo) {
	t.Helper()
	h, out := deskHost(t, path)
	trail, err := h.algos.Add(mustSpec(t, "trail SPOT_BTC_USDT 10%"), algo.Confirm{})
	if err != nil {
		t.Fatal(err)
	}
	return h, out, trail
}

// addAlert parses and adds an alert through the host's engine (the
// action checked against the account's engine, as :alert does).
func addAlert(h *Headless, line string) (alerts.Alert, error) {
	a, err := alerts.Parse(strings.Fields(line), nil)
	if err != nil {
		return a, err
	}
	return h.Alerts.Add(a)
}

// firingRow is one alert_firings row as sqlite3 shows it.
type firingRow struct {
	action, result, by, account string
	algoID                      int64
}

func firingRows(t *testing.T, h *Headless, alertID int) []firingRow {
	t.Helper()
	rows, err := h.algos.Store().DB().Query(`SELECT action, algo_id, result, by, account FROM alert_firings WHERE alert_id = ? ORDER BY id`, alertID)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []firingRow
	for rows.Next() {
		var r firingRow
		if err := rows.Scan(&r.action, &r.algoID, &r.result, &r.by, &r.account); err != nil {
			t.Fatal(err)
		}
		out = append(out, r)
	}
	return out
}

// An alert that acts, end to end on real parts: the alert engine fed by
// the simulated venue on loopback, the account's engine with a trailing
// stop on the demo account's BTC. Actions the engine would refuse are
// refused when the alert is added, with the reason; the alert fires at
// the next trade and cancels the algo in the engine, once; a second
// alert on the same algo, fired by the same trade, finds it finished and
// reports it without acting; every firing is a row of the desk's
// database with its action, algo and result.
func TestAlertCancelsAnAlgoInTheEngine(t *testing.T) {
	path := filepath.Join(t.TempDir(), "alerts.json")
	h, out, trail := deskWithTrail(t, path)
	id := int(trail.ID)
	refused := map[string]string{
		"SPOT_BTC_USDT above 1 then cancel 999":                   "no algo #999 in this account",
		"SPOT_BTC_USDT above 1 then pause " + itoa(id):            algo.ErrNotPausable.Error(),
		"SPOT_BTC_USDT above 1 then pause chase " + itoa(id):      "is a trail, not a chase",
		"SPOT_BTC_USDT above 1 then tighten " + itoa(id) + " 20%": "not tighter than #" + itoa(id) + "'s 10%",
		"SPOT_BTC_USDT above 1 then tighten " + itoa(id) + " 10%": "not tighter",
	}
	for line, want := range refused {
		if _, err := addAlert(h, line); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want it refused saying %q", line, err, want)
		}
	}
	if n := len(h.Alerts.List()); n != 0 {
		t.Fatalf("%d refused alerts were stored", n)
	}
	// Both fire at the next trade, the cancel first (alerts are
	// evaluated in the order they were added).
	cancelIt, err := addAlert(h, "SPOT_BTC_USDT above 1 then cancel trail "+itoa(id))
	if err != nil {
		t.Fatal(err)
	}
	late, err := addAlert(h, "SPOT_BTC_USDT above 1 then tighten "+itoa(id)+" 5%")
	if err != nil {
		t.Fatal(err)
	}
	plain, err := addAlert(h, "SPOT_BTC_USDT above 1")
	if err != nil {
		t.Fatal(err)
	}
	done, report := waitOutcome(t, out, cancelIt.ID), waitOutcome(t, out, late.ID)
	if a, ok := h.algos.Engine().Get(trail.ID); !ok || a.State != algo.StateCancelled {
		t.Fatalf("the algo after the alert: %+v", a)
	} else if want := "cancelled by alert " + itoa(cancelIt.ID) + " (SPOT_BTC_USDT last "; !strings.HasPrefix(a.Reason, want) ||
		!strings.HasSuffix(a.Reason, " crossed above 1)") {
		t.Fatalf("the algo's reason %q, want the alert's: %q...", a.Reason, want)
	}
	if !done.OK || done.Algo != int64(id) || !strings.Contains(done.Text, "cancelled algo #"+itoa(id)) {
		t.Fatalf("the cancel's outcome: %+v", done)
	}
	if report.OK || !strings.Contains(report.Text, "finished meanwhile (cancelled): not acted on") {
		t.Fatalf("the late action's outcome: %+v", report)
	}
	// The once alerts fire once, whatever the trades after.
	time.Sleep(time.Second)
	rows := firingRows(t, h, cancelIt.ID)
	if len(rows) != 1 || rows[0].action != "cancel trail "+itoa(id) || rows[0].algoID != int64(id) ||
		rows[0].result != "done: cancelled algo #"+itoa(id)+" trail" || rows[0].account == "" {
		t.Fatalf("the cancel's rows: %+v", rows)
	}
	rows = firingRows(t, h, late.ID)
	if len(rows) != 1 || !strings.HasPrefix(rows[0].result, "refused: algo #"+itoa(id)+" finished meanwhile") {
		t.Fatalf("the late action's rows: %+v", rows)
	}
	testkit.WaitFor(t, "the plain firing recorded", 10*time.Second, func() bool { return len(firingRows(t, h, plain.ID)) == 1 })
	if rows := firingRows(t, h, plain.ID); rows[0].action != "" || rows[0].result != "" {
		t.Fatalf("a firing without action: %+v", rows)
	}
}

// Two hosts on one alerts file (here: a dashboard's alert engine next to
// the desk's, as `tradedeck desk` and a dashboard of the same user) both
// fire the alert; one records the firing and acts, the other is told it
// was done elsewhere: the algo is cancelled once, one row is written.
func TestAlertSharedByTwoHostsActsOnce(t *testing.T) {
	path := filepath.Join(t.TempDir(), "alerts.json")
	h, out, trail := deskWithTrail(t, path)
	other := *h.Venue
	other.actBoard = &actBoard{} // its screens are another process's
	da, err := newDashAlerts(&other, path, "", os.Getenv)
	if err != nil {
		t.Fatal(err)
	}
	defer da.leave()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go da.run(ctx)
	a, err := alerts.Parse(strings.Fields("SPOT_BTC_USDT above 1 then cancel "+itoa(int(trail.ID))), nil)
	if err != nil {
		t.Fatal(err)
	}
	added, err := da.engine.Add(a) // the dashboard adds it; the desk picks it up from the file
	if err != nil {
		t.Fatal(err)
	}
	var outcomes []alerts.Outcome // the dashboard's
	for len(outcomes) == 0 {
		select {
		case n := <-da.deliver.Notes():
			if n.Outcome != nil {
				outcomes = append(outcomes, *n.Outcome)
			}
		case <-time.After(30 * time.Second):
			t.Fatal("the dashboard's engine reported no outcome in 30 s")
		}
	}
	testkit.WaitFor(t, "the desk's outcome", 30*time.Second, func() bool { return strings.Contains(out.String(), `"event":"alert action"`) })
	elsewhere, acted := 0, 0
	for _, o := range outcomes {
		if o.Elsewhere {
			elsewhere++
		} else if o.Err == nil {
			acted++
		}
	}
	if strings.Contains(out.String(), `"elsewhere":true`) {
		elsewhere++
	} else if strings.Contains(out.String(), `"ok":true`) {
		acted++
	}
	if elsewhere != 1 || acted != 1 {
		t.Fatalf("%d acted, %d told elsewhere", acted, elsewhere)
	}
	if rows := firingRows(t, h, added.ID); len(rows) != 1 || !strings.HasPrefix(rows[0].result, "done: cancelled") {
		t.Fatalf("rows: %+v", rows)
	}
	if got, _ := h.algos.Engine().Get(trail.ID); got.State != algo.StateCancelled {
		t.Fatalf("algo %+v", got)
	}
}

func mustSpec(t *testing.T, line string) algo.Spec {
	t.Helper()
	s, err := algo.Parse(line)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func itoa(n int) string { return strconv.Itoa(n) }

// In serve, an alert set in a trader's session acts through that
// session's engine and is audited with the key that added it; a viewer's
// alert may not act (refused when typed, with the reason). Both see the
// outcome as a notice on their screen.
func TestServeAlertActionIsAuditedWithItsKey(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	t.Setenv("XDG_RUNTIME_DIR", shortDir(t))
	viewer, trader := servetest.NewKey(t), servetest.NewKey(t)
	fl := ServerOptions{
		Listen: "127.0.0.1:0", HostKey: filepath.Join(t.TempDir(), "host_key"), Trade: true, VenueChoice: VenueChoice{Seed: 3},
		AuthorizedKeys: servetest.AuthorizedKeysFile(t, servetest.Line(viewer, ""), servetest.Line(trader, "tradedeck-role=trader")),
	}
	addr, dv := serveForTest(t, fl, log.New(io.Discard))
	select {
	case <-dv.Algos.Ready():
	case <-time.After(30 * time.Second):
		t.Fatal("the server's engine never got ready")
	}
	trail, err := dv.Algos.Add(mustSpec(t, "trail SPOT_BTC_USDT 10%"), algo.Confirm{})
	if err != nil {
		t.Fatal(err)
	}
	line := ":alert SPOT_BTC_USDT above 1 then cancel " + itoa(int(trail.ID)) + "\r"

	vw := openDashboardSized(t, addr, viewer, 200, 40)
	vw.WaitFor(t, 20*time.Second, "READ-ONLY")
	vw.Type(t, line)
	vw.WaitFor(t, 10*time.Second, "SSH viewer: an alert may not act")

	tm := openDashboardSized(t, addr, trader, 200, 40)
	tm.WaitFor(t, 20*time.Second, "b buy", "spread")
	tm.Type(t, line)
	tm.WaitFor(t, 30*time.Second, "alert 1: cancelled algo #"+itoa(int(trail.ID))+" trail")
	if got, _ := dv.Algos.Engine().Get(trail.ID); got.State != algo.StateCancelled {
		t.Fatalf("algo %+v", got)
	}
	fp := gossh.FingerprintSHA256(trader.Signer.PublicKey())
	// The viewer's screen hears it too, with whose alert it was.
	vw.WaitFor(t, 10*time.Second, "alert 1 of "+fp[:16]+"…: cancelled algo #"+itoa(int(trail.ID)))
	fp = gossh.FingerprintSHA256(trader.Signer.PublicKey())
	var by, detail string
	err = dv.Algos.Store().DB().QueryRow(`SELECT key, detail FROM audit WHERE action = 'alert cancel'`).Scan(&by, &detail)
	if err != nil || by != fp || !strings.Contains(detail, "then cancel "+itoa(int(trail.ID))) {
		t.Fatalf("audit: %q %q %v", by, detail, err)
	}
	var rowBy, result string
	err = dv.Algos.Store().DB().QueryRow(`SELECT by, result FROM alert_firings WHERE action != ''`).Scan(&rowBy, &result)
	if err != nil || rowBy != fp || !strings.HasPrefix(result, "done: cancelled") {
		t.Fatalf("alert_firings: %q %q %v", rowBy, result, err)
	}
}

// shortDir is a directory whose path leaves room for the engine's socket
// (a Unix socket's path is at most 107 bytes; t.TempDir's are long).
func shortDir(t *testing.T) string {
	d, err := os.MkdirTemp("", "ta")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(d) })
	return d
}

// A process that acted and was killed before its alerts file was saved
// fires the alert again when it restarts (the file says it never
// fired): the firing's row in the database says it was taken, so the
// action is not done twice, and the outcome says what the first did.
func TestAlertActionNotRepeatedAfterARestart(t *testing.T) {
	h, _, trail := deskWithTrail(t, filepath.Join(t.TempDir(), "desk-alerts.json"))
	path := filepath.Join(t.TempDir(), "alerts.json")
	store := alerts.NewStore(path)
	before, err := store.Update(func(f *alerts.File) error {
		alerts.AddTo(f, alerts.Alert{Symbol: "SPOT_BTC_USDT", Kind: alerts.KindPrice, Op: alerts.Above, Level: decimal.NewFromInt(1),
			Source: alerts.Last, Created: time.Now(), Then: &alerts.Action{Verb: alerts.VerbCancel, Algo: int64(trail.ID)}})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// run is one life of a dashboard's alert engine on the file, until
	// its first outcome.
	run := func() alerts.Outcome {
		other := *h.Venue
		other.actBoard = &actBoard{}
		da, err := newDashAlerts(&other, path, "", os.Getenv)
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		stopped := make(chan struct{})
		go func() { da.run(ctx); close(stopped) }()
		defer func() { cancel(); <-stopped; da.leave() }()
		for {
			select {
			case n := <-da.deliver.Notes():
				if n.Outcome != nil {
					return *n.Outcome
				}
			case <-time.After(30 * time.Second):
				t.Fatal("no outcome in 30 s")
			}
		}
	}
	first := run()
	if first.Err != nil || first.Elsewhere || !strings.Contains(first.Text, "cancelled algo") {
		t.Fatalf("first life: %+v", first)
	}
	// The kill: the file as it was before the firing was saved.
	if _, err := store.Update(func(f *alerts.File) error { *f = before; return nil }); err != nil {
		t.Fatal(err)
	}
	second := run()
	if !second.Elsewhere || second.Err != nil || !strings.Contains(second.Text, "taken already") ||
		!strings.Contains(second.Text, "done: cancelled algo #"+itoa(int(trail.ID))) {
		t.Fatalf("after the restart: %+v", second)
	}
	if rows := firingRows(t, h, before.Alerts[0].ID); len(rows) != 1 {
		t.Fatalf("%d rows for one firing: %+v", len(rows), rows)
	}
}

// skipUntilRun skips while the engine of this build does not run working
// orders yet (the contract's placeholder answers so); the runner lands
// with issue 26's engine work.
func skipUntilRun(t *testing.T, err error) {
	t.Helper()
	if err != nil && strings.Contains(err.Error(), "not run by this build yet") {
		t.Skip("the engine of this build does not run working orders yet: " + err.Error())
	}
}

// waitOutcome waits for the desk's outcome of alert id (its JSON line).
func waitOutcome(t *testing.T, out *testkit.SyncBuffer, id int) OutcomeJSON {
	t.Helper()
	var got OutcomeJSON
	testkit.WaitFor(t, "alert "+itoa(id)+"'s outcome", 30*time.Second, func() bool {
		var ok bool
		got, ok = outcomesOf(out.String())[id]
		return ok
	})
	return got
}

// outcomesOf reads the outcomes of alerts' actions in a host's --json
// output, by alert.
func outcomesOf(s string) map[int]OutcomeJSON {
	out := map[int]OutcomeJSON{}
	for _, line := range strings.Split(s, "\n") {
		var o OutcomeJSON
		if json.Unmarshal([]byte(line), &o) == nil && o.Event == "alert action" {
			out[o.Alert] = o
		}
	}
	return out
}

// An alert tightens a trailing stop in the engine: the trail is the new
// one, and the row says so.
func TestAlertTightensATrail(t *testing.T) {
	h, out, trail := deskWithTrail(t, filepath.Join(t.TempDir(), "alerts.json"))
	id := itoa(int(trail.ID))
	a, err := addAlert(h, "SPOT_BTC_USDT above 1 then tighten trail "+id+" 4%")
	if err != nil {
		t.Fatal(err)
	}
	o := waitOutcome(t, out, a.ID)
	if !o.OK {
		skipUntilRun(t, errors.New(o.Text))
		t.Fatalf("tighten: %+v", o)
	}
	got, _ := h.algos.Engine().Get(trail.ID)
	if !got.Spec.TrailPercent.Equal(decimal.NewFromInt(4)) || got.State.Final() {
		t.Fatalf("the trail after the alert: %s (%s)", got.Spec.TrailPercent, got.State)
	}
	if rows := firingRows(t, h, a.ID); len(rows) != 1 || rows[0].result != "done: tightened algo #"+id+" trail to 4%" {
		t.Fatalf("rows: %+v", rows)
	}
}

// An alert pauses a chase in the engine (its open order cancelled at the
// venue), another resumes it; each is a row with its result. A resume
// whose algo is working is refused by the engine when it fires, and said.
func TestAlertPausesAndResumesAChase(t *testing.T) {
	h, out := deskHost(t, filepath.Join(t.TempDir(), "alerts.json"))
	chase, err := h.algos.Add(mustSpec(t, "chase SPOT_BTC_USDT buy 0.001 offset 50"), algo.Confirm{})
	skipUntilRun(t, err)
	if err != nil {
		t.Fatal(err)
	}
	id := itoa(int(chase.ID))
	testkit.WaitFor(t, "the chase working", 20*time.Second, func() bool {
		a, _ := h.algos.Engine().Get(chase.ID)
		return a.State == algo.StateWorking
	})
	pause, err := addAlert(h, "SPOT_BTC_USDT above 1 then pause chase "+id)
	if err != nil {
		t.Fatal(err)
	}
	if o := waitOutcome(t, out, pause.ID); !o.OK || !strings.Contains(o.Text, "paused algo #"+id+" chase") {
		t.Fatalf("pause: %+v", o)
	}
	got, _ := h.algos.Engine().Get(chase.ID)
	if got.State != algo.StatePaused || !strings.Contains(got.Reason, "alert "+itoa(pause.ID)) {
		t.Fatalf("after the pause: %s %q", got.State, got.Reason)
	}
	for _, c := range got.Children {
		if c.Status == "NEW" || c.Status == "PARTIAL_FILLED" {
			t.Fatalf("a paused chase has an open order: %+v", c)
		}
	}
	resume, err := addAlert(h, "SPOT_BTC_USDT above 1 then resume "+id)
	if err != nil {
		t.Fatal(err)
	}
	if o := waitOutcome(t, out, resume.ID); !o.OK {
		t.Fatalf("resume: %+v", o)
	}
	if got, _ := h.algos.Engine().Get(chase.ID); got.State != algo.StateWorking {
		t.Fatalf("after the resume: %s", got.State)
	}
	again, err := addAlert(h, "SPOT_BTC_USDT above 1 then resume "+id)
	if err != nil {
		t.Fatal(err)
	}
	if o := waitOutcome(t, out, again.ID); o.OK || !strings.Contains(o.Text, "not paused") {
		t.Fatalf("a resume of a working chase: %+v", o)
	}
	for alert, want := range map[int]string{pause.ID: "done: paused algo #" + id, resume.ID: "done: resumed algo #" + id, again.ID: "refused: "} {
		if rows := firingRows(t, h, alert); len(rows) != 1 || !strings.HasPrefix(rows[0].result, want) {
			t.Fatalf("alert %d's rows: %+v", alert, rows)
		}
	}
}

// `tradedeck alerts` watches read-only and runs no engine: an alert that
// acts, added by another process to the shared file, fires and tells,
// and its action is said not done here (a line on stdout), never done.
func TestReadOnlyHostTellsButDoesNotAct(t *testing.T) {
	path := filepath.Join(t.TempDir(), "alerts.json")
	if _, err := alerts.NewStore(path).Update(func(f *alerts.File) error {
		alerts.AddTo(f, alerts.Alert{Symbol: "SPOT_BTC_USDT", Kind: alerts.KindPrice, Op: alerts.Above, Level: decimal.NewFromInt(1),
			Source: alerts.Last, Created: time.Now(), Then: &alerts.Action{Verb: alerts.VerbPause, Algo: 4}})
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	var out, log testkit.SyncBuffer
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	h, err := StartHeadless(ctx, HeadlessOptions{VenueChoice: VenueChoice{Seed: 1}, Config: config.Defaults(), Alerts: alerts.NewStore(path),
		Out: &out, Log: &log})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	runCtx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- h.Run(runCtx) }()
	testkit.WaitFor(t, "the action's line", 30*time.Second, func() bool { return strings.Contains(out.String(), " action REFUSED ") })
	stop()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	s := out.String()
	if !strings.Contains(s, "crossed above 1 (then pause 4)") || !strings.Contains(s, "#1 action REFUSED alert 1: pause 4 not done here: ") {
		t.Fatalf("stdout:\n%s", s)
	}
	if _, err := addAlert(h, "SPOT_BTC_USDT above 1 then pause 4"); err == nil {
		t.Fatal("a read-only host added an alert that acts")
	}
}
