package e2e

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
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
	uni, syms := universe20(t)
	simCmd := exec.Command(bin, "sim", "--json", "--seed", "3", "--universe", uni)
	out, err := simCmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := simCmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = simCmd.Process.Kill(); _ = simCmd.Wait() })
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	var banner map[string]string
	if err := json.Unmarshal([]byte(line), &banner); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	quoted := make([]string, len(syms))
	for i, s := range syms {
		quoted[i] = strconv.Quote(s)
	}
	cfg := fmt.Sprintf("watchlist = [%s]\nsymbol = \"PERP_BTC_USDT\"\n[live]\nbase_url = %q\npublic_history_url = %q\nws_market_url = %q\nws_private_url = %q\nstats_url = %q\n",
		strings.Join(quoted, ", "), banner["base_url"], banner["public_history_url"], banner["ws_market_url"], banner["ws_private_url"], banner["stats_url"])
	cfgPath := filepath.Join(dir, "config.toml")
	if err := os.WriteFile(cfgPath, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := fmt.Sprintf("exec env HOME=%s TRADEDECK_API_KEY=%s TRADEDECK_API_SECRET=%s TRADEDECK_APPLICATION_ID=%s %s --live --config %s --fps 120",
		dir, banner["api_key"], banner["api_secret"], banner["application_id"], bin, cfgPath)
	s := start(t, 200, 60, cmd)
	s.waitFor("the book to fill", func(sc string) bool { return strings.Contains(sc, "spread") && bookRows(sc) >= 10 })
	pid, err := strconv.Atoi(strings.TrimSpace(s.run("display", "-p", "-t", s.name, "#{pane_pid}")))
	if err != nil {
		t.Fatal(err)
	}
	const window = 30 * time.Second
	d0, s0 := cpuTicks(t, pid), cpuTicks(t, simCmd.Process.Pid)
	time.Sleep(window)
	d1, s1 := cpuTicks(t, pid), cpuTicks(t, simCmd.Process.Pid)
	pctOf := func(ticks int64) float64 { return float64(ticks) / 100 / window.Seconds() * 100 }
	sc := s.screen()
	t.Logf("dashboard CPU %.1f%% of one core over %v (20 symbols, 200x60, 120 fps); simulator %.1f%%", pctOf(d1-d0), window, pctOf(s1-s0))
	t.Logf("status bar: %s", strings.Split(strings.TrimRight(sc, "\n"), "\n")[58])
}
