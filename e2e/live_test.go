package e2e

import (
	"fmt"
	"strconv"
	"strings"
	"testing"

	"tradedeck/e2e/bintest"
)

// liveRun is the dashboard in tmux with a `tradedeck sim` process as its
// --live venue, following a watchlist: how the dashboard's costs are
// measured (CPU, memory), the simulator's own apart.
type liveRun struct {
	s   *tmux
	sim *bintest.Sim
	pid int // the dashboard's process
}

// liveSetup is what a liveRun runs: the sim's flags, the dashboard's
// watchlist (none: the default one) focused on PERP_BTC_USDT, environment
// before its command (a profile to write) and flags after it.
type liveSetup struct {
	w, h      int
	simArgs   []string
	watchlist []string
	env       string
	flags     string
}

// startLiveRun starts the sim, then the dashboard on it in a home of its
// own, and returns once ready holds on the screen.
func startLiveRun(t *testing.T, bin string, c liveSetup, ready func(string) bool) *liveRun {
	t.Helper()
	sim := bintest.StartSim(t, bin, c.simArgs...)
	home := t.TempDir()
	top := "symbol = \"PERP_BTC_USDT\"\n"
	if c.watchlist != nil {
		quoted := make([]string, len(c.watchlist))
		for i, s := range c.watchlist {
			quoted[i] = strconv.Quote(s)
		}
		top = fmt.Sprintf("watchlist = [%s]\n", strings.Join(quoted, ", ")) + top
	}
	cfg := sim.Banner.LiveConfig(t, home, top)
	s := start(t, c.w, c.h, fmt.Sprintf("exec env %s HOME=%s XDG_CONFIG_HOME=%s XDG_STATE_HOME=%s LANG=C.UTF-8 %s %s --live --config %s %s",
		c.env, home, home, home, strings.Join(sim.Banner.KeysEnv(), " "), bin, cfg, c.flags))
	s.waitFor("the dashboard ready", ready)
	return &liveRun{s: s, sim: sim, pid: s.pid()}
}

// pid is the process id of the program in tmux.
func (s *tmux) pid() int {
	s.t.Helper()
	pid, err := strconv.Atoi(strings.TrimSpace(s.run("display", "-p", "-t", s.name, "#{pane_pid}")))
	if err != nil {
		s.t.Fatal(err)
	}
	return pid
}
