package ui

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"tradedeck/feed"
)

// writeClock records when the program wrote to its "terminal".
type writeClock struct {
	mu     sync.Mutex
	after  time.Time
	notify chan time.Time
	bytes  int
}

func (w *writeClock) Write(p []byte) (int, error) {
	now := time.Now()
	w.mu.Lock()
	w.bytes += len(p)
	if !w.after.IsZero() && now.After(w.after) {
		w.after = time.Time{}
		w.notify <- now
	}
	w.mu.Unlock()
	return len(p), nil
}

func (w *writeClock) arm(t time.Time) {
	w.mu.Lock()
	w.after = t
	w.mu.Unlock()
}

// BenchmarkUpdateToBytes measures, in a running Bubble Tea program at
// 120 fps on a 200x60 screen, the time from a market update being handed
// to the program to the first bytes of the new frame reaching the output.
// Updates prepend a trade to the focused symbol's tape (no highlight that
// fades later, and the clock is fixed), so every write after a send is
// the frame showing it. Reports p50/p99 in ms.
func BenchmarkUpdateToBytes(b *testing.B) {
	for _, sz := range benchSizes {
		b.Run(fmt.Sprintf("%dx%d", sz[0], sz[1]), func(b *testing.B) { updateToBytes(b, sz[0], sz[1]) })
	}
}

func updateToBytes(b *testing.B, w, h int) {
	m := newTestModel(b, w, h, false)
	wc := &writeClock{notify: make(chan time.Time, 1)}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	p := tea.NewProgram(m, tea.WithOutput(wc), tea.WithInput(nil), tea.WithFPS(120),
		tea.WithWindowSize(w, h), tea.WithoutSignals(), tea.WithContext(ctx))
	done := make(chan struct{})
	go func() { defer close(done); _, _ = p.Run() }()
	time.Sleep(200 * time.Millisecond) // first full frame out
	base := m.store.Trades["PERP_BTC_USDT"]
	r := rand.New(rand.NewPCG(1, 2))
	lat := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		tr := *base
		row := base.Rows[i%len(base.Rows)]
		row.Qty += int64(i%97 + 1)
		row.TS = base.Rows[0].TS
		tr.Rows = append([]feed.Trade{row}, base.Rows[:len(base.Rows)-1]...)
		tr.Version = base.Version + uint64(i) + 1
		base = &tr
		t0 := time.Now()
		wc.arm(t0)
		p.Send(&feed.Update{Trades: map[string]*feed.Trades{"PERP_BTC_USDT": &tr}})
		select {
		case tw := <-wc.notify:
			lat = append(lat, tw.Sub(t0))
		case <-time.After(time.Second):
			b.Fatal("no frame written within a second of an update")
		}
		// Land at random phases of the frame ticker.
		time.Sleep(time.Duration(r.IntN(9000)) * time.Microsecond)
	}
	b.StopTimer()
	cancel()
	<-done
	slices.Sort(lat)
	pct := func(q float64) float64 {
		return float64(lat[min(len(lat)-1, int(q*float64(len(lat))))]) / float64(time.Millisecond)
	}
	b.ReportMetric(pct(0.50), "p50-ms")
	b.ReportMetric(pct(0.99), "p99-ms")
	b.ReportMetric(float64(wc.bytes)/float64(b.N), "out-B/update")
}
