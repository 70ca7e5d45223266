package app

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"

	"tradedeck/algo"
	"tradedeck/algo/report"
	"tradedeck/config"
)

const replayFixture = "../../replay/testdata/sim-perp-btc.tdrec"

// `tradedeck replay FILE --position ... --rehearse ...` prints the
// dry-run report; --json the same as JSON; bad input says what is wrong.
func TestReplayRehearsePrintsTheReport(t *testing.T) {
	var out bytes.Buffer
	rf := ReplayOptions{Path: replayFixture, Positions: []string{"PERP_BTC_USDT=0.02"}, Rehearse: []string{"stop PERP_BTC_USDT 96990"}, Out: &out}
	if err := RunReplay(context.Background(), rf, Options{}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"#1 stop PERP_BTC_USDT 96990 on bid", "state     done", "exit  SELL filled 0.02 of 0.02 (100%)", "stop   SELL  0.02 @ ", "fees in all: "} {
		if !strings.Contains(out.String(), want) {
			t.Fatalf("report lacks %q:\n%s", want, out.String())
		}
	}
	out.Reset()
	rf.JSON = true
	if err := RunReplay(context.Background(), rf, Options{}); err != nil {
		t.Fatal(err)
	}
	var rep struct {
		Algos []struct {
			State string
			Sides []struct{ Filled, Total string }
			Fills []struct{ Leg, Side, Qty string }
		}
	}
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	if len(rep.Algos) != 1 || rep.Algos[0].State != "done" || rep.Algos[0].Sides[0].Filled != "0.02" || rep.Algos[0].Fills[0].Leg != "stop" {
		t.Fatalf("JSON report %+v", rep)
	}
	for _, bad := range []struct {
		rf   ReplayOptions
		want string
	}{
		{ReplayOptions{Rehearse: []string{"stop PERP_ETH_USDT 3000"}}, "PERP_ETH_USDT is not in the recording"},
		{ReplayOptions{Rehearse: []string{"stop PERP_BTC_USDT"}}, "rehearse \"stop PERP_BTC_USDT\""},
		{ReplayOptions{Rehearse: []string{"stop PERP_BTC_USDT 96990"}, Positions: []string{"PERP_BTC_USDT"}}, "want SYMBOL=QTY"},
		{ReplayOptions{Rehearse: []string{"stop PERP_BTC_USDT 96990"}}, "nothing to protect"},
		{ReplayOptions{Rehearse: []string{"stop PERP_BTC_USDT 96990"}, Positions: []string{"PERP_BTC_USDT=0.02"}, From: time.Now()}, "before --from"},
	} {
		bad.rf.Path, bad.rf.Out = replayFixture, &out
		err := RunReplay(context.Background(), bad.rf, Options{})
		if err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("%+v: err %v, want %q", bad.rf, err, bad.want)
		}
	}
}

// The replay dashboard's account is a paper one on loopback: the desk's
// engine runs on the recorded market through it (the replay's clock),
// and the report collects its fills. No screen: the same wiring.
func TestReplayPaperAccountRunsTheEngine(t *testing.T) {
	dir, err := os.MkdirTemp("", "rp") // a Unix socket's path must stay short
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	t.Setenv("XDG_STATE_HOME", dir)
	t.Setenv("XDG_RUNTIME_DIR", dir)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	v, srv, inst, err := openReplayVenue(ctx, ReplayOptions{Path: replayFixture, Speed: 1, Paper: true}, Options{}, config.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	for _, u := range []string{inst.Endpoints.BaseURL, v.Endpoints.BaseURL, v.Endpoints.WSPrivateURL} {
		if !strings.Contains(u, "127.0.0.1") {
			t.Fatalf("a replay's account reaches %s: only loopback is allowed", u)
		}
	}
	if v.readOnly || !v.scratchAlerts {
		t.Fatalf("read-only %v, scratch alerts %v: a replay's paper account trades, its alerts stay notices", v.readOnly, v.scratchAlerts)
	}
	pr, stop, err := startReplayAccount(ctx, v, srv, inst, replayFixture)
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	waitFor(t, ctx, "the replay's clock to start (the feed and the paper venue subscribed)", func() bool { return srv.Status().Started })
	srv.SetPaused(true)
	waitFor(t, ctx, "the engine", func() bool { p, _ := v.Algos.Place(); return p == PlaceHere })
	spec, err := algo.Parse("bracket PERP_BTC_USDT buy 0.01 at market tp 97100 sl 96960")
	if err != nil {
		t.Fatal(err)
	}
	var a algo.Algo
	waitFor(t, ctx, "the bracket armed on a fresh price", func() bool {
		a, err = v.Algos.Add(spec, algo.Confirm{By: "test"})
		return err == nil
	})
	srv.SetSpeed(4) // the paper venue follows the market over its stream: at max speed the take-profit could rest after the print through it
	srv.SetPaused(false)
	<-srv.Done()
	var rep report.Report
	waitFor(t, ctx, "the bracket done", func() bool {
		rep, err = pr.build()
		if ctx.Err() == nil && time.Until(deadline(ctx)) < 2*time.Second {
			var b bytes.Buffer
			_ = rep.WriteText(&b)
			t.Logf("report so far:\n%s", b.String())
		}
		return err == nil && len(rep.Algos) == 1 && rep.Algos[0].State == "done"
	})
	run := rep.Algos[0]
	if run.Added.Before(rep.From) || run.Added.After(rep.To) {
		t.Fatalf("added at %s, outside the recording (%s to %s): the engine must run on the replay's clock", run.Added, rep.From, rep.To)
	}
	if run.ID != a.ID || len(run.Fills) < 2 || run.Sides[0].Filled.String() != "0.01" || run.Sides[1].Filled.String() != "0.01" ||
		run.Sides[1].AvgPrice.String() != "97100" || !run.Arrival.IsPositive() || !run.VWAP.IsPositive() {
		var b bytes.Buffer
		_ = rep.WriteText(&b)
		t.Fatalf("report:\n%s", b.String())
	}
}

func deadline(ctx context.Context) time.Time { d, _ := ctx.Deadline(); return d }

func waitFor(t *testing.T, ctx context.Context, what string, ok func() bool) {
	t.Helper()
	for !ok() {
		select {
		case <-ctx.Done():
			t.Fatalf("gave up waiting for %s", what)
		case <-time.After(20 * time.Millisecond):
		}
	}
}
