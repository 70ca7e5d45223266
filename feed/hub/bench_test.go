package hub

import (
	"context"
	"fmt"
	"syscall"
	"testing"
	"time"

	"tradedeck/feed"
	"tradedeck/venue"
)

// busyUpdate is one frame of a busy market: the focused book (100 levels
// a side) and trades, 100 watchlist bbos, an event.
func busyUpdate(seq uint64, symbols []string) *feed.Update {
	u := &feed.Update{Seq: seq, Books: map[string]*feed.Book{}, Trades: map[string]*feed.Trades{}, BBOs: map[string]feed.BBO{}}
	b := &feed.Book{Symbol: symbols[0], State: feed.Live, Version: seq}
	for i := int64(0); i < 100; i++ {
		b.Asks = append(b.Asks, feed.Level{Price: 1000 + i, Qty: 1})
		b.Bids = append(b.Bids, feed.Level{Price: 999 - i, Qty: 1})
	}
	u.Books[symbols[0]] = b
	u.Trades[symbols[0]] = &feed.Trades{Symbol: symbols[0], Rows: make([]feed.Trade, 200), Version: seq}
	for _, s := range symbols {
		u.BBOs[s] = feed.BBO{Symbol: s, Bid: 1, Ask: 2, TS: int64(seq)}
	}
	u.Events = []feed.Event{{Kind: feed.EventInfo, Text: "x"}}
	return u
}

// BenchmarkHubPublish is the hub's cost of one feed Update with n
// sessions reading, each showing the focused symbol and a 20-symbol
// watchlist: the same one (viewers of one desk's config) or each its own.
// cpu-ns/op is the process's CPU time (the hub, every session's goroutine
// and the screens' reads), which a loaded machine does not inflate as it
// does the wall time.
func BenchmarkHubPublish(b *testing.B) {
	var symbols []string
	for i := 0; i < 100; i++ {
		symbols = append(symbols, fmt.Sprintf("SPOT_T%02d_USDT", i))
	}
	for _, n := range []int{1, 10, 100, 200} {
		for _, same := range []bool{true, false} {
			name := fmt.Sprintf("sessions=%d/views=own", n)
			if same {
				name = fmt.Sprintf("sessions=%d/views=same", n)
			}
			b.Run(name, func(b *testing.B) { benchPublish(b, symbols, n, same) })
		}
	}
}

func benchPublish(b *testing.B, symbols []string, n int, same bool) {
	{
		{
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			h := New(feed.New(feed.Config{Endpoints: venue.Endpoints{BaseURL: "http://127.0.0.1:1"}}))
			for i := 0; i < n; i++ {
				wl := symbols[i%80 : i%80+20]
				if same {
					wl = symbols[:20]
				}
				s := h.Join(ctx, feed.View{Symbol: symbols[0], Watchlist: wl})
				go func() {
					for range s.Updates() { // a screen that keeps up
					}
				}()
			}
			us := []*feed.Update{busyUpdate(1, symbols), busyUpdate(2, symbols)}
			b.ReportAllocs()
			cpu0 := cpuTime()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				h.publish(us[i&1])
			}
			b.StopTimer()
			b.ReportMetric(float64(cpuTime()-cpu0)/float64(b.N), "cpu-ns/op")
		}
	}
}

// cpuTime is the process's user and system CPU time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
