package alerts

import (
	"context"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"tradedeck/feed"
)

// runEngine runs e.Run on the bubble's clock; stop ends it and waits.
func runEngine(t *testing.T, e *Engine) (stop func()) {
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan struct{})
	go func() { e.Run(ctx); close(done) }()
	return func() { cancel(); <-done }
}

// TestRunSleepsUntilAStreamAlertIsDue counts Run's wake-ups on a fake
// clock: an engine without a file whose stream alert's stream is up
// sleeps (the 250 ms ticker woke it 240 times a minute); a stream going
// down wakes it once, and it wakes again exactly when the alert is due,
// which fires then, not up to a tick later; the fired alert wakes
// nothing more until its stream is back and down again.
func TestRunSleepsUntilAStreamAlertIsDue(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var mu sync.Mutex
		var fired []Fired
		e, err := NewEngine(Options{OnFire: func(f Fired) { mu.Lock(); fired = append(fired, f); mu.Unlock() }})
		if err != nil {
			t.Fatal(err)
		}
		a, err := Parse(strings.Fields("stream market down 30s"), nil)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := e.Add(a); err != nil {
			t.Fatal(err)
		}
		defer runEngine(t, e)()
		synctest.Wait()
		w0 := e.wakes.Load()
		expect := func(what string, wakes int64, n int, at time.Time) {
			t.Helper()
			synctest.Wait()
			mu.Lock()
			defer mu.Unlock()
			if got := e.wakes.Load() - w0; got != wakes || len(fired) != n {
				t.Fatalf("%s: %d wake-ups, %d fired; want %d and %d", what, got, len(fired), wakes, n)
			}
			if n > 0 && !fired[n-1].Time.Equal(at) {
				t.Fatalf("%s: fired at %s, want %s", what, fired[n-1].Time, at)
			}
		}
		time.Sleep(time.Minute)
		expect("a minute with the stream up", 0, 0, time.Time{})

		down := time.Now()
		e.ObserveHealth(feed.Health{Stream: "market", State: feed.Reconnecting})
		time.Sleep(30*time.Second - time.Millisecond)
		expect("down for 30 s less 1 ms", 1, 0, time.Time{})
		time.Sleep(time.Millisecond)
		expect("down for 30 s", 2, 1, down.Add(30*time.Second))
		time.Sleep(time.Minute)
		expect("a minute more, fired", 2, 1, down.Add(30*time.Second))

		e.ObserveHealth(feed.Health{Stream: "market", State: feed.Connected})
		down = time.Now()
		e.ObserveHealth(feed.Health{Stream: "market", State: feed.StreamStale})
		time.Sleep(30 * time.Second)
		expect("a second outage of 30 s", 4, 2, down.Add(30*time.Second))
	})
}

// TestRunFlushesOnWholeSeconds: with a file, Run wakes once a second, on
// the clock's whole seconds, and picks up another process's alert within
// the second.
func TestRunFlushesOnWholeSeconds(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "alerts.json")
		e, err := NewEngine(Options{Store: NewStore(path)})
		if err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Second / 4) // the bubble starts on a whole second
		defer runEngine(t, e)()
		synctest.Wait()
		w0 := e.wakes.Load()
		time.Sleep(time.Second*3/4 - time.Millisecond)
		synctest.Wait()
		if got := e.wakes.Load() - w0; got != 0 {
			t.Fatalf("%d wake-ups before the first whole second", got)
		}
		time.Sleep(time.Millisecond)
		synctest.Wait()
		if got := e.wakes.Load() - w0; got != 1 {
			t.Fatalf("%d wake-ups at the first whole second, want 1", got)
		}
		time.Sleep(9 * time.Second)
		synctest.Wait()
		if got := e.wakes.Load() - w0; got != 10 {
			t.Fatalf("%d wake-ups in 10 s, want 10", got)
		}
		if _, err := NewStore(path).Update(func(f *File) error {
			a, err := Parse(strings.Fields("SPOT_BTC_USDT above 100"), nil)
			AddTo(f, a)
			return err
		}); err != nil {
			t.Fatal(err)
		}
		if len(e.List()) != 0 {
			t.Fatal("the other process's alert before the next whole second")
		}
		time.Sleep(time.Second)
		synctest.Wait()
		if l := e.List(); len(l) != 1 {
			t.Fatalf("a second after another process added an alert: %d alerts", len(l))
		}
	})
}
