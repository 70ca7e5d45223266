package coalesce

import (
	"context"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"
)

// Every event exactly once and in order through RunOnDemand, a fast
// producer waking it after each change; collections are at least
// interval apart, so there are no more of them than intervals elapsed.
func TestOnDemandExactlyOnceInOrder(t *testing.T) {
	src := &source{}
	const total, interval = 100000, 2 * time.Millisecond
	w := NewWaker()
	out := make(chan batch)
	var collects atomic.Int64
	collect := func(p *batch, fresh bool) bool { collects.Add(1); return src.collect(p, fresh) }
	start := time.Now()
	go RunOnDemand(t.Context(), w, interval, out, collect)
	go func() {
		for i := 1; i <= total; i++ {
			src.mu.Lock()
			src.events = append(src.events, i)
			src.state, src.dirty = i, true
			src.mu.Unlock()
			w.Wake()
		}
	}()
	next := 1
	for next <= total {
		b := <-out
		for _, e := range b.events {
			if e != next {
				t.Fatalf("event %d delivered where %d was due", e, next)
			}
			next++
		}
		time.Sleep(time.Millisecond) // a slow consumer
	}
	if n, max := collects.Load(), int64(time.Since(start)/interval)+1; n > max {
		t.Fatalf("%d collections in %v: more than one per %v", n, time.Since(start), interval)
	}
}

// Without a change the coalescer does not collect at all (no frame clock);
// one change is collected and sent once.
func TestOnDemandSleepsWhileNothingChanges(t *testing.T) {
	src := &source{}
	w := NewWaker()
	out := make(chan batch, 1)
	var collects atomic.Int64
	collect := func(p *batch, fresh bool) bool { collects.Add(1); return src.collect(p, fresh) }
	go RunOnDemand(t.Context(), w, time.Millisecond, out, collect)
	time.Sleep(30 * time.Millisecond)
	if n := collects.Load(); n != 0 {
		t.Fatalf("%d collections with nothing changed, want 0", n)
	}
	src.mu.Lock()
	src.state, src.dirty = 7, true
	src.mu.Unlock()
	w.Wake()
	select {
	case b := <-out:
		if b.last != 7 {
			t.Fatalf("got state %d, want 7", b.last)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the change was not delivered")
	}
	time.Sleep(30 * time.Millisecond)
	if n := collects.Load(); n != 1 {
		t.Fatalf("%d collections for one change, want 1", n)
	}
	select {
	case b := <-out:
		t.Fatalf("sent twice: %+v", b)
	default:
	}
}

// A Waker signals once until the coalescer collects.
func TestWakerSignalsOncePerCollection(t *testing.T) {
	w := NewWaker()
	for range 100 {
		w.Wake()
	}
	if len(w.c) != 1 {
		t.Fatalf("%d signals pending, want 1", len(w.c))
	}
	<-w.c
	w.Wake()
	if len(w.c) != 0 {
		t.Fatal("signalled again before a collection")
	}
	w.armed.Store(false) // what a collection does
	w.Wake()
	if len(w.c) != 1 {
		t.Fatal("no signal after a collection")
	}
}

// TestOnDemandCollectsOnTheProducersWakeUp times the collections on a
// fake clock with a change every 3 ms and a 10 ms interval: after the
// first, each is at the first change once 10 ms have passed since the
// last (12, 24, ... ms: the producer's wake-up, no timer of the
// coalescer's own; the timer collected at 10, 20, ... ms), and a change
// that nothing follows is collected by the timer, half an interval after
// the interval passed. Every state reaches the consumer.
func TestOnDemandCollectsOnTheProducersWakeUp(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const interval = 10 * time.Millisecond
		src := &source{}
		w := NewWaker()
		out := make(chan batch)
		var mu sync.Mutex
		var at []time.Duration
		start := time.Now()
		collect := func(p *batch, fresh bool) bool {
			mu.Lock()
			at = append(at, time.Since(start))
			mu.Unlock()
			return src.collect(p, fresh)
		}
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		go RunOnDemand(ctx, w, interval, out, collect)
		var got atomic.Int64
		go func() {
			for {
				select {
				case b := <-out:
					got.Store(int64(b.last))
				case <-ctx.Done():
					return
				}
			}
		}()
		change := func(v int) {
			src.mu.Lock()
			src.state, src.dirty = v, true
			src.mu.Unlock()
			w.Wake()
			synctest.Wait()
		}
		for i := 0; i <= 20; i++ {
			change(i)
			time.Sleep(3 * time.Millisecond)
		}
		change(21) // at 63 ms, and nothing after it
		time.Sleep(20 * time.Millisecond)
		synctest.Wait()
		ms := time.Millisecond
		want := []time.Duration{0, 12 * ms, 24 * ms, 36 * ms, 48 * ms, 60 * ms, 75 * ms}
		mu.Lock()
		defer mu.Unlock()
		if !slices.Equal(at, want) {
			t.Fatalf("collections at %v, want %v", at, want)
		}
		if got.Load() != 21 {
			t.Fatalf("the consumer's last state %d, want 21", got.Load())
		}
	})
}
