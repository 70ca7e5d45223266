package e2e

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"tradedeck/feed"
	"tradedeck/panes/common"
	"tradedeck/panes/panetest"
	"tradedeck/sim"
	"tradedeck/sim/market"
	"tradedeck/theme"
	"tradedeck/ui"
	"tradedeck/venue"
)

// frameProbe pairs updates with the first terminal write that can show
// them. An update becomes eligible once the model rendered a View after
// processing it; the next write is its frame.
type frameProbe struct {
	mu       sync.Mutex
	pending  []probeEntry // processed by Update, View not yet rendered
	eligible []probeEntry // rendered; waiting for the next write
	toBytes  []time.Duration
	fromTS   []time.Duration
	bytes    int
	writes   int
}

type probeEntry struct {
	received time.Time
	tradeTS  int64 // venue time of the newest trade of the focused symbol
}

func (p *frameProbe) Write(b []byte) (int, error) {
	now := time.Now()
	p.mu.Lock()
	p.bytes += len(b)
	p.writes++
	for _, e := range p.eligible {
		p.toBytes = append(p.toBytes, now.Sub(e.received))
		p.fromTS = append(p.fromTS, now.Sub(time.UnixMilli(e.tradeTS)))
	}
	p.eligible = p.eligible[:0]
	p.mu.Unlock()
	return len(b), nil
}

// probeModel wraps the root model to timestamp updates and views.
type probeModel struct {
	*ui.Model
	probe  *frameProbe
	symbol string
}

func (m probeModel) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	if u, ok := msg.(*feed.Update); ok {
		// Only updates that surely change the screen: a new trade of the
		// focused symbol enters the tape.
		if tr := u.Trades[m.symbol]; tr != nil && len(tr.Rows) > 0 {
			e := probeEntry{received: time.Now(), tradeTS: tr.Rows[0].TS}
			m.probe.mu.Lock()
			m.probe.pending = append(m.probe.pending, e)
			m.probe.mu.Unlock()
		}
	}
	_, cmd := m.Model.Update(msg)
	return m, cmd
}

func (m probeModel) View() tea.View {
	v := m.Model.View()
	m.probe.mu.Lock()
	m.probe.eligible = append(m.probe.eligible, m.probe.pending...)
	m.probe.pending = m.probe.pending[:0]
	m.probe.mu.Unlock()
	return v
}

func pct(d []time.Duration, q float64) float64 {
	if len(d) == 0 {
		return 0
	}
	s := slices.Clone(d)
	slices.Sort(s)
	return float64(s[min(len(s)-1, int(q*float64(len(s))))]) / float64(time.Millisecond)
}

// BenchmarkSimToBytes runs the embedded simulated venue with 20 symbols
// streaming (calm and busy synthetic markets), the real feed (frame interval 1/240 s) and the dashboard at
// 120 fps on a 200x60 screen, for b.N feed updates, and reports:
// update-to-bytes (an Update handed to the program -> its frame written)
// and trade-to-bytes (the venue's timestamp of the newest trade of the
// focused symbol -> the frame showing it written; includes the sim's push,
// the Websocket, the feed and the coalescer; ms resolution).
func BenchmarkSimToBytes(b *testing.B) {
	if testing.Short() {
		b.Skip("needs the simulator")
	}
	for _, rate := range []string{"calm", "busy"} {
		b.Run(rate, func(b *testing.B) { simToBytes(b, rate) })
	}
}

func simToBytes(b *testing.B, rate string) {
	r, err := market.ParseRate(rate)
	if err != nil {
		b.Fatal(err)
	}
	path, syms := universe20(b)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	inst, err := sim.Start(ctx, sim.Options{Seed: 3, Universe: path, Living: sim.LivingOptions{Rate: r}})
	if err != nil {
		b.Fatal(err)
	}
	defer inst.Close()
	client := venue.NewClient(inst.Endpoints, inst.Credentials)
	const symbol = "PERP_BTC_USDT"
	f := feed.New(feed.Config{Endpoints: inst.Endpoints, Credentials: inst.Credentials, REST: client,
		FrameInterval: time.Second / 240, Watchlist: syms, Symbol: symbol, Interval: "1m"})
	th, _ := theme.New("dark", false)
	root := ui.New(ui.Options{Venue: "SIM", Symbol: symbol, Interval: "1m", Watchlist: syms,
		Theme: th, Keys: panetest.Keys()})
	probe := &frameProbe{}
	p := tea.NewProgram(probeModel{Model: root, probe: probe, symbol: symbol}, tea.WithOutput(probe),
		tea.WithInput(nil), tea.WithFPS(120), tea.WithWindowSize(200, 60), tea.WithoutSignals(), tea.WithContext(ctx))
	go func() { _ = f.Run(ctx) }()
	done := make(chan struct{})
	go func() { defer close(done); _, _ = p.Run() }()

	// Warm up: wait for the book, then count b.N updates.
	n := 0
	deadline := time.After(60 * time.Second)
	for warm := true; ; {
		select {
		case u := <-f.Updates():
			if warm {
				if bk := u.Books[symbol]; bk != nil && bk.State == feed.Live && len(bk.Bids) > 5 {
					warm = false
					probe.mu.Lock()
					probe.toBytes, probe.fromTS, probe.bytes, probe.writes = nil, nil, 0, 0
					probe.mu.Unlock()
					b.ResetTimer()
				}
			} else {
				n++
			}
			p.Send(&u)
		case <-deadline:
			b.Fatalf("the feed did not deliver in time (warm %v, %d updates)", warm, n)
		}
		if n >= b.N {
			break
		}
	}
	time.Sleep(50 * time.Millisecond) // let the last frames out
	b.StopTimer()
	p.Send(common.NoticeMsg{}) // nothing; keeps the program busy-safe
	cancel()
	<-done
	probe.mu.Lock()
	defer probe.mu.Unlock()
	b.ReportMetric(pct(probe.toBytes, 0.5), "update-p50-ms")
	b.ReportMetric(pct(probe.toBytes, 0.99), "update-p99-ms")
	b.ReportMetric(pct(probe.fromTS, 0.5), "trade-p50-ms")
	b.ReportMetric(pct(probe.fromTS, 0.99), "trade-p99-ms")
	b.ReportMetric(float64(probe.bytes)/float64(max(probe.writes, 1)), "B/write")
}
