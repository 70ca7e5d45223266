package coalesce

import (
	"sync/atomic"
	"testing"
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
