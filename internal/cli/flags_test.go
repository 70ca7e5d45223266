package cli

import (
	"context"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/spf13/cobra"

	"tradedeck/internal/app"
	"tradedeck/serve"
)

// parseServeFlags runs `tradedeck serve ARGS` up to the server: the
// options it would run with, or the error it stops with.
func parseServeFlags(args []string) (app.ServerOptions, error) {
	var got app.ServerOptions
	err := execute(serveCommand(testEnv(), func(_ context.Context, o app.ServerOptions) error { got = o; return nil }), args)
	return got, err
}

// parseDashboardFlags runs `tradedeck ARGS` up to the dashboard.
func parseDashboardFlags(args []string) (app.Options, error) {
	var got app.Options
	err := execute(dashboardCommand(testEnv(), func(_ context.Context, o app.Options) error { got = o; return nil }), args)
	return got, err
}

// execute runs cmd alone (without main's respelling) on args.
func execute(cmd *cobra.Command, args []string) error {
	cmd.SetArgs(args)
	cmd.SetOut(io.Discard)
	cmd.SetErr(io.Discard)
	return cmd.Execute()
}

func testEnv() Env { return Env{Stdout: io.Discard, Stderr: io.Discard} }

// --pace is bounded; a client's TRADEDECK_PACE replaces it only when it
// is a duration within the same bounds.
func TestServePace(t *testing.T) {
	if fl, err := parseServeFlags(nil); err != nil || fl.Pace != app.DefaultPace {
		t.Fatalf("default pace %v, %v", fl.Pace, err)
	}
	for _, bad := range []string{"-1s", "3s"} {
		if _, err := parseServeFlags([]string{"--pace", bad}); err == nil {
			t.Errorf("--pace %s accepted", bad)
		}
	}
	for asked, want := range map[string]time.Duration{
		"": app.DefaultPace, "0": 0, "250ms": 250 * time.Millisecond, "2s": 2 * time.Second,
		"3s": app.DefaultPace, "-1s": app.DefaultPace, "fast": app.DefaultPace,
	} {
		if got := app.SessionPace(app.DefaultPace, asked); got != want {
			t.Errorf("TRADEDECK_PACE=%q: pace %v, want %v", asked, got, want)
		}
	}
}

// --trade and --live never start without an explicit authorized keys
// file: not ~/.ssh/authorized_keys, and never "any key on loopback".
func TestServeTradeAndLiveNeedAuthorizedKeys(t *testing.T) {
	for _, args := range [][]string{{"--trade"}, {"--live"}, {"--trade", "--live"}, {"--trade", "--listen", "127.0.0.1:0"}} {
		_, err := parseServeFlags(args)
		if err == nil || !strings.Contains(err.Error(), "--authorized-keys") || !strings.Contains(err.Error(), "tradedeck-role=trader") {
			t.Errorf("%v: %v", args, err)
		}
	}
	if _, err := parseServeFlags([]string{"--trade", "--authorized-keys", "/k"}); err != nil {
		t.Fatal(err)
	}
}

func TestServeFlags(t *testing.T) {
	f, err := parseServeFlags([]string{"--listen", "0.0.0.0:22", "--host-key", "/k", "--authorized-keys", "/a", "--live", "--trade", "--config", "/c.toml", "--seed", "9", "--max-sessions", "3"})
	if err != nil {
		t.Fatal(err)
	}
	if f.Listen != "0.0.0.0:22" || f.HostKey != "/k" || f.AuthorizedKeys != "/a" || !f.Live || !f.Trade || f.Config != "/c.toml" || f.Seed != 9 || f.MaxSessions != 3 {
		t.Fatalf("%+v", f)
	}
	if f, _ := parseServeFlags(nil); f.Listen != serve.DefaultListen || f.Trade {
		t.Fatalf("defaults %+v", f)
	}
	if _, err := parseServeFlags([]string{"extra"}); err == nil {
		t.Fatal("extra argument accepted")
	}
	if _, err := parseServeFlags([]string{"--max-sessions", "-1"}); err == nil {
		t.Fatal("negative --max-sessions accepted")
	}
}

// Every command that has --live has --staging, and it reaches openVenue.
func TestStagingFlagOnEveryLiveCommand(t *testing.T) {
	d, err := parseDashboardFlags([]string{"--staging"})
	if err != nil || !d.Staging || d.Live {
		t.Fatalf("dashboard %+v %v", d, err)
	}
	s, err := parseServeFlags([]string{"--staging", "--authorized-keys", "/a"})
	if err != nil || !s.Staging {
		t.Fatalf("serve %+v %v", s, err)
	}
	if _, err := parseServeFlags([]string{"--staging"}); err == nil {
		t.Fatal("serve --staging without --authorized-keys: a real account shown to any key")
	}
	for _, c := range []Command{Alerts, Record, Export, Watch, Stats} {
		cmd := c(testEnv())
		fs := cmd.Flags()
		if err := cmd.ParseFlags([]string{"--staging"}); err != nil {
			t.Fatalf("%s: %v", cmd.Name(), err)
		}
		if on, err := fs.GetBool("staging"); err != nil || !on {
			t.Fatalf("%s --staging: %v %v", cmd.Name(), on, err)
		}
	}
}

// statsMain runs `tradedeck stats ARGS` writing to stdout.
func statsMain(args []string, stdout io.Writer) error {
	return execute(Stats(Env{Stdout: stdout, Stderr: io.Discard}), args)
}

func TestDashboardFlags(t *testing.T) {
	f, err := parseDashboardFlags([]string{"--live", "--read-only", "--symbol", "SPOT_ETH_USDT", "--theme", "light", "--fps", "120", "--ascii", "--config", "/x.toml"})
	if err != nil {
		t.Fatal(err)
	}
	if !f.Live || !f.ReadOnly || f.Symbol != "SPOT_ETH_USDT" || f.Theme != "light" || f.FPS != 120 || !f.ASCII || f.Config != "/x.toml" {
		t.Fatalf("%+v", f)
	}
	if _, err := parseDashboardFlags([]string{"extra"}); err == nil {
		t.Fatal("stray argument accepted")
	}
}
