package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// cpuTicks reads utime+stime of a process (clock ticks, 100 per second).
func cpuTicks(t *testing.T, pid int) int64 {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		t.Fatal(err)
	}
	f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+2:]))
	ut, _ := strconv.ParseInt(f[11], 10, 64)
	st, _ := strconv.ParseInt(f[12], 10, 64)
	return ut + st
}

// TestMeasureDashboardCPU measures the CPU of the running dashboard (the
// real binary, in tmux at 200x60, 120 fps) while 20 symbols stream from a
// separate simulator process (`tradedeck sim`), the dashboard connected to
// it as a live venue. A measurement, not an assertion: run with
// TRADEDECK_MEASURE=1 go test -run MeasureDashboardCPU -v ./e2e
func TestMeasureDashboardCPU(t *testing.T) {
	if os.Getenv("TRADEDECK_MEASURE") == "" {
		t.Skip("set TRADEDECK_MEASURE=1 to measure")
	}
	needTmux(t)
	bin := buildBinary(t)
	for _, fps := range []int{60, 120} {
		for _, rate := range []string{"calm", "busy", "stress"} {
			t.Run(fmt.Sprintf("%s-%dfps", rate, fps), func(t *testing.T) { measureCPU(t, bin, rate, fps) })
		}
	}
}

func measureCPU(t *testing.T, bin, rate string, fps int) {
	uni, syms := universe20(t)
	prof := ""
	if dir := os.Getenv("TRADEDECK_MEASURE_PROFILES"); dir != "" {
		prof = "TRADEDECK_CPUPROFILE=" + filepath.Join(dir, fmt.Sprintf("dashboard-%s-%dfps.pprof", rate, fps))
	}
	r := startLiveRun(t, bin, liveSetup{w: 200, h: 60, simArgs: []string{"--seed", "3", "--universe", uni, "--rate", rate},
		watchlist: syms, env: prof, flags: fmt.Sprintf("--fps %d", fps)},
		func(sc string) bool { return strings.Contains(sc, "spread") && bookRows(sc) >= 10 })
	s, sim, pid := r.s, r.sim, r.pid
	const window = 20 * time.Second
	d0, s0 := cpuTicks(t, pid), cpuTicks(t, sim.Cmd.Process.Pid)
	time.Sleep(window)
	d1, s1 := cpuTicks(t, pid), cpuTicks(t, sim.Cmd.Process.Pid)
	pctOf := func(ticks int64) float64 { return float64(ticks) / 100 / window.Seconds() * 100 }
	sc := s.screen()
	t.Logf("market %s: dashboard CPU %.1f%% of one core over %v (20 symbols, 200x60, %d fps); simulator %.1f%%", rate, pctOf(d1-d0), window, fps, pctOf(s1-s0))
	t.Logf("status bar: %s", strings.Split(strings.TrimRight(sc, "\n"), "\n")[58])
	if prof != "" {
		s.keys("q") // the profile is written on a clean exit
		s.exited(10 * time.Second)
	}
}
