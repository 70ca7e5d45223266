package loadgen

import (
	"fmt"
	"os"
	"strconv"
	"strings"

	"tradedeck/venue"
)

// clockTicks is USER_HZ, the unit of /proc/PID/stat's CPU times (100 on
// every Linux platform Go supports).
const clockTicks = 100

// cpuTicks is the process's user+system CPU time in clock ticks.
func cpuTicks(pid int) (int64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, fmt.Errorf("%w: %v", ErrNoProc, err)
	}
	// The command name (field 2) may hold spaces: count from its ')'.
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	if len(f) < 13 {
		return 0, fmt.Errorf("loadgen: /proc/%d/stat: %d fields", pid, len(f))
	}
	utime, err1 := strconv.ParseInt(f[11], 10, 64) // field 14
	stime, err2 := strconv.ParseInt(f[12], 10, 64) // field 15
	if err1 != nil || err2 != nil {
		return 0, fmt.Errorf("loadgen: /proc/%d/stat: bad CPU times", pid)
	}
	return utime + stime, nil
}

// rssMB is the process's resident set in MB.
func rssMB(pid int) (float64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, fmt.Errorf("%w: %v", ErrNoProc, err)
	}
	for _, l := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(l, "VmRSS:"); ok {
			kb, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 64)
			if err != nil {
				return 0, err
			}
			return kb / 1024, nil
		}
	}
	return 0, fmt.Errorf("loadgen: /proc/%d/status: no VmRSS", pid)
}

// Table formats results as a markdown table.
func Table(label string, rs []Result) string {
	var b strings.Builder
	b.WriteString("| design | viewers | market | server CPU (% of a core) | server RSS | venue WS connections | bytes/s per viewer | late joiner first frame | frame delay healthy | with one stalled |\n")
	b.WriteString("|---|---|---|---|---|---|---|---|---|---|\n")
	for _, r := range rs {
		fmt.Fprintf(&b, "| %s | %d | %s | %.0f | %.0f MB | %d | %.1f K | %d ms | %.1f ms | %.1f ms |\n",
			label, r.Sessions, r.Market, r.CPUPercent, r.RSSMB, r.VenueConns, r.BytesPerViewer/1000,
			r.FirstFrame.Milliseconds(), float64(r.DelayHealthy.Microseconds())/1000, float64(r.DelayWithStall.Microseconds())/1000)
	}
	return b.String()
}

// LiveConfig is a config file pointing `--live` at a venue's endpoints
// (the simulator's, on loopback).
func LiveConfig(e venue.Endpoints) string {
	return fmt.Sprintf("[live]\nbase_url = %q\npublic_history_url = %q\nws_market_url = %q\nws_private_url = %q\nstats_url = %q\n",
		e.BaseURL, e.PublicHistoryURL, e.WSMarketURL, e.WSPrivateURL, e.StatsURL)
}
