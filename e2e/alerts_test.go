package e2e

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// alertsEnv is a private home for one test: config with a hook that
// appends the alert's environment to a file, and its own state dir.
type alertsEnv struct {
	home, config, hookOut string
}

func newAlertsEnv(t *testing.T) alertsEnv {
	t.Helper()
	home := t.TempDir()
	e := alertsEnv{home: home, config: filepath.Join(home, "config.toml"), hookOut: filepath.Join(home, "hook.out")}
	// The hook program is sh (run without a shell by tradedeck; sh is just
	// the program here), writing the four variables to a file.
	script := `printf '%s|%s|%s|%s\n' "$TRADEDECK_ALERT_SYMBOL" "$TRADEDECK_ALERT_KIND" "$TRADEDECK_ALERT_VALUE" "$TRADEDECK_ALERT_MESSAGE" >> "$0"`
	cfg := fmt.Sprintf("[alerts]\ncommand = [\"sh\", \"-c\", %q, %q]\ncommand_timeout = \"5s\"\n", script, e.hookOut)
	if err := os.WriteFile(e.config, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	return e
}

func (e alertsEnv) prefix(bin string) string {
	return fmt.Sprintf("env -u NO_COLOR -u TMUX HOME=%s XDG_CONFIG_HOME=%s XDG_STATE_HOME=%s LANG=C.UTF-8 %s", e.home, e.home, e.home, bin)
}

// waitHook waits for a hook line containing want.
func (e alertsEnv) waitHook(t *testing.T, want string) string {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		b, _ := os.ReadFile(e.hookOut)
		for _, l := range strings.Split(string(b), "\n") {
			if strings.Contains(l, want) {
				return l
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	b, _ := os.ReadFile(e.hookOut)
	t.Fatalf("the hook never wrote a line with %q; it wrote:\n%s", want, b)
	return ""
}

// `:alert SYMBOL above PRICE` in the dashboard fires a notice and runs the
// hook; the alert is still listed after a restart; the book's alert key
// opens the command line at the selected level.
func TestAlertsInTmux(t *testing.T) {
	bin := tmuxTest(t)
	env := newAlertsEnv(t)
	cmd := fmt.Sprintf("%s --config %s --seed 7 --symbol SPOT_BTC_USDT", env.prefix(bin), env.config)
	s := start(t, 160, 48, cmd)
	s.waitFor("the book to fill", func(sc string) bool {
		return strings.Contains(sc, "Book SPOT_BTC_USDT") && bookRows(sc) >= 10
	})

	// A level every trade is above: the next trade crosses it.
	s.keys(":")
	s.literal("alert SPOT_BTC_USDT above 1")
	s.keys("Enter")
	s.waitFor("the alert set", contains("alert 1 set: SPOT_BTC_USDT last above 1"))
	s.waitFor("the alert's notice", contains("ALERT SPOT_BTC_USDT last"))
	line := env.waitHook(t, "SPOT_BTC_USDT|price|")
	if f := strings.Split(line, "|"); len(f) != 4 || !isNum(f[2]) || f[3] != "SPOT_BTC_USDT last "+f[2]+" crossed above 1" {
		t.Fatalf("hook line %q", line)
	}

	// A second one that will not fire, set from the book: select the best
	// ask and press the alert key; the command line holds the alert.
	s.keys("Up", "a")
	sc := s.waitFor("the prefilled command line", contains(":alert SPOT_BTC_USDT "))
	if !strings.Contains(sc, " above ") && !strings.Contains(sc, " below ") {
		t.Fatalf("the alert key did not prefill above/below:\n%s", sc)
	}
	s.keys("C-u")
	s.literal("alert SPOT_BTC_USDT below 1")
	s.keys("Enter")
	s.waitFor("the second alert", contains("alert 2 set: SPOT_BTC_USDT last below 1"))

	// The list shows both; the first fired.
	s.keys(":")
	s.literal("alerts")
	s.keys("Enter")
	s.waitFor("the fired tab (unread alerts open it)", contains("[Fired (1", "crossed above 1"))
	s.keys("Tab")
	s.waitFor("the alerts tab", contains("[Alerts (2)]", "fired   SPOT_BTC_USDT last above 1", "active  SPOT_BTC_USDT last below 1"))
	s.keys("Escape") // alone: ESC then q at once reads as alt+q
	s.waitFor("the dialog closed", func(sc string) bool { return !strings.Contains(sc, "Alerts (esc to close)") })
	s.keys("q")
	s.waitQuit()

	// After a restart the alerts are still there.
	s = start(t, 160, 48, cmd)
	s.waitFor("the book again", contains("Book SPOT_BTC_USDT"))
	s.keys(":")
	s.literal("alerts")
	s.keys("Enter")
	// The firing was read before the restart: the list opens on the alerts.
	s.waitFor("both alerts after the restart", contains("[Alerts (2)]", "Fired (1)",
		"fired   SPOT_BTC_USDT last above 1", "active  SPOT_BTC_USDT last below 1"))
}

// `tradedeck alerts` runs the same engine with no screen: it prints each
// alert (--json) and runs the hook; add, list and rm manage the file.
func TestAlertsHeadless(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end test")
	}
	bin := buildBinary(t)
	env := newAlertsEnv(t)
	run := func(args ...string) string {
		t.Helper()
		c := exec.Command(bin, append([]string{"alerts", "--config", env.config}, args...)...)
		c.Env = append(os.Environ(), "HOME="+env.home, "XDG_STATE_HOME="+env.home, "XDG_CONFIG_HOME="+env.home)
		out, err := c.CombinedOutput()
		if err != nil {
			t.Fatalf("alerts %v: %v\n%s", args, err, out)
		}
		return string(out)
	}
	if out := run("add", "SPOT_ETH_USDT", "above", "1"); out != "alert 1: SPOT_ETH_USDT last above 1 once\n" {
		t.Fatalf("add: %q", out)
	}
	run("add", "PERP_BTC_USDT", "pnl", "below", "-100")
	if out := run("rm", "2"); out != "alert 2 removed\n" {
		t.Fatalf("rm: %q", out)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	c := exec.CommandContext(ctx, bin, "alerts", "--config", env.config, "--json")
	c.Env = append(os.Environ(), "HOME="+env.home, "XDG_STATE_HOME="+env.home, "XDG_CONFIG_HOME="+env.home)
	stdout, err := c.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = c.Process.Kill(); _ = c.Wait() }()
	lines := bufio.NewScanner(stdout)
	if !lines.Scan() {
		t.Fatalf("no alert printed: %v", lines.Err())
	}
	var fired struct {
		Alert          int
		Symbol, Kind   string
		Value, Message string
	}
	if err := json.Unmarshal(lines.Bytes(), &fired); err != nil {
		t.Fatalf("not one JSON object: %q: %v", lines.Text(), err)
	}
	if fired.Alert != 1 || fired.Symbol != "SPOT_ETH_USDT" || fired.Kind != "price" || !strings.HasSuffix(fired.Message, "crossed above 1") {
		t.Fatalf("printed %+v", fired)
	}
	env.waitHook(t, "SPOT_ETH_USDT|price|"+fired.Value+"|"+fired.Message)
	// Stop it (as a service manager would) and read the file it kept.
	_ = c.Process.Signal(os.Interrupt)
	_ = c.Wait()
	out := run("list")
	rows := strings.Split(out, "\n")
	if len(rows) < 2 || !strings.HasPrefix(strings.Join(strings.Fields(rows[1]), " "), "1 fired SPOT_ETH_USDT last above 1 once 1 ") ||
		!strings.Contains(out, "last fired (1 unread)") || !strings.Contains(out, fired.Message) {
		t.Fatalf("list after the run:\n%s", out)
	}
}
