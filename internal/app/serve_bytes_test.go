package app

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"charm.land/log/v2"

	"tradedeck/serve/loadgen"
	"tradedeck/serve/servetest"
	"tradedeck/sim"
	"tradedeck/sim/market"
)

// serveOnSim serves the dashboard (serve --live, sessions at pace) on a
// simulator in this process whose market runs at rate, and returns the
// target viewers connect to (this process, and the simulator's streams).
func serveOnSim(t *testing.T, rate float64, pace time.Duration) loadgen.Target {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	inst, err := sim.Start(ctx, sim.Options{Seed: 1, NoRateLimits: true, Living: sim.LivingOptions{Rate: rate}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { inst.Close() })
	cfgPath := filepath.Join(t.TempDir(), "config.toml")
	if err := os.WriteFile(cfgPath, []byte(loadgen.LiveConfig(inst.Endpoints)), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("TRADEDECK_API_KEY", inst.Credentials.APIKey)
	t.Setenv("TRADEDECK_API_SECRET", inst.Credentials.APISecret)
	t.Setenv("TRADEDECK_APPLICATION_ID", inst.Credentials.ApplicationID)
	user := servetest.NewKey(t)
	addr, _ := serveForTest(t, ServerOptions{
		Listen: "127.0.0.1:0", HostKey: filepath.Join(t.TempDir(), "host_key"), VenueChoice: VenueChoice{Live: true, Config: cfgPath},
		AuthorizedKeys: servetest.AuthorizedKeys(t, user), Pace: pace,
	}, log.New(io.Discard))
	return loadgen.Target{Addr: addr, Signer: user.Signer, PID: os.Getpid(),
		VenueConns: func() int { return inst.Streams.Stats().Connections }}
}

// busyViewers serves the dashboard on a busy market and opens one
// 160x48 viewer per sink, viewer i sending the environment env[i]
// (NAME=value).
func busyViewers(t *testing.T, sinks []*loadgen.ScreenBytes, env [][]string) []*loadgen.Viewer {
	t.Helper()
	target := serveOnSim(t, market.RateBusy, 0)
	var vs []*loadgen.Viewer
	for i, sb := range sinks {
		v, err := loadgen.Open(target, sb, env[i]...)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(v.Close)
		if err := v.WaitFirstFrame(30 * time.Second); err != nil {
			t.Fatal(err)
		}
		vs = append(vs, v)
	}
	return vs
}

// TestServeBytesAB is a tool: it compares session settings side by side
// on one busy market and says where each one's bytes go, per pane
// (TRADEDECK_BYTES_AB="TRADEDECK_PACE=0;TRADEDECK_PACE=400ms", each
// variant a comma-separated client environment; -v;
// TRADEDECK_BYTES_WINDOW=30s).
func TestServeBytesAB(t *testing.T) {
	ab := os.Getenv("TRADEDECK_BYTES_AB")
	if ab == "" {
		t.Skip("set TRADEDECK_BYTES_AB")
	}
	var sinks []*loadgen.ScreenBytes
	var env [][]string
	variants := strings.Split(ab, ";")
	for _, v := range variants {
		sinks = append(sinks, loadgen.NewScreenBytes(loadgen.Width, loadgen.Height))
		var e []string
		if v != "" && v != "default" {
			e = strings.Split(v, ",")
		}
		env = append(env, e)
	}
	viewers := busyViewers(t, sinks, env)
	time.Sleep(3 * time.Second) // warm-up: a measuring window, not synchronisation
	for _, sb := range sinks {
		sb.Reset()
	}
	window := 30 * time.Second
	if w, err := time.ParseDuration(os.Getenv("TRADEDECK_BYTES_WINDOW")); err == nil {
		window = w
	}
	time.Sleep(window)
	secs := window.Seconds()
	for i, sb := range sinks {
		total, writes := sb.Total()
		line := fmt.Sprintf("%-24s %6.0f B/s %5.1f frames/s", variants[i], float64(total)/secs, float64(writes)/secs)
		for _, p := range panesOf(sb.Text()) {
			line += fmt.Sprintf(" | %.8s %5.0f", p.title[2:], float64(sb.Region(p.x0, p.y0, p.x1, p.y1))/secs)
		}
		line += fmt.Sprintf(" | head %4.0f", float64(sb.Region(0, 0, loadgen.Width, 2))/secs)
		t.Log(line)
	}
	// Input to frame, the viewers taking turns (the same load for all).
	delays := make([][]time.Duration, len(viewers))
	for range 10 {
		for i, v := range viewers {
			d, err := v.Probe(30 * time.Second)
			if err != nil {
				t.Fatal(err)
			}
			delays[i] = append(delays[i], d)
		}
	}
	for i, ds := range delays {
		slices.Sort(ds)
		t.Logf("%-24s key to frame: median %v, max %v", variants[i], ds[len(ds)/2], ds[len(ds)-1])
	}
}

// On a busy market a 160x48 SSH viewer at the default pace stays within
// a generous bound of bytes per second: 20 K, where the target is 12 K
// and drawing every frame took 30-38 K (make bench-serve has the real
// figure: docs/serve.md). A viewer drawing every frame, on the same
// server and market, is logged for comparison only: on a loaded machine
// (or under -race) its frames, and so its bytes, are what the CPU
// leaves it.
func TestServeBusyBytesPerViewer(t *testing.T) {
	if testing.Short() {
		t.Skip("busy market over SSH")
	}
	paced := loadgen.NewScreenBytes(loadgen.Width, loadgen.Height)
	every := loadgen.NewScreenBytes(loadgen.Width, loadgen.Height)
	busyViewers(t, []*loadgen.ScreenBytes{paced, every}, [][]string{{"TRADEDECK_PACE=" + DefaultPace.String()}, {"TRADEDECK_PACE=0"}})
	time.Sleep(2 * time.Second) // warm-up: a measuring window, not synchronisation
	paced.Reset()
	every.Reset()
	const window = 6 * time.Second
	time.Sleep(window)
	p, _ := paced.Total()
	e, _ := every.Total()
	perSec := func(n int64) float64 { return float64(n) / window.Seconds() }
	t.Logf("busy, 160x48: %.0f bytes/s at pace %v, %.0f drawing every frame", perSec(p), DefaultPace, perSec(e))
	if p == 0 || perSec(p) > 20_000 {
		t.Errorf("paced viewer got %.0f bytes/s, want some and under 20000 (target 12000)", perSec(p))
	}
}

type paneRect struct {
	title          string
	x0, y0, x1, y1 int
}

// panesOf finds the boxes drawn on a screen by their top-left corners.
func panesOf(lines []string) []paneRect {
	var out []paneRect
	for y, l := range lines {
		r := []rune(l)
		for x, c := range r {
			if c != '╭' {
				continue
			}
			x1 := x + 1
			for x1 < len(r) && r[x1] != '╮' {
				x1++
			}
			y1 := y + 1
			for y1 < len(lines) && []rune(lines[y1])[x] != '╰' {
				y1++
			}
			out = append(out, paneRect{strings.Trim(string(r[x:x1]), "╭─ "), x, y, x1 + 1, y1 + 1})
		}
	}
	return out
}
