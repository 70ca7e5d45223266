package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"tradedeck/algo/store"
	"tradedeck/internal/app"
)

// `tradedeck alerts add ... then ...` checks the action against the
// account the flags name; with no engine running, against its database:
// a protective order cannot be paused, a finished algo or one that does
// not exist is refused, with the reason and nothing written; an action
// that fits is added and listed. The embedded simulated venue's algos
// live in the process that runs it: refused, saying where to add it.
func TestAlertsAddThenChecksTheAccount(t *testing.T) {
	home := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, "config"))
	t.Setenv("XDG_STATE_HOME", filepath.Join(home, "state"))
	t.Setenv("TRADEDECK_API_KEY", "AlertKey00000000000000A==")
	t.Setenv("TRADEDECK_API_SECRET", "ALERTSECRET000000000000000000000")
	t.Setenv("TRADEDECK_APPLICATION_ID", "11111111-2222-3333-4444-555555555555")
	cfg := filepath.Join(home, "config.toml")
	if err := os.WriteFile(cfg, []byte("[live]\nbase_url = \"http://127.0.0.1:1\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	acct, err := app.VenueChoice{Live: true, Config: cfg}.AlgoAccount()
	if err != nil {
		t.Fatal(err)
	}
	st, err := store.Open(acct.DB)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	for _, r := range []store.AlgoRow{
		{Kind: "trail", Line: "trail SPOT_BTC_USDT 10%", State: "armed"},
		{Kind: "chase", Line: "chase SPOT_BTC_USDT buy 0.1", State: "cancelled"},
		{Kind: "chase", Line: "chase SPOT_BTC_USDT buy 0.1", State: "working"},
	} {
		r.Account, r.Symbol, r.Side, r.Spec, r.Created, r.Updated = acct.Account, "SPOT_BTC_USDT", "SELL", "{}", now, now
		if err := st.Tx(func(tx *store.Tx) error { _, err := tx.InsertAlgo(r); return err }); err != nil {
			t.Fatal(err)
		}
	}
	st.Close()
	file := filepath.Join(home, "alerts.json")
	add := func(args ...string) (string, string, int) {
		var out, errs bytes.Buffer
		args = append([]string{"alerts", "add", "--file", file, "--live", "--config", cfg}, args...)
		code := Main(context.Background(), Env{Stdout: &out, Stderr: &errs}, args, Dashboard, every...)
		return out.String(), errs.String(), code
	}
	refused := map[string]string{
		"SPOT_BTC_USDT above 1 then pause 1":       "algo #1 is a trail: a protective order cannot be paused",
		"SPOT_BTC_USDT above 1 then cancel 2":      "algo #2 is cancelled already",
		"SPOT_BTC_USDT above 1 then cancel 9":      "no algo #9",
		"SPOT_BTC_USDT above 1 then pause trail 3": "algo #3 is a chase, not a trail",
		"SPOT_BTC_USDT above 1 then tighten 1 12%": "not tighter than #1's 10%",
	}
	for line, want := range refused {
		_, errs, code := add(strings.Fields(line)...)
		if code != 1 || !strings.Contains(errs, want) {
			t.Errorf("%q: exit %d, %q; want it refused saying %q", line, code, errs, want)
		}
	}
	if _, err := os.Stat(file); err == nil {
		t.Fatal("a refused alert was written")
	}
	for _, line := range []string{"SPOT_BTC_USDT below 90000 then pause chase 3", "SPOT_BTC_USDT above 110000 then tighten 1 5%"} {
		if out, errs, code := add(strings.Fields(line)...); code != 0 || !strings.Contains(out, "then "+strings.SplitN(line, "then ", 2)[1]) {
			t.Fatalf("%q: exit %d %q %q", line, code, out, errs)
		}
	}
	var out, errs bytes.Buffer
	if code := Main(context.Background(), Env{Stdout: &out, Stderr: &errs}, []string{"alerts", "list", "--file", file}, Dashboard, every...); code != 0 ||
		!strings.Contains(out.String(), "SPOT_BTC_USDT last below 90000 then pause chase 3") || !strings.Contains(out.String(), "then tighten 1 5%") {
		t.Fatalf("list: %d %q %q", code, out.String(), errs.String())
	}
	out.Reset()
	errs.Reset()
	code := Main(context.Background(), Env{Stdout: &out, Stderr: &errs}, []string{"alerts", "add", "--file", file, "SPOT_BTC_USDT", "above", "1", "then", "cancel", "1"}, Dashboard, every...)
	if code != 1 || !strings.Contains(errs.String(), "embedded simulated venue") {
		t.Fatalf("the embedded venue: %d %q", code, errs.String())
	}
}
