package feed

import (
	"context"
	"testing"
	"testing/synctest"
	"time"

	"github.com/shopspring/decimal"

	"tradedeck/feed/book"
	"tradedeck/feed/ws"
	"tradedeck/venue"
)

// TestHousekeepingSleepsUntilDue counts housekeeping's wake-ups on a
// fake clock (the 500 ms ticker it replaced woke it twice a second):
// with a live book and nothing else it wakes once a second, on the
// clock's whole seconds, for the rates; the book going stale wakes it at
// that moment (it was seen up to half a second late); an order tracked
// as pending wakes it, and the reconciliation that looks it up is asked
// for the moment it is overdue.
func TestHousekeepingSleepsUntilDue(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		time.Sleep(time.Second / 4) // the bubble starts on a whole second
		f := New(Config{Endpoints: venue.Endpoints{BaseURL: "http://127.0.0.1:1"}})
		f.setRules([]venue.SymbolRule{{Symbol: "S", QuoteTick: decimal.RequireFromString("0.01"), BaseTick: decimal.RequireFromString("0.1")}})
		f.health.status(mStream, ws.Status{State: ws.Live})
		s := f.mkt.syms["S"]
		s.book = &bookState{lastUpdate: time.Now(), shown: Live}
		s.book.sync.Snapshot(100, []book.Level{{Price: 101, Qty: 1}}, []book.Level{{Price: 99, Qty: 1}}, false)
		ctx, cancel := context.WithCancel(t.Context())
		done := make(chan struct{})
		go func() { f.housekeeping(ctx); close(done) }()
		defer func() { cancel(); <-done }()
		staleAt := time.Now().Add(f.cfg.BookStaleAfter)
		expect := func(what string, wakes int64, stale bool) {
			t.Helper()
			synctest.Wait()
			f.mkt.mu.Lock()
			marked := s.dirty&dBook != 0
			f.mkt.mu.Unlock()
			if got := f.houseWakes.Load(); got != wakes || marked != stale {
				t.Fatalf("%s: %d wake-ups, book marked %v; want %d and %v", what, got, marked, wakes, stale)
			}
		}
		time.Sleep(time.Second*3/4 - time.Millisecond)
		expect("before the first whole second", 0, false)
		time.Sleep(time.Millisecond)
		expect("the first whole second", 1, false)
		time.Sleep(9 * time.Second)
		expect("ten whole seconds", 10, false)
		time.Sleep(time.Until(staleAt))
		expect("the book 10 s old, not older", 10, false)
		time.Sleep(time.Nanosecond)
		expect("the book older than 10 s", 11, true)

		time.Sleep(time.Until(time.Now().Truncate(time.Second).Add(time.Second / 4))) // off the whole seconds again
		w := f.houseWakes.Load()
		f.acct.trackPending(Order{ClientOrderID: 7, Symbol: "S", Side: "BUY", Created: time.Now()})
		overdueAt := time.Now().Add(f.cfg.PendingTimeout)
		synctest.Wait()
		if got := f.houseWakes.Load(); got != w+1 {
			t.Fatalf("tracking a pending order: %d wake-ups, want 1", got-w)
		}
		time.Sleep(time.Until(overdueAt) - time.Nanosecond)
		synctest.Wait()
		if len(f.acct.reconcileReq) != 0 {
			t.Fatal("a reconciliation asked for before the pending order was overdue")
		}
		time.Sleep(time.Nanosecond)
		synctest.Wait()
		if len(f.acct.reconcileReq) != 1 {
			t.Fatal("no reconciliation asked for the moment the pending order was overdue")
		}
	})
}
