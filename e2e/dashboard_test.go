// Package e2e drives the real tradedeck binary in tmux against its
// embedded simulated venue and reads the screen as a person would.
package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"tradedeck/e2e/bintest"
)

// tmux is one private tmux server (its own socket) running the binary.
type tmux struct {
	t      *testing.T
	socket string
	name   string
}

// needTmux fails the test when tmux is missing: a skipped end-to-end test
// would look like a passing one. (go test -short leaves them out on
// purpose.)
func needTmux(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Fatal("the end-to-end tests need tmux, which is not installed: install it (apt-get install tmux; .ci/run does) " +
			"or leave these tests out with go test -short")
	}
}

// tmuxTest starts a test of the binary in tmux: go test -short leaves it
// out, a missing tmux fails it; it returns the built binary.
func tmuxTest(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("end-to-end test")
	}
	needTmux(t)
	return buildBinary(t)
}

// buildBinary builds tradedeck into a temporary directory.
func buildBinary(t *testing.T) string {
	t.Helper()
	return bintest.Build(t, "..")
}

func start(t *testing.T, w, h int, command string) *tmux {
	t.Helper()
	s := &tmux{t: t, socket: fmt.Sprintf("tradedeck-e2e-%d-%d", os.Getpid(), time.Now().UnixNano()), name: "td"}
	s.run("new-session", "-d", "-s", s.name, "-x", fmt.Sprint(w), "-y", fmt.Sprint(h), command)
	t.Cleanup(func() { _ = exec.Command("tmux", "-L", s.socket, "kill-server").Run() })
	return s
}

// startBinary runs bin with args in tmux, with colour, UTF-8, and home as
// HOME and XDG_CONFIG_HOME so that no user config leaks in.
func startBinary(t *testing.T, w, h int, home, bin string, args ...string) *tmux {
	t.Helper()
	return start(t, w, h, fmt.Sprintf("env -u NO_COLOR HOME=%s XDG_CONFIG_HOME=%s LANG=C.UTF-8 %s %s", home, home, bin, strings.Join(args, " ")))
}

func (s *tmux) run(args ...string) string {
	s.t.Helper()
	out, err := exec.Command("tmux", append([]string{"-L", s.socket}, args...)...).CombinedOutput()
	if err != nil {
		s.t.Fatalf("tmux %v: %v\n%s", args, err, out)
	}
	return string(out)
}

func (s *tmux) screen() string { return s.run("capture-pane", "-p", "-t", s.name) }

func (s *tmux) keys(keys ...string) { s.run(append([]string{"send-keys", "-t", s.name}, keys...)...) }

// literal types text as is (no key-name lookup).
func (s *tmux) literal(text string) { s.run("send-keys", "-t", s.name, "-l", text) }

// waitFor polls the screen until cond holds; generous timeout, no sleeps
// tuned to the machine's speed.
func (s *tmux) waitFor(what string, cond func(string) bool) string {
	s.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	var last string
	for time.Now().Before(deadline) {
		last = s.screen()
		if cond(last) {
			return last
		}
		time.Sleep(100 * time.Millisecond)
	}
	s.t.Fatalf("timed out waiting for %s; screen:\n%s", what, last)
	return ""
}

// exited waits up to d for the program in tmux to end, as after q.
func (s *tmux) exited(d time.Duration) bool {
	for deadline := time.Now().Add(d); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		if exec.Command("tmux", "-L", s.socket, "has-session", "-t", s.name).Run() != nil {
			return true
		}
	}
	return false
}

// waitQuit fails the test unless the program ends within 15 s.
func (s *tmux) waitQuit() {
	s.t.Helper()
	if !s.exited(15 * time.Second) {
		s.t.Fatalf("q did not quit; screen:\n%s", s.screen())
	}
}

func contains(subs ...string) func(string) bool {
	return func(sc string) bool {
		for _, s := range subs {
			if !strings.Contains(sc, s) {
				return false
			}
		}
		return true
	}
}

// bookRows counts price rows of the book: lines of the book pane holding
// a price, a size and a cumulative total.
func bookRows(sc string) int {
	n := 0
	for _, l := range strings.Split(sc, "\n") {
		i := strings.Index(l, "│")
		if i < 0 {
			continue
		}
		// The book is the second box at 160 columns; count rows whose
		// second box starts with three numbers.
		parts := strings.Split(l, "│")
		if len(parts) < 5 {
			continue
		}
		f := strings.Fields(strings.TrimPrefix(parts[3], "•"))
		if len(f) == 3 && isNum(f[0]) && isNum(f[1]) && isNum(f[2]) {
			n++
		}
	}
	return n
}

func isNum(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if (r < '0' || r > '9') && r != '.' {
			return false
		}
	}
	return true
}

func TestDashboardInTmux(t *testing.T) {
	bin := tmuxTest(t)
	s := startBinary(t, 160, 48, t.TempDir(), bin, "--seed 7")

	// The book fills from the sim's moving market.
	sc := s.waitFor("the book to fill", func(sc string) bool {
		return strings.Contains(sc, "Book PERP_BTC_USDT") && strings.Contains(sc, "spread") && bookRows(sc) >= 10
	})
	if !strings.Contains(sc, " SIM ") || !strings.Contains(sc, "market • live") {
		t.Fatalf("no SIM banner or live market stream:\n%s", sc)
	}

	// '/' opens the picker; choose PERP_ETH_USDT.
	s.keys("/")
	s.waitFor("the symbol picker", contains("Symbol", "enter select"))
	s.literal("perp_eth")
	s.waitFor("the match", contains("• PERP_ETH_USDT"))
	s.keys("Enter")
	s.waitFor("the ETH book", func(sc string) bool {
		return strings.Contains(sc, "Book PERP_ETH_USDT") && strings.Contains(sc, "Trades PERP_ETH_USDT") && bookRows(sc) >= 10
	})

	// Interval change from the command line.
	s.keys(":")
	s.literal("interval 5m")
	s.keys("Enter")
	s.waitFor("the 5m chart", contains("Chart PERP_ETH_USDT 5m"))

	// Zoom the chart.
	s.keys("2", "z")
	sc = s.waitFor("the zoomed chart", contains("2 Chart PERP_ETH_USDT 5m", "z/esc unzoom"))
	if strings.Contains(sc, "Book PERP_ETH_USDT") {
		t.Fatalf("book still shown while the chart is zoomed:\n%s", sc)
	}
	s.keys("Escape")
	s.waitFor("the grid again", contains("Book PERP_ETH_USDT", "Chart PERP_ETH_USDT 5m"))

	// Resize: narrower layout, then too small, then back.
	s.run("resize-window", "-t", s.name, "-x", "100", "-y", "30")
	s.waitFor("the 100x30 layout", func(sc string) bool {
		lines := strings.Split(strings.TrimRight(sc, "\n"), "\n")
		return len(lines) == 30 && strings.Contains(sc, "Book PERP_ETH_USDT") && !strings.Contains(sc, "Watchlist")
	})
	s.run("resize-window", "-t", s.name, "-x", "70", "-y", "20")
	s.waitFor("the too-small message", contains("terminal too small", "80x24"))
	s.run("resize-window", "-t", s.name, "-x", "160", "-y", "48")
	s.waitFor("the full layout", contains("Watchlist", "Book PERP_ETH_USDT"))

	// q quits and gives the terminal back.
	s.keys("q")
	s.waitQuit()
}
