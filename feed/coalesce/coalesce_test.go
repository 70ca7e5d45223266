package coalesce

import (
	"sync"
	"testing"
	"testing/synctest"
	"time"
)

type batch struct {
	events []int // must-deliver, in order
	last   int   // latest state value (lossy: only the newest matters)
}

// source is a producer: events appended at full speed, state overwritten.
type source struct {
	mu     sync.Mutex
	events []int
	state  int
	dirty  bool
}

func (s *source) collect(p *batch, fresh bool) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if fresh {
		*p = batch{}
	}
	if len(s.events) == 0 && !s.dirty {
		return !fresh
	}
	p.events = append(p.events, s.events...)
	s.events = s.events[:0]
	p.last = s.state
	s.dirty = false
	return true
}

func TestExactlyOnceInOrderUnderFastProducerSlowConsumer(t *testing.T) {
	src := &source{}
	const total = 200000
	ctx := t.Context()
	tick := make(chan time.Time)
	out := make(chan batch)
	go Run(ctx, tick, out, src.collect)

	ticks := 0
	stopTicks := make(chan struct{})
	tickDone := make(chan int)
	go func() { // the frame clock, as fast as the loop takes it
		n := 0
		for {
			select {
			case <-stopTicks:
				tickDone <- n
				return
			case tick <- time.Time{}:
				n++
				time.Sleep(200 * time.Microsecond)
			}
		}
	}()
	go func() { // a producer much faster than the frame rate
		for i := 1; i <= total; i++ {
			src.mu.Lock()
			src.events = append(src.events, i)
			src.state = i
			src.dirty = true
			src.mu.Unlock()
		}
	}()
	next, updates := 1, 0
	for next <= total {
		b := <-out
		updates++
		for _, e := range b.events {
			if e != next {
				t.Fatalf("event %d delivered where %d was due", e, next)
			}
			next++
		}
		if b.last < next-1 {
			t.Fatalf("state %d older than its own events (%d)", b.last, next-1)
		}
		time.Sleep(time.Millisecond) // a slow consumer (a render)
	}
	close(stopTicks)
	ticks = <-tickDone
	if updates > ticks {
		t.Fatalf("%d updates for %d frames", updates, ticks)
	}
	select {
	case b := <-out:
		if len(b.events) > 0 {
			t.Fatalf("events delivered twice: %v", b.events[:1])
		}
	case <-time.After(20 * time.Millisecond):
	}
	t.Logf("%d events in %d updates over %d frames", total, updates, ticks)
}

// Ticks without changes send nothing. In a synctest bubble, Wait returns
// once Run has handled every tick and blocks again, so "nothing" is exact,
// not "nothing within 20 ms"; and a change after them is sent.
func TestNothingSentWhenNothingChanged(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := &source{}
		tick := make(chan time.Time)
		out := make(chan batch, 1)
		go Run(t.Context(), tick, out, src.collect)
		for i := 0; i < 5; i++ {
			tick <- time.Time{}
		}
		synctest.Wait()
		select {
		case b := <-out:
			t.Fatalf("unexpected update %+v", b)
		default:
		}
		src.mu.Lock()
		src.state, src.dirty = 7, true
		src.mu.Unlock()
		tick <- time.Time{}
		synctest.Wait()
		select {
		case b := <-out:
			if b.last != 7 {
				t.Fatalf("update %+v, want the state 7", b)
			}
		default:
			t.Fatal("a change was not sent on the next tick")
		}
	})
}

func BenchmarkFrame(b *testing.B) {
	src := &source{}
	ctx := b.Context()
	tick := make(chan time.Time)
	out := make(chan batch)
	go Run(ctx, tick, out, src.collect)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		src.mu.Lock()
		src.state, src.dirty = i, true
		src.mu.Unlock()
		tick <- time.Time{}
		<-out
	}
}
