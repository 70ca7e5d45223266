package cli

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// every is the command line as main.go builds it.
var every = []Command{Sim, Serve, Watch, Alerts, Stats, Export, Record, Replay}

// run runs `tradedeck ARGS` as main does (fang, the respelling of old
// flags), with the state and config directories in a temporary home.
func run(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	home := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, "config"))
	t.Setenv("XDG_STATE_HOME", filepath.Join(home, "state"))
	t.Setenv("XDG_DATA_HOME", filepath.Join(home, "data"))
	var out, errs bytes.Buffer
	code = Main(context.Background(), Env{Stdout: &out, Stderr: &errs}, args, Dashboard, every...)
	return out.String(), errs.String(), code
}

// Every command's --help lists every one of its flags, by its long name.
func TestHelpListsEveryFlag(t *testing.T) {
	root := New(testEnv(), Dashboard, every...)
	cmds := []*cobra.Command{root}
	for _, c := range root.Commands() {
		cmds = append(cmds, c)
		cmds = append(cmds, c.Commands()...)
	}
	for _, c := range cmds {
		args := append(strings.Fields(strings.TrimPrefix(c.CommandPath(), "tradedeck")), "--help")
		out, errs, code := run(t, args...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errs)
		}
		n := 0
		check := func(f *pflag.Flag) {
			n++
			if !strings.Contains(out, "--"+f.Name) {
				t.Errorf("%v: help lacks --%s:\n%s", args, f.Name, out)
			}
		}
		c.LocalFlags().VisitAll(check)
		c.InheritedFlags().VisitAll(check)
		if c.Runnable() && n == 0 {
			t.Errorf("%v: no flags seen", args)
		}
	}
}

func TestVersion(t *testing.T) {
	out, _, code := run(t, "--version")
	if code != 0 || !strings.HasPrefix(out, "tradedeck version ") {
		t.Fatalf("exit %d: %q", code, out)
	}
	v, _ := buildVersion()
	if !strings.Contains(out, v) {
		t.Fatalf("%q lacks the build's version %q", out, v)
	}
}

// The bash completion script is valid bash, and completes a subcommand
// and a subcommand's subcommand through the binary's __complete.
func TestBashCompletion(t *testing.T) {
	script, errs, code := run(t, "completion", "bash")
	if code != 0 || !strings.Contains(script, "complete -o default -F __start_tradedeck tradedeck") {
		t.Fatalf("exit %d: %s\n%.300s", code, errs, script)
	}
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash")
	}
	path := filepath.Join(t.TempDir(), "tradedeck.bash")
	if err := os.WriteFile(path, []byte(script), 0o600); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(bash, "-n", path).CombinedOutput(); err != nil {
		t.Fatalf("bash -n: %v\n%s", err, out)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"__complete", "wat"}, "watch"},
		{[]string{"__complete", "alerts", "l"}, "list"},
		{[]string{"__complete", "serve", "--max"}, "--max-sessions"},
		{[]string{"__complete", "export", "fi"}, "fills"},
	} {
		out, _, _ := run(t, c.args...)
		if !strings.Contains(out, c.want) {
			t.Errorf("%v: %q lacks %q", c.args, out, c.want)
		}
	}
	for _, sh := range []string{"zsh", "fish"} {
		if out, _, code := run(t, "completion", sh); code != 0 || !strings.Contains(out, "tradedeck") {
			t.Errorf("completion %s: exit %d", sh, code)
		}
	}
}

// Flags work after the arguments in every command: each line reaches what
// only a parsed command line reaches (the config file's check, or the
// command's own), never a flag parse error.
func TestFlagsAfterArguments(t *testing.T) {
	cfg := filepath.Join(t.TempDir(), "missing.toml")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"alerts", "add", "SPOT_ETH_USDT", "above", "3500", "--live", "--config", cfg}, "missing.toml"},
		{[]string{"alerts", "list", "--config", cfg}, "missing.toml"},
		{[]string{"alerts", "rm", "1", "--config", cfg}, "missing.toml"},
		{[]string{"alerts", "--config", cfg}, "missing.toml"},
		{[]string{"--symbol", "X", "--config", cfg}, "missing.toml"},
		{[]string{"watch", "SPOT_ETH_USDT", "-v", "--config", cfg}, "missing.toml"},
		{[]string{"export", "fills", "--live", "--config", cfg}, "missing.toml"},
		{[]string{"record", "--symbols", "A", "--config", cfg}, "missing.toml"},
		{[]string{"replay", filepath.Join(t.TempDir(), "none.tdrec"), "--speed", "0"}, "--speed"},
		{[]string{"stats", "--period", "2w"}, "unknown period"},
		{[]string{"serve", "--trade"}, "--authorized-keys"},
		{[]string{"sim", "--rest-429", "2"}, "--rest-429"},
	} {
		_, errs, code := run(t, c.args...)
		if code == 0 || !strings.Contains(errs, c.want) {
			t.Errorf("%v: exit %d, %q; want an error naming %q", c.args, code, errs, c.want)
		}
	}
}

// A negative number is an argument, wherever flags are.
func TestNegativeNumberArgument(t *testing.T) {
	out, errs, code := run(t, "alerts", "add", "--json", "PERP_ETH_USDT", "pnl", "below", "-100", "--file", filepath.Join(t.TempDir(), "a.json"))
	if code != 0 || !strings.Contains(out, `"level":"-100"`) {
		t.Fatalf("exit %d: %s %s", code, out, errs)
	}
}

// Single-dash long flags of the old flag package still work, with one
// warning line naming the new spelling.
func TestSingleDashLongFlags(t *testing.T) {
	cfg := filepath.Join(t.TempDir(), "missing.toml")
	_, errs, code := run(t, "-live", "-config", cfg, "-fps=30")
	if code == 0 || !strings.Contains(errs, "missing.toml") {
		t.Fatalf("exit %d: %s", code, errs)
	}
	lines := strings.Split(strings.TrimSpace(errs), "\n")
	if len(lines) != 2 || !strings.Contains(lines[0], "-live -config -fps=30") || !strings.Contains(lines[0], "--live") {
		t.Fatalf("want one warning line, then the error:\n%s", errs)
	}
	// --v and --q, the old long names of -v and -q
	_, errs, _ = run(t, "watch", "X", "--v", "--config", cfg)
	if !strings.Contains(errs, "missing.toml") {
		t.Fatalf("watch --v: %s", errs)
	}
}

// An unknown command is named; a command's stray argument too.
func TestUnknownCommand(t *testing.T) {
	_, errs, code := run(t, "wach")
	if code == 0 || !strings.Contains(errs, `unknown command "wach"`) || !strings.Contains(errs, "watch") {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if _, errs, code := run(t, "stats", "extra"); code == 0 || !strings.Contains(errs, "unexpected arguments") {
		t.Fatalf("exit %d: %s", code, errs)
	}
}
