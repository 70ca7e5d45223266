package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"tradedeck/e2e/bintest"
)

// memRun is the real dashboard (tmux, 200x60) following a 100-symbol
// watchlist of a busy simulated venue that runs in another process
// (`tradedeck sim --rate busy`), as issue 18 measured it.
type memRun struct {
	t   *testing.T
	s   *tmux
	pid int
}

// memSample is one look at the running dashboard: resident memory from
// /proc and the market stream's messages/s from its own status bar.
type memSample struct {
	at       time.Duration
	rss, hwm float64 // MiB
	msgs     int     // market messages/s received; -1 when not on screen
}

func (m memSample) String() string {
	return fmt.Sprintf("%4.0fs RSS %.1f MiB (peak %.1f) market %d msg/s", m.at.Seconds(), m.rss, m.hwm, m.msgs)
}

func startMemRun(t *testing.T) *memRun {
	t.Helper()
	needTmux(t)
	bin := buildBinary(t)
	uni, syms := universe100(t)
	// TRADEDECK_MEASURE_PROFILES=dir: a heap profile of the run in dir
	// (written when the dashboard quits, see cmd_dashboard.go).
	prof := ""
	if pdir := os.Getenv("TRADEDECK_MEASURE_PROFILES"); pdir != "" {
		prof = "TRADEDECK_MEMPROFILE=" + filepath.Join(pdir, "dashboard-100-heap.pprof")
	}
	lr := startLiveRun(t, bin, liveSetup{w: 200, h: 60, simArgs: []string{"--seed", "7", "--universe", uni, "--rate", "busy"}, watchlist: syms, env: prof},
		func(sc string) bool {
			return strings.Contains(sc, "spread") && bookRows(sc) >= 10 && marketRate(sc) > 0
		})
	r := &memRun{t: t, s: lr.s, pid: lr.pid}
	if prof != "" {
		t.Cleanup(r.quit)
	}
	return r
}

// quit presses q and waits for the dashboard to end (a profile is
// written on a clean exit).
func (r *memRun) quit() {
	r.s.keys("q")
	r.s.exited(10 * time.Second)
}

func (r *memRun) sample(since time.Time) memSample {
	rss, hwm, err := bintest.Memory(r.pid)
	if err != nil {
		r.t.Fatalf("the dashboard process is gone: %v", err)
	}
	return memSample{at: time.Since(since), rss: float64(rss) / 1024, hwm: float64(hwm) / 1024, msgs: marketRate(r.s.screen())}
}

// run samples every `every` for total after a warm-up, logging each.
func (r *memRun) run(warmup, total, every time.Duration) []memSample {
	t0 := time.Now()
	time.Sleep(warmup) // the measurement's own pace: RSS after the start-up's fetches
	var out []memSample
	for end := time.Now().Add(total); ; {
		sm := r.sample(t0)
		out = append(out, sm)
		r.t.Log(sm)
		if sc := r.s.screen(); strings.Contains(sc, "panic") || strings.Contains(sc, "goroutine ") {
			r.t.Fatalf("the dashboard crashed:\n%s", sc)
		}
		if !time.Now().Before(end) {
			return out
		}
		time.Sleep(every)
	}
}

var marketRateRe = regexp.MustCompile(`market \S+ \S+ \d+ms (\d+)/s`)

// marketRate reads the market stream's messages/s off the status bar.
func marketRate(sc string) int { return screenInt(marketRateRe, sc) }

func summarize(ss []memSample) (medRSS, maxRSS float64, medMsgs int) {
	rss := make([]float64, len(ss))
	msgs := make([]int, len(ss))
	for i, s := range ss {
		rss[i], msgs[i] = s.rss, s.msgs
	}
	slices.Sort(rss)
	slices.Sort(msgs)
	return rss[len(rss)/2], rss[len(rss)-1], msgs[len(msgs)/2]
}

// TestDashboardMemory100: resident memory and messages/s of the real
// dashboard at 200x60 following 100 symbols of a busy venue, for a short
// while. The bound is generous (a leak or a per-symbol book for every
// watched symbol would cross it); the goal of 25 MiB is held by
// TestDashboardMemorySoak (make soak) and the figures are in docs/ui.md.
func TestDashboardMemory100(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end")
	}
	r := startMemRun(t)
	ss := r.run(5*time.Second, 10*time.Second, 2*time.Second)
	med, peak, msgs := summarize(ss)
	t.Logf("dashboard 200x60, 100 symbols, busy venue: RSS median %.1f MiB, max %.1f MiB; market stream %d msg/s", med, peak, msgs)
	if peak > 40 {
		t.Errorf("RSS %.1f MiB (goal 25 MiB)", peak)
	}
	if msgs <= 0 || msgs > 1000 {
		t.Errorf("market stream %d msg/s: the watchlist should ride the all-symbol topics (a few hundred/s)", msgs)
	}
}

// TestDashboardMemorySoak is the same for TRADEDECK_SOAK_DURATION (make
// soak SOAK=1h), sampled every 30 s: RSS stays within 25 MiB and flat.
func TestDashboardMemorySoak(t *testing.T) {
	total := soakDuration(t)
	r := startMemRun(t)
	ss := r.run(30*time.Second, total, 30*time.Second)
	med, peak, msgs := summarize(ss)
	t.Logf("dashboard 200x60, 100 symbols, busy venue, %v: RSS median %.1f MiB, max %.1f MiB; market stream %d msg/s", total, med, peak, msgs)
	if peak > 25 {
		t.Errorf("RSS peaked at %.1f MiB: goal 25 MiB", peak)
	}
	if n := len(ss); n >= 4 {
		early, late := ss[n/4].rss, ss[n-1].rss
		if late > early*1.15+1 {
			t.Errorf("RSS grew from %.1f MiB to %.1f MiB", early, late)
		}
	}
}
