package exchange

import (
	"path/filepath"
	"testing"

	"github.com/shopspring/decimal"

	"tradedeck/sim/journal"
)

// BenchmarkPlaceCancelUser rests and cancels a user LIMIT order: filters,
// freezing, events, engine, release.
func BenchmarkPlaceCancelUser(b *testing.B) {
	f := newFixture(&testing.T{})
	f.book()
	req := limitReq("SPOT_BTC_USDT", Buy, "99.00", "0.5")
	b.ReportAllocs()
	for b.Loop() {
		o, err := f.ex.PlaceOrder(f.alice, req)
		if err != nil {
			b.Fatal(err)
		}
		if err := f.ex.Cancel(f.alice, "SPOT_BTC_USDT", o.ID); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkInternalCross is the market generator's path: an internal
// account rests a maker, another takes it (one fill, both settled).
func BenchmarkInternalCross(b *testing.B) { benchInternalCross(b, false) }

// BenchmarkInternalCrossStreaming is the same while the Websocket publisher
// captures the books (so every change records its level), one capture per
// 1000 rounds.
func BenchmarkInternalCrossStreaming(b *testing.B) { benchInternalCross(b, true) }

func benchInternalCross(b *testing.B, streaming bool) {
	f := newFixture(&testing.T{})
	if streaming {
		f.ex.CaptureBooks(0, nil)
	}
	mm := f.ex.InternalAccount("MM")
	taker := f.ex.InternalAccount("TAKER")
	ask := limitReq("SPOT_BTC_USDT", Sell, "101.00", "0.5")
	bid := limitReq("SPOT_BTC_USDT", Buy, "101.00", "0.5")
	i := 0
	b.ReportAllocs()
	for b.Loop() {
		if _, err := f.ex.PlaceOrder(mm, ask); err != nil {
			b.Fatal(err)
		}
		if _, err := f.ex.PlaceOrder(taker, bid); err != nil {
			b.Fatal(err)
		}
		if i++; streaming && i%1000 == 0 {
			f.ex.CaptureBooks(0, nil)
		}
	}
}

// BenchmarkUserCross is a user taking a user: fills with fees, balances,
// trades and order events on both sides (sides alternate and fees are off
// so neither account runs dry; fee arithmetic still runs, at rate zero it is skipped).
func BenchmarkUserCross(b *testing.B) {
	f := newFixture(&testing.T{})
	for _, a := range []*Account{f.alice, f.bob} { // fees would drain the accounts over millions of rounds
		a.taker, a.maker = decimal.Zero, decimal.Zero
	}
	sell := limitReq("SPOT_BTC_USDT", Sell, "101.00", "0.1")
	buy := limitReq("SPOT_BTC_USDT", Buy, "101.00", "0.1")
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		maker, taker := f.bob, f.alice
		if i%2 == 1 {
			maker, taker = f.alice, f.bob
		}
		i++
		if _, err := f.ex.PlaceOrder(maker, sell); err != nil {
			b.Fatal(err)
		}
		if _, err := f.ex.PlaceOrder(taker, buy); err != nil {
			b.Fatal(err)
		}
		if i%1024 == 0 { // keep the histories from growing across the run
			f.alice.trades, f.bob.trades = f.alice.trades[:0], f.bob.trades[:0]
			f.alice.orders, f.bob.orders = f.alice.orders[:0], f.bob.orders[:0]
			clear(f.ex.orders)
		}
	}
}

// BenchmarkOrderPath is a user LIMIT order placed and cancelled, each
// acknowledged as the REST layer does (Durable), without a journal, with
// one (one fsync per acknowledgement when alone), and with one under 8
// concurrent clients (group commit: one fsync serves many).
func BenchmarkOrderPath(b *testing.B) {
	for _, c := range []struct {
		name     string
		journal  bool
		parallel bool
	}{{"memory", false, false}, {"journal", true, false}, {"journal-8-clients", true, true}} {
		b.Run(c.name, func(b *testing.B) {
			f := newFixture(&testing.T{})
			f.book()
			if c.journal {
				j, err := journal.Open(filepath.Join(b.TempDir(), "state.json"), 1)
				if err != nil {
					b.Fatal(err)
				}
				defer j.Close()
				f.ex.SetJournal(j)
			}
			req := limitReq("SPOT_BTC_USDT", Buy, "99.00", "0.2")
			round := func() {
				o, err := f.ex.PlaceOrder(f.alice, req)
				if err != nil {
					b.Fatal(err)
				}
				if err := f.ex.Durable(); err != nil {
					b.Fatal(err)
				}
				if err := f.ex.Cancel(f.alice, "SPOT_BTC_USDT", o.ID); err != nil {
					b.Fatal(err)
				}
				if err := f.ex.Durable(); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportAllocs()
			if c.parallel {
				b.SetParallelism(8)
				b.RunParallel(func(pb *testing.PB) {
					for pb.Next() {
						round()
					}
				})
				return
			}
			for b.Loop() {
				round()
			}
		})
	}
}
