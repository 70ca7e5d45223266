package ws

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/coder/websocket"

	"tradedeck/internal/testkit"
	"tradedeck/venue/stream"
)

// server is a scriptable Websocket venue on loopback.
type server struct {
	*httptest.Server
	mu       sync.Mutex
	received []string // every client frame, in order
	conns    atomic.Int32
	refuse   atomic.Bool // answer upgrades with 503
	handler  func(ctx context.Context, c *websocket.Conn, n int32)
}

func newServer(t *testing.T, h func(ctx context.Context, c *websocket.Conn, n int32)) *server {
	s := &server{handler: h}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if s.refuse.Load() {
			http.Error(w, "maintenance", http.StatusServiceUnavailable)
			return
		}
		c, err := websocket.Accept(w, r, nil)
		if err != nil {
			return
		}
		defer func() { _ = c.CloseNow() }() // the test is over either way
		n := s.conns.Add(1)
		s.handler(r.Context(), c, n)
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *server) url() string { return "ws" + strings.TrimPrefix(s.URL, "http") }

// readLoop records client frames until the connection ends.
func (s *server) readLoop(ctx context.Context, c *websocket.Conn) {
	for {
		_, b, err := c.Read(ctx)
		if err != nil {
			return
		}
		s.mu.Lock()
		s.received = append(s.received, string(b))
		s.mu.Unlock()
	}
}

func (s *server) count(substr string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, f := range s.received {
		if strings.Contains(f, substr) {
			n++
		}
	}
	return n
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	testkit.WaitFor(t, what, 10*time.Second, cond)
}

type statusLog struct {
	mu sync.Mutex
	l  []Status
}

func (s *statusLog) add(st Status) { s.mu.Lock(); s.l = append(s.l, st); s.mu.Unlock() }
func (s *statusLog) has(st State) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, x := range s.l {
		if x.State == st {
			return true
		}
	}
	return false
}

func TestSubscribeResubscribeAfterDrop(t *testing.T) {
	srv := newServer(t, nil)
	srv.handler = func(ctx context.Context, c *websocket.Conn, n int32) {
		if n == 1 {
			// First connection: wait for the subscription, push one frame, drop.
			waitFor(t, "subscribe", func() bool { return srv.count(`"subscribe"`) >= 2 })
			push(ctx, c, `{"topic":"A@trade","ts":1,"data":{}}`)
			time.Sleep(20 * time.Millisecond)
			return
		}
		go srv.readLoop(ctx, c)
		push(ctx, c, `{"topic":"A@trade","ts":2,"data":{}}`)
		<-ctx.Done()
	}
	srv.handler = wrapRead(srv, srv.handler)
	var got atomic.Int32
	var connects atomic.Int32
	var log statusLog
	c := New(Config{URL: srv.url(), Backoff: Backoff{Min: time.Millisecond, Max: 5 * time.Millisecond},
		OnFrame: func(f []byte, e *stream.Envelope, err error) {
			if err == nil && string(e.Topic) == "A@trade" {
				got.Add(1)
			}
		},
		OnConnect: func() { connects.Add(1) },
		OnStatus:  log.add})
	c.Subscribe("A@trade", "B@bbo")
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() { done <- c.Run(ctx) }()
	waitFor(t, "two frames over two connections", func() bool { return got.Load() == 2 })
	waitFor(t, "resubscribe", func() bool { return srv.count(`"subscribe"`) >= 4 })
	if c.Reconnects() != 1 || connects.Load() != 2 {
		t.Fatalf("reconnects %d connects %d", c.Reconnects(), connects.Load())
	}
	// Live subscribe and unsubscribe go out at once.
	c.Subscribe("C@ticker")
	c.Unsubscribe("B@bbo")
	waitFor(t, "live sub/unsub", func() bool {
		return srv.count(`"topic":"C@ticker"`) == 1 && srv.count(`"unsubscribe","topic":"B@bbo"`) == 1
	})
	if got := c.Topics(); strings.Join(got, ",") != "A@trade,C@ticker" {
		t.Fatal(got)
	}
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatal(err)
	}
	if !log.has(Reconnecting) || !log.has(Live) || !log.has(Stopped) {
		t.Fatalf("%+v", log.l)
	}
}

// wrapRead records client frames of the first connection too.
func wrapRead(srv *server, h func(ctx context.Context, c *websocket.Conn, n int32)) func(ctx context.Context, c *websocket.Conn, n int32) {
	return func(ctx context.Context, c *websocket.Conn, n int32) {
		if n == 1 {
			rctx, cancel := context.WithCancel(ctx)
			defer cancel()
			go srv.readLoop(rctx, c)
		}
		h(ctx, c, n)
	}
}

func TestPingPong(t *testing.T) {
	srv := newServer(t, nil)
	srv.handler = func(ctx context.Context, c *websocket.Conn, n int32) {
		go srv.readLoop(ctx, c)
		for ctx.Err() == nil {
			push(ctx, c, `{"event":"ping"}`)
			time.Sleep(10 * time.Millisecond)
		}
	}
	var frames atomic.Int32
	c := New(Config{URL: srv.url(), PingEvery: 30 * time.Millisecond,
		OnFrame: func([]byte, *stream.Envelope, error) { frames.Add(1) }})
	ctx := t.Context()
	go func() { _ = c.Run(ctx) }() // ends with ctx's error when the test ends
	waitFor(t, "pongs to server pings", func() bool { return srv.count(`{"event":"pong"}`) >= 3 })
	waitFor(t, "own pings", func() bool { return srv.count(`{"event":"ping"}`) >= 2 })
	if frames.Load() != 0 {
		t.Fatal("keep-alives must not reach OnFrame")
	}
}

func TestSilentConnectionGoesStaleThenReconnects(t *testing.T) {
	srv := newServer(t, nil)
	srv.handler = func(ctx context.Context, c *websocket.Conn, n int32) {
		go srv.readLoop(ctx, c)
		push(ctx, c, `{"topic":"A@trade","ts":1,"data":{}}`)
		<-ctx.Done() // then silence, without closing
	}
	var log statusLog
	c := New(Config{URL: srv.url(), PingEvery: time.Hour, StaleAfter: 60 * time.Millisecond, DeadAfter: 150 * time.Millisecond,
		Backoff: Backoff{Min: time.Millisecond}, OnStatus: log.add})
	ctx := t.Context()
	go func() { _ = c.Run(ctx) }() // ends with ctx's error when the test ends
	waitFor(t, "reconnect after silence", func() bool { return c.Reconnects() >= 1 })
	if !log.has(Stale) {
		t.Fatal("stale state not reported before the reconnect")
	}
}

func TestMalformedFrameIsReportedNotFatal(t *testing.T) {
	srv := newServer(t, func(ctx context.Context, c *websocket.Conn, n int32) {
		push(ctx, c, `{"topic":`)
		push(ctx, c, `{"topic":"A@trade","ts":1,"data":{}}`)
		<-ctx.Done()
	})
	var bad, good atomic.Int32
	c := New(Config{URL: srv.url(), OnFrame: func(f []byte, e *stream.Envelope, err error) {
		if err != nil {
			bad.Add(1)
		} else if e.IsPush() {
			good.Add(1)
		}
	}})
	ctx := t.Context()
	go func() { _ = c.Run(ctx) }() // ends with ctx's error when the test ends
	waitFor(t, "both frames", func() bool { return bad.Load() == 1 && good.Load() == 1 })
	if c.Reconnects() != 0 {
		t.Fatal("a malformed frame must not drop the connection")
	}
}

// fakeAfter records every requested wait and fires at once, so backoff
// timing is tested without sleeping.
type fakeAfter struct {
	mu    sync.Mutex
	waits []time.Duration
}

func (f *fakeAfter) After(d time.Duration) <-chan time.Time {
	f.mu.Lock()
	f.waits = append(f.waits, d)
	f.mu.Unlock()
	ch := make(chan time.Time, 1)
	ch <- time.Time{}
	return ch
}

func (f *fakeAfter) get() []time.Duration {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]time.Duration(nil), f.waits...)
}

func TestBackoffGrowsCapsAndJitters(t *testing.T) {
	srv := newServer(t, func(ctx context.Context, c *websocket.Conn, n int32) {})
	srv.refuse.Store(true)
	for _, r := range []float64{0, 0.999} {
		fa := &fakeAfter{}
		c := New(Config{URL: srv.url(), After: fa.After, Rand: func() float64 { return r },
			Backoff: Backoff{Min: 100 * time.Millisecond, Max: time.Second, Jitter: 0.5}})
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan struct{})
		go func() { _ = c.Run(ctx); close(done) }() // ends with ctx's error
		waitFor(t, "8 attempts", func() bool { return len(fa.get()) >= 8 })
		cancel()
		<-done
		base := []time.Duration{100, 200, 400, 800, 1000, 1000, 1000, 1000}
		for i, w := range fa.get()[:8] {
			want := base[i] * time.Millisecond
			want -= time.Duration(float64(want) * 0.5 * r)
			if w != want {
				t.Fatalf("r=%v attempt %d: waited %v, want %v (all %v)", r, i, w, want, fa.get())
			}
		}
	}
}

func TestBackoffResetsAfterAStableConnection(t *testing.T) {
	var drop atomic.Bool
	srv := newServer(t, func(ctx context.Context, c *websocket.Conn, n int32) {
		for !drop.Load() && ctx.Err() == nil {
			push(ctx, c, `{"topic":"x","ts":1,"data":{}}`)
			time.Sleep(5 * time.Millisecond)
		}
	})
	srv.refuse.Store(true)
	fa := &fakeAfter{}
	c := New(Config{URL: srv.url(), After: fa.After, Rand: func() float64 { return 0 },
		Backoff: Backoff{Min: 10 * time.Millisecond, Max: time.Second, Stable: 50 * time.Millisecond}})
	ctx := t.Context()
	go func() { _ = c.Run(ctx) }() // ends with ctx's error when the test ends
	waitFor(t, "failures", func() bool { return len(fa.get()) >= 4 })
	srv.refuse.Store(false)
	waitFor(t, "a connection", func() bool { return srv.conns.Load() >= 1 })
	time.Sleep(80 * time.Millisecond)
	srv.refuse.Store(true)
	n := len(fa.get())
	drop.Store(true)
	waitFor(t, "the next failure", func() bool { return len(fa.get()) > n })
	if w := fa.get()[n]; w != 10*time.Millisecond {
		t.Fatalf("after a stable connection the backoff restarts at Min, got %v (%v)", w, fa.get())
	}
}

func TestAuthFailureBacksOffLong(t *testing.T) {
	srv := newServer(t, nil)
	srv.handler = func(ctx context.Context, c *websocket.Conn, n int32) {
		_, b, err := c.Read(ctx)
		if err != nil {
			return
		}
		var m map[string]any
		if err := json.Unmarshal(b, &m); err != nil {
			t.Errorf("auth frame %s: %v", b, err)
			return
		}
		push(ctx, c, `{"id":"`+m["id"].(string)+`","event":"auth","success":false,"ts":1}`)
		c.Close(websocket.StatusPolicyViolation, "auth")
	}
	fa := &fakeAfter{}
	var log statusLog
	c := New(Config{URL: srv.url(), After: fa.After, AuthBackoff: 42 * time.Second, OnStatus: log.add,
		Handshake: func(ctx context.Context, s *Session) error {
			if err := s.Send(stream.AppendAuth(nil, s.NextID(), "key", "sig", s.Now().UnixMilli())); err != nil {
				return err
			}
			var e stream.Envelope
			_, _, err := s.Read(&e)
			if err != nil {
				return err
			}
			if !e.Success {
				return ErrAuthFailed
			}
			return nil
		}})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() { _ = c.Run(ctx) }() // ends with ctx's error when the test ends
	waitFor(t, "two refusals", func() bool { return len(fa.get()) >= 2 })
	cancel()
	for _, w := range fa.get() {
		if w != 42*time.Second {
			t.Fatalf("auth failure waited %v", w)
		}
	}
	if !log.has(AuthFailed) || log.has(Live) {
		t.Fatalf("%+v", log.l)
	}
}

func TestStaleStreamTurnsLiveAgain(t *testing.T) {
	srv := newServer(t, nil)
	srv.handler = func(ctx context.Context, c *websocket.Conn, n int32) {
		go srv.readLoop(ctx, c)
		push(ctx, c, `{"topic":"A@trade","ts":1,"data":{}}`)
		time.Sleep(150 * time.Millisecond) // silent past StaleAfter, not DeadAfter
		for ctx.Err() == nil {
			push(ctx, c, `{"topic":"A@trade","ts":2,"data":{}}`)
			time.Sleep(5 * time.Millisecond)
		}
	}
	var log statusLog
	c := New(Config{URL: srv.url(), PingEvery: time.Hour, StaleAfter: 50 * time.Millisecond, DeadAfter: 5 * time.Second, OnStatus: log.add})
	ctx := t.Context()
	go func() { _ = c.Run(ctx) }() // ends with ctx's error when the test ends
	waitFor(t, "stale then live", func() bool {
		log.mu.Lock()
		defer log.mu.Unlock()
		n := len(log.l)
		for i, s := range log.l {
			if s.State == Stale {
				for _, s2 := range log.l[i+1 : n] {
					if s2.State == Live {
						return true
					}
				}
			}
		}
		return false
	})
	if c.Reconnects() != 0 {
		t.Fatal("a stale stream that recovers must not reconnect")
	}
}

// Subscribe and Unsubscribe never wait for the network: callers hold the
// feed's and the hub's locks, so a venue that stops reading must not
// hold up sessions joining or leaving. 20 MB of subscriptions to a venue
// that reads nothing (far past the sockets' buffers, where a write
// blocks) return at once; once the venue reads again, what was wanted
// arrives, the topic taken back before the writer got to it never does.
func TestSubscribeNeverWaitsForASlowVenue(t *testing.T) {
	reading := make(chan struct{})
	last := make(chan struct{})
	var gone atomic.Bool
	srv := newServer(t, nil)
	srv.handler = func(ctx context.Context, c *websocket.Conn, n int32) {
		select { // not reading: the client's writes fill the buffers and block
		case <-reading:
		case <-ctx.Done():
			return
		}
		for {
			_, b, err := c.Read(ctx)
			if err != nil {
				return
			}
			if strings.Contains(string(b), "gone@trade") {
				gone.Store(true)
			}
			if strings.Contains(string(b), "last@trade") {
				close(last)
			}
		}
	}
	live := make(chan struct{}, 1)
	c := New(Config{URL: srv.url(), OnConnect: func() { live <- struct{}{} }})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() { done <- c.Run(ctx) }()
	defer func() {
		cancel()
		if err := <-done; !errors.Is(err, context.Canceled) {
			t.Errorf("Run ended with %v, want context.Canceled", err)
		}
	}()
	select {
	case <-live:
	case <-time.After(10 * time.Second):
		t.Fatal("not connected")
	}
	pad := strings.Repeat("x", 1000)
	start := time.Now()
	for i := range 20000 {
		c.Subscribe(fmt.Sprintf("T%05d@%s", i, pad))
		if i%2 == 1 {
			c.Unsubscribe(fmt.Sprintf("T%05d@%s", i-1, pad))
		}
	}
	c.Subscribe("last@trade")
	c.Subscribe("gone@trade")
	c.Unsubscribe("gone@trade")
	if d := time.Since(start); d > 5*time.Second {
		t.Fatalf("20000 subscriptions to a venue that does not read took %v", d)
	}
	close(reading)
	select {
	case <-last:
	case <-time.After(60 * time.Second):
		t.Fatal("the last subscription never arrived")
	}
	if gone.Load() {
		t.Fatal("a topic taken back before it was sent was sent")
	}
}

// push sends a frame from the test server; the client may be gone
// already, which the test sees on its side.
func push(ctx context.Context, c *websocket.Conn, frame string) {
	_ = c.Write(ctx, websocket.MessageText, []byte(frame))
}

// On the system clock the watchdog sleeps until its next deadline (a
// ping, or the silence turning stale or dead), not a second at a time; on
// an injected clock (a replay's) it keeps a fixed tick.
func TestWatchdogSleepsUntilItsNextDeadline(t *testing.T) {
	cfg := Config{PingEvery: 10 * time.Second, StaleAfter: 15 * time.Second, DeadAfter: 30 * time.Second}
	c := New(cfg)
	now := time.Now()
	c.lastFrame.Store(now.Add(-2 * time.Second).UnixNano())
	if got := c.nextCheck(now, now.Add(-4*time.Second)); got != 6*time.Second {
		t.Errorf("ping due in 6 s, stale in 13 s: sleeps %s, want 6s", got)
	}
	if got := c.nextCheck(now, now); got != 10*time.Second {
		t.Errorf("just pinged, stale in 13 s: sleeps %s, want 10s", got)
	}
	c.lastFrame.Store(now.Add(-12 * time.Second).UnixNano())
	if got := c.nextCheck(now, now); got != 3*time.Second {
		t.Errorf("silent 12 s: sleeps %s, want the 3 s to stale", got)
	}
	c.lastFrame.Store(now.Add(-16 * time.Second).UnixNano())
	if got := c.nextCheck(now, now); got != 10*time.Second {
		t.Errorf("stale already, dead in 14 s, ping in 10: sleeps %s, want 10s", got)
	}
	if got := c.nextCheck(now, now.Add(-11*time.Second)); got != time.Second {
		t.Errorf("a ping overdue (not live yet): sleeps %s, want the 1 s tick", got)
	}
	cfg.Now = func() time.Time { return now } // a replay's clock
	if got := New(cfg).nextCheck(now, now); got != time.Second {
		t.Errorf("injected clock: sleeps %s, want the 1 s tick", got)
	}
}
