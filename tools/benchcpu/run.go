package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/creack/pty"

	"tradedeck/config"
	"tradedeck/e2e/bintest"
	"tradedeck/venue"
)

// result is one round of one workload.
type result struct {
	cpu      float64 // % of one core
	frames   float64 // per second
	bytes    float64 // per second
	rssKiB   int64   // at the end of the window
	peakKiB  int64   // VmHWM
	msgs     float64 // market messages per second (watch only)
	usPerMsg float64 // CPU µs per market message (watch only)
}

func (r result) String() string {
	s := fmt.Sprintf("CPU %.2f%%  frames %.1f/s  bytes %.0f/s  RSS %.1f MiB (peak %.1f)",
		r.cpu, r.frames, r.bytes, float64(r.rssKiB)/1024, float64(r.peakKiB)/1024)
	if r.msgs > 0 {
		s += fmt.Sprintf("  msgs %.0f/s  %.1f µs/msg", r.msgs, r.usPerMsg)
	}
	return s
}

// run measures one round of w in dir: a fresh simulator and a fresh
// measured process, both ended before it returns.
func run(bin, dir string, w workload, warmup, window time.Duration, extra []string, stderrFile string) (result, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return result{}, err
	}
	sim, banner, err := startSim(bin, append([]string{"--seed", "3"}, w.simArgs...))
	if err != nil {
		return result{}, err
	}
	defer stop(sim)
	cfg, err := writeConfig(dir, banner, w)
	if err != nil {
		return result{}, err
	}
	env := append(os.Environ(), "HOME="+dir, "XDG_CONFIG_HOME="+dir, "XDG_STATE_HOME="+dir, "XDG_DATA_HOME="+dir,
		"LANG=C.UTF-8", "TERM=xterm-256color", "TERM_PROGRAM=", "SSH_TTY=",
		config.EnvAPIKey+"="+banner.APIKey, config.EnvAPISecret+"="+banner.APISecret,
		config.EnvApplicationID+"="+banner.ApplicationID)
	env = append(cleanEnv(env), extra...)
	if w.watch != nil {
		return runWatch(bin, cfg, env, w, warmup, window)
	}
	return runDashboard(bin, cfg, env, w, warmup, window, stderrFile)
}

// cleanEnv drops the variables that make Bubble Tea skip its terminal
// queries (TERM_PROGRAM, SSH_TTY) and any TMUX of the caller.
func cleanEnv(env []string) []string {
	out := env[:0]
	for _, e := range env {
		if strings.HasPrefix(e, "TERM_PROGRAM=") || strings.HasPrefix(e, "SSH_TTY=") || strings.HasPrefix(e, "TMUX=") {
			continue
		}
		out = append(out, e)
	}
	return out
}

type banner struct {
	venue.Endpoints
	venue.Credentials
}

// startSim starts `bin sim --json args...` and reads its banner.
func startSim(bin string, args []string) (*exec.Cmd, banner, error) {
	cmd := exec.Command(bin, append([]string{"sim", "--json"}, args...)...)
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, banner{}, err
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		return nil, banner{}, err
	}
	lines := make(chan string, 1)
	go func() {
		l, _ := bufio.NewReader(out).ReadString('\n')
		lines <- l
		_, _ = io.Copy(io.Discard, out)
	}()
	var b banner
	select {
	case l := <-lines:
		if err := json.Unmarshal([]byte(l), &b); err != nil {
			stop(cmd)
			return nil, banner{}, fmt.Errorf("sim banner %q: %v (%s)", l, err, stderr.String())
		}
	case <-time.After(60 * time.Second):
		stop(cmd)
		return nil, banner{}, fmt.Errorf("sim: no banner in 60 s (%s)", stderr.String())
	}
	return cmd, b, nil
}

// stop ends a process (SIGTERM, then SIGKILL after 5 s) and reaps it.
func stop(cmd *exec.Cmd) {
	_ = cmd.Process.Signal(syscall.SIGTERM)
	reap(cmd)
}

// reap waits for cmd to end, killing it after 5 s.
func reap(cmd *exec.Cmd) {
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		_ = cmd.Process.Kill()
		<-done
	}
}

// writeConfig writes dir/config.toml: the workload's symbol and
// watchlist, the simulator as the [live] venue.
func writeConfig(dir string, b banner, w workload) (string, error) {
	var doc strings.Builder
	if w.watchlist != nil {
		q := make([]string, len(w.watchlist))
		for i, s := range w.watchlist {
			q[i] = strconv.Quote(s)
		}
		fmt.Fprintf(&doc, "watchlist = [%s]\n", strings.Join(q, ", "))
	}
	fmt.Fprintf(&doc, "symbol = %q\n[live]\nbase_url = %q\npublic_history_url = %q\nws_market_url = %q\nws_private_url = %q\nstats_url = %q\n",
		"PERP_BTC_USDT", b.BaseURL, b.PublicHistoryURL, b.WSMarketURL, b.WSPrivateURL, b.StatsURL)
	p := filepath.Join(dir, "config.toml")
	return p, os.WriteFile(p, []byte(doc.String()), 0o600)
}

// runDashboard runs the dashboard in a pty of w's size; its stderr goes
// to stderrFile when one is given (GODEBUG=gctrace=1).
func runDashboard(bin, cfg string, env []string, w workload, warmup, window time.Duration, stderrFile string) (result, error) {
	cmd := exec.Command(bin, append([]string{"--live", "--config", cfg}, w.flags...)...)
	cmd.Env = env
	if stderrFile != "" {
		f, err := os.Create(stderrFile)
		if err != nil {
			return result{}, err
		}
		defer f.Close()
		cmd.Stderr = f
	}
	tty, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: uint16(w.h), Cols: uint16(w.w)})
	if err != nil {
		return result{}, err
	}
	term := &terminal{tty: tty}
	defer func() { quit(cmd, tty); tty.Close() }()
	go term.read()
	time.Sleep(warmup)
	if w.keys != "" {
		if _, err := tty.Write([]byte(w.keys)); err != nil {
			return result{}, err
		}
		time.Sleep(2 * time.Second)
	}
	if f, _ := term.counts(); f == 0 {
		return result{}, fmt.Errorf("no frame in the warm-up (%s)", term.tail())
	}
	pid := cmd.Process.Pid
	c0, err := cpuTicks(pid)
	if err != nil {
		return result{}, err
	}
	f0, b0 := term.counts()
	time.Sleep(window)
	c1, err := cpuTicks(pid)
	if err != nil {
		return result{}, fmt.Errorf("%v (%s)", err, term.tail())
	}
	f1, b1 := term.counts()
	rss, peak, err := bintest.Memory(pid)
	if err != nil {
		return result{}, err
	}
	sec := window.Seconds()
	return result{cpu: float64(c1-c0) / ticksPerSec / sec * 100, frames: float64(f1-f0) / sec, bytes: float64(b1-b0) / sec,
		rssKiB: rss, peakKiB: peak}, nil
}

// quit quits the dashboard as a user does ("q": profiles are written on
// a clean exit), then stops it if it is still running after 5 s.
func quit(cmd *exec.Cmd, tty *os.File) {
	_, _ = tty.Write([]byte("\x1b")) // a dialog open (help) closes first
	time.Sleep(200 * time.Millisecond)
	_, _ = tty.Write([]byte("q"))
	reap(cmd)
}

var (
	syncOn    = []byte("\x1b[?2026h")
	syncQuery = []byte("\x1b[?2026$p")
)

// terminal reads the dashboard's output, counts frames (each opens
// synchronized output) and bytes, and answers the query for mode 2026 as
// a terminal that supports it (currently reset).
type terminal struct {
	tty    *os.File
	mu     sync.Mutex
	frames int64
	bytes  int64
	last   []byte // the tail of the previous read: a sequence split between reads
}

func (t *terminal) read() {
	buf := make([]byte, 64<<10)
	for {
		n, err := t.tty.Read(buf)
		if n > 0 {
			t.mu.Lock()
			joined := append(t.last, buf[:n]...)
			cut := max(0, len(t.last)-len(syncQuery)+1) // only sequences that end in this read
			t.frames += int64(bytes.Count(joined[cut:], syncOn))
			if bytes.Contains(joined[cut:], syncQuery) {
				_, _ = t.tty.Write([]byte("\x1b[?2026;2$y"))
			}
			t.bytes += int64(n)
			t.last = append(t.last[:0], joined[max(0, len(joined)-64):]...)
			t.mu.Unlock()
		}
		if err != nil {
			return
		}
	}
}

func (t *terminal) counts() (frames, bytes int64) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.frames, t.bytes
}

func (t *terminal) tail() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return strconv.Quote(string(t.last))
}

var msgRate = regexp.MustCompile(`\| market \S+ (\d+) msg/s`)

// runWatch runs `watch` on a pipe and reads the market stream's msg/s
// from its lines.
func runWatch(bin, cfg string, env []string, w workload, warmup, window time.Duration) (result, error) {
	cmd := exec.Command(bin, append(append([]string{"watch"}, w.watch...), "--live", "--config", cfg)...)
	cmd.Env = env
	out, err := cmd.StdoutPipe()
	if err != nil {
		return result{}, err
	}
	if err := cmd.Start(); err != nil {
		return result{}, err
	}
	defer stop(cmd)
	var mu sync.Mutex
	var rates []float64
	measuring := false
	go func() {
		sc := bufio.NewScanner(out)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		for sc.Scan() {
			if m := msgRate.FindStringSubmatch(sc.Text()); m != nil {
				v, _ := strconv.ParseFloat(m[1], 64)
				mu.Lock()
				if measuring {
					rates = append(rates, v)
				}
				mu.Unlock()
			}
		}
	}()
	time.Sleep(warmup)
	pid := cmd.Process.Pid
	c0, err := cpuTicks(pid)
	if err != nil {
		return result{}, err
	}
	mu.Lock()
	measuring = true
	mu.Unlock()
	time.Sleep(window)
	c1, err := cpuTicks(pid)
	if err != nil {
		return result{}, err
	}
	rss, peak, err := bintest.Memory(pid)
	if err != nil {
		return result{}, err
	}
	mu.Lock()
	msgs := medianOf(rates)
	mu.Unlock()
	sec := window.Seconds()
	r := result{cpu: float64(c1-c0) / ticksPerSec / sec * 100, rssKiB: rss, peakKiB: peak, msgs: msgs}
	if msgs > 0 {
		r.usPerMsg = float64(c1-c0) / ticksPerSec / sec / msgs * 1e6
	}
	return r, nil
}
