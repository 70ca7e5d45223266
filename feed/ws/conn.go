// Package ws is one resilient Websocket stream of the venue: it connects,
// runs a handshake (auth for the private stream), subscribes to its topics,
// answers the server's pings and pings on its own, notices a silent
// connection (stale, then dead), and reconnects with exponential backoff and
// jitter, resubscribing everything. Every state change is reported.
package ws

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"reflect"
	"sort"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/coder/websocket"

	"tradedeck/venue/stream"
)

// State of a stream.
type State uint8

const (
	Connecting   State = iota
	Live               // connected, frames flowing
	Stale              // connected but silent longer than StaleAfter
	Reconnecting       // waiting RetryIn before the next attempt
	AuthFailed         // the venue refused our key; retrying slowly
	Stopped
)

func (s State) String() string {
	return [...]string{"connecting", "live", "stale", "reconnecting", "auth failed", "stopped"}[s]
}

// Status is reported on every state change.
type Status struct {
	State      State
	RetryIn    time.Duration // when Reconnecting or AuthFailed
	Err        error         // why the last connection ended or failed
	Reconnects uint64        // connections established after the first
}

// ErrAuthFailed marks a handshake refused by the venue (bad key, bad
// signature): retrying fast cannot help and could get the key banned.
var ErrAuthFailed = errors.New("authentication refused")

// Backoff is exponential backoff with jitter: the n-th consecutive failure
// waits min(Max, Min*2^n), minus up to Jitter of it at random (so a fleet
// of clients does not reconnect in lockstep).
type Backoff struct {
	Min    time.Duration // default 500ms
	Max    time.Duration // default 30s
	Jitter float64       // fraction in [0,1], default 0.5
	// Stable is how long a connection must have lived for the next
	// failure to start again from Min (default 10s): a server that accepts
	// and drops at once must not be hammered.
	Stable time.Duration
}

func (b Backoff) withDefaults() Backoff {
	if b.Min <= 0 {
		b.Min = 500 * time.Millisecond
	}
	if b.Max < b.Min {
		b.Max = 30 * time.Second
		if b.Max < b.Min {
			b.Max = b.Min
		}
	}
	if b.Jitter < 0 || b.Jitter > 1 {
		b.Jitter = 0.5
	}
	if b.Stable <= 0 {
		b.Stable = 10 * time.Second
	}
	return b
}

// Delay is the wait before retry number attempt (0-based), given a random
// number r in [0,1).
func (b Backoff) Delay(attempt int, r float64) time.Duration {
	d := b.Min
	for i := 0; i < attempt && d < b.Max; i++ {
		d *= 2
	}
	if d > b.Max {
		d = b.Max
	}
	return d - time.Duration(float64(d)*b.Jitter*r)
}

// Config of a stream. Zero durations take the defaults shown.
type Config struct {
	Name string // "market" or "private", for errors
	URL  string

	PingEvery   time.Duration // our own ping, default 10s
	StaleAfter  time.Duration // no frame for this long: Stale, default 15s
	DeadAfter   time.Duration // no frame for this long: reconnect, default 30s
	DialTimeout time.Duration // default 10s
	AuthBackoff time.Duration // wait after a refused handshake, default 60s
	ReadLimit   int64         // largest frame, default 16 MiB
	Backoff     Backoff

	// Now and After are the clock (injectable for tests); Rand the jitter
	// source in [0,1).
	Now   func() time.Time
	After func(time.Duration) <-chan time.Time
	Rand  func() float64

	// Handshake runs after every connect, before the subscriptions are
	// sent (the private stream authenticates here). Returning an error
	// wrapping ErrAuthFailed backs off for AuthBackoff.
	Handshake func(ctx context.Context, s *Session) error
	// OnConnect runs after the subscriptions were sent on every
	// (re)connect; the feed starts its resyncs and reconciliation here.
	OnConnect func()
	// OnFrame gets every frame but keep-alives, on the reader goroutine;
	// err is set (and env empty) when the frame is not valid JSON. frame
	// is reused after it returns.
	OnFrame func(frame []byte, env *stream.Envelope, err error)
	// OnStatus gets every state change.
	OnStatus func(Status)
}

// Conn is one stream. Its methods are safe for concurrent use.
type Conn struct {
	cfg      Config
	sysClock bool // cfg.Now is time.Now: the watchdog sleeps until its deadlines

	mu     sync.Mutex
	topics map[string]bool // wanted
	sent   map[string]bool // subscribed on the live connection (told to the venue)
	kick   chan struct{}   // cap 1: topics changed, the writer compares them with sent
	ws     *websocket.Conn // nil while disconnected
	live   bool            // handshake done, subscriptions sent
	state  State

	stale      atomic.Bool // Stale was reported and no frame came since
	ids        atomic.Uint64
	frames     atomic.Uint64
	lastFrame  atomic.Int64 // unix ns
	reconnects atomic.Uint64
}

// New returns a stream; Run connects it.
func New(cfg Config) *Conn {
	if cfg.PingEvery <= 0 {
		cfg.PingEvery = 10 * time.Second
	}
	if cfg.StaleAfter <= 0 {
		cfg.StaleAfter = 15 * time.Second
	}
	if cfg.DeadAfter <= 0 {
		cfg.DeadAfter = 30 * time.Second
	}
	if cfg.DeadAfter < cfg.StaleAfter {
		cfg.DeadAfter = cfg.StaleAfter
	}
	if cfg.DialTimeout <= 0 {
		cfg.DialTimeout = 10 * time.Second
	}
	if cfg.AuthBackoff <= 0 {
		cfg.AuthBackoff = 60 * time.Second
	}
	if cfg.ReadLimit <= 0 {
		cfg.ReadLimit = 16 << 20
	}
	cfg.Backoff = cfg.Backoff.withDefaults()
	sysClock := cfg.Now == nil || reflect.ValueOf(cfg.Now).Pointer() == reflect.ValueOf(time.Now).Pointer()
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.After == nil {
		cfg.After = time.After
	}
	if cfg.Rand == nil {
		cfg.Rand = rand.Float64
	}
	if cfg.Name == "" {
		cfg.Name = "stream"
	}
	return &Conn{cfg: cfg, sysClock: sysClock, topics: map[string]bool{}, sent: map[string]bool{}, kick: make(chan struct{}, 1)}
}

// Frames is the number of frames received, keep-alives included.
func (c *Conn) Frames() uint64 { return c.frames.Load() }

// LastFrame is when the last frame arrived (zero before the first).
func (c *Conn) LastFrame() time.Time {
	ns := c.lastFrame.Load()
	if ns == 0 {
		return time.Time{}
	}
	return time.Unix(0, ns)
}

// Reconnects counts connections established after the first.
func (c *Conn) Reconnects() uint64 { return c.reconnects.Load() }

// NextID returns a fresh request id.
func (c *Conn) NextID() string { return "c" + strconv.FormatUint(c.ids.Add(1), 10) }

// Topics returns the subscribed topics, sorted.
func (c *Conn) Topics() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make([]string, 0, len(c.topics))
	for t := range c.topics {
		out = append(out, t)
	}
	sort.Strings(out)
	return out
}

// Subscribe adds topics; they are sent soon when live and after every
// reconnect. It never waits for the network: callers hold locks (the
// feed's, the hub's) that a slow venue must not hold up.
func (c *Conn) Subscribe(topics ...string) { c.change(true, topics) }

// Unsubscribe removes topics, without waiting for the network either.
func (c *Conn) Unsubscribe(topics ...string) { c.change(false, topics) }

func (c *Conn) change(sub bool, topics []string) {
	c.mu.Lock()
	changed := false
	for _, t := range topics {
		if c.topics[t] == sub {
			continue
		}
		if sub {
			c.topics[t] = true
		} else {
			delete(c.topics, t)
		}
		changed = true
	}
	c.mu.Unlock()
	if changed {
		select {
		case c.kick <- struct{}{}:
		default: // the writer has a kick pending: it reads the topics then
		}
	}
}

// writeTopics tells the live connection ws what changed in the topics,
// on every kick, until ctx ends: unsubscriptions, then subscriptions,
// each the difference between the wanted topics and the sent ones (so
// a topic added and removed before the writer ran is never sent).
func (c *Conn) writeTopics(ctx context.Context, ws *websocket.Conn) {
	var buf []byte
	for {
		select {
		case <-ctx.Done():
			return
		case <-c.kick:
		}
		c.mu.Lock()
		var gone, fresh []string
		for t := range c.sent {
			if !c.topics[t] {
				gone = append(gone, t)
				delete(c.sent, t)
			}
		}
		for t := range c.topics {
			if !c.sent[t] {
				fresh = append(fresh, t)
				c.sent[t] = true
			}
		}
		c.mu.Unlock()
		sort.Strings(gone)
		sort.Strings(fresh)
		for i, t := range append(gone, fresh...) {
			if i < len(gone) {
				buf = stream.AppendUnsubscribe(buf[:0], c.NextID(), t)
			} else {
				buf = stream.AppendSubscribe(buf[:0], c.NextID(), t)
			}
			if err := writeCtx(ctx, ws, buf); err != nil {
				_ = ws.CloseNow() // the reader sees it and reconnects, resubscribing
				return
			}
		}
	}
}

// Send writes a frame on the live connection.
func (c *Conn) Send(frame []byte) error {
	c.mu.Lock()
	ws, live := c.ws, c.live
	c.mu.Unlock()
	if !live || ws == nil {
		return fmt.Errorf("%s stream: not connected", c.cfg.Name)
	}
	return write(ws, frame)
}

// Reconnect drops the current connection (the next one follows the usual
// backoff); used when the feed decides the stream cannot be trusted.
func (c *Conn) Reconnect() {
	c.mu.Lock()
	ws := c.ws
	c.mu.Unlock()
	if ws != nil {
		_ = ws.CloseNow() // aborting: nothing to do if it fails
	}
}

func write(ws *websocket.Conn, b []byte) error { return writeCtx(context.Background(), ws, b) }

// writeCtx writes one frame within 10 s, or until ctx ends (the
// connection's end must not wait for a venue that stopped reading).
func writeCtx(ctx context.Context, ws *websocket.Conn, b []byte) error {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	return ws.Write(ctx, websocket.MessageText, b)
}

func (c *Conn) setStatus(st Status) {
	c.mu.Lock()
	c.state = st.State
	c.mu.Unlock()
	st.Reconnects = c.reconnects.Load()
	if c.cfg.OnStatus != nil {
		c.cfg.OnStatus(st)
	}
}

// Run keeps the stream connected until ctx ends.
func (c *Conn) Run(ctx context.Context) error {
	attempt := 0
	connectedOnce := false
	for {
		c.setStatus(Status{State: Connecting})
		started := c.cfg.Now()
		opened, err := c.session(ctx, connectedOnce)
		if opened {
			connectedOnce = true
		}
		if ctx.Err() != nil {
			c.setStatus(Status{State: Stopped})
			return ctx.Err()
		}
		if opened && c.cfg.Now().Sub(started) >= c.cfg.Backoff.Stable {
			attempt = 0
		}
		var wait time.Duration
		st := Status{State: Reconnecting, Err: err}
		if errors.Is(err, ErrAuthFailed) {
			st.State = AuthFailed
			wait = c.cfg.AuthBackoff
		} else {
			wait = c.cfg.Backoff.Delay(attempt, c.cfg.Rand())
			attempt++
		}
		st.RetryIn = wait
		c.setStatus(st)
		select {
		case <-ctx.Done():
			c.setStatus(Status{State: Stopped})
			return ctx.Err()
		case <-c.cfg.After(wait):
		}
	}
}

// session runs one connection; opened reports that the handshake passed.
func (c *Conn) session(ctx context.Context, reconnect bool) (opened bool, err error) {
	dctx, cancel := context.WithTimeout(ctx, c.cfg.DialTimeout)
	ws, _, err := websocket.Dial(dctx, c.cfg.URL, &websocket.DialOptions{HTTPClient: quietClient}) //nolint:bodyclose // coder/websocket closes the handshake response body itself
	cancel()
	if err != nil {
		return false, fmt.Errorf("%s stream: connect: %w", c.cfg.Name, err)
	}
	ws.SetReadLimit(c.cfg.ReadLimit)
	defer func() { _ = ws.CloseNow() }() // the session is over either way
	sctx, stop := context.WithCancel(ctx)
	defer stop()

	s := &Session{c: c, ws: ws, ctx: sctx}
	c.stale.Store(false)
	c.touch()
	// The watchdog runs from the start so a silent handshake dies too.
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); c.watchdog(sctx, ws) }()
	defer wg.Wait()
	defer stop()

	if c.cfg.Handshake != nil {
		// A venue that neither answers nor closes must not hang us.
		hctx, hcancel := context.WithTimeout(sctx, c.cfg.DialTimeout)
		s.ctx = hctx
		err := c.cfg.Handshake(hctx, s)
		hcancel()
		if err != nil {
			return false, err
		}
	}
	// From here reads take a context that never ends, and the session's
	// end closes the connection instead: given a cancellable one,
	// coder/websocket arms and disarms a context.AfterFunc around every
	// read (an allocation and atomic swaps per message).
	s.ctx = context.WithoutCancel(sctx)
	closeOnEnd := context.AfterFunc(sctx, func() { _ = ws.CloseNow() })
	defer closeOnEnd()
	c.mu.Lock()
	c.ws = ws
	c.live = true
	topics := make([]string, 0, len(c.topics))
	clear(c.sent)
	for t := range c.topics {
		topics = append(topics, t)
		c.sent[t] = true
	}
	c.mu.Unlock()
	defer func() {
		c.mu.Lock()
		c.ws, c.live = nil, false
		c.mu.Unlock()
	}()
	sort.Strings(topics)
	var buf []byte
	for _, t := range topics {
		buf = stream.AppendSubscribe(buf[:0], c.NextID(), t)
		if err := write(ws, buf); err != nil {
			return true, fmt.Errorf("%s stream: subscribe: %w", c.cfg.Name, err)
		}
	}
	// Later changes are the writer's (never under the callers' locks).
	wg.Add(1)
	go func() { defer wg.Done(); c.writeTopics(sctx, ws) }()
	if reconnect {
		c.reconnects.Add(1)
	}
	c.setStatus(Status{State: Live})
	if c.cfg.OnConnect != nil {
		c.cfg.OnConnect()
	}
	var env stream.Envelope
	for {
		frame, perr, err := s.read(&env)
		if err != nil {
			return true, err
		}
		if c.cfg.OnFrame != nil {
			c.cfg.OnFrame(frame, &env, perr)
		}
	}
}

// touch records a received frame; a stale stream turns live again.
func (c *Conn) touch() {
	c.frames.Add(1)
	c.lastFrame.Store(c.cfg.Now().UnixNano())
	if c.stale.Load() && c.stale.CompareAndSwap(true, false) {
		c.setStatus(Status{State: Live})
	}
}

// Session is one open connection, as the handshake sees it.
type Session struct {
	c    *Conn
	ws   *websocket.Conn
	ctx  context.Context
	buf  []byte
	pong []byte
}

// Send writes a frame.
func (s *Session) Send(frame []byte) error { return write(s.ws, frame) }

// NextID returns a fresh request id.
func (s *Session) NextID() string { return s.c.NextID() }

// Now is the stream's clock.
func (s *Session) Now() time.Time { return s.c.cfg.Now() }

// Read returns the next frame that is not a keep-alive (server pings are
// answered here), with its envelope; perr says the frame was not valid
// JSON. The frame is reused by the next Read.
func (s *Session) Read(env *stream.Envelope) (frame []byte, perr, err error) { return s.read(env) }

var errClosed = errors.New("connection closed")

func (s *Session) read(env *stream.Envelope) ([]byte, error, error) {
	for {
		_, r, err := s.ws.Reader(s.ctx)
		if err != nil {
			return nil, nil, s.c.readErr(err)
		}
		s.buf = s.buf[:0]
		for {
			if len(s.buf) == cap(s.buf) {
				s.buf = append(s.buf, 0)[:len(s.buf)]
			}
			n, err := r.Read(s.buf[len(s.buf):cap(s.buf)])
			s.buf = s.buf[:len(s.buf)+n]
			if err == io.EOF {
				break
			}
			if err != nil {
				return nil, nil, s.c.readErr(err)
			}
		}
		s.c.touch()
		if err := stream.ParseEnvelope(s.buf, env); err != nil {
			// A malformed frame is the venue's fault, not the
			// connection's: hand it on so the feed can count and show it.
			*env = stream.Envelope{}
			return s.buf, err, nil
		}
		switch {
		case env.IsPing():
			s.pong = stream.AppendPong(s.pong[:0])
			if err := write(s.ws, s.pong); err != nil {
				return nil, nil, s.c.readErr(err)
			}
			continue
		case env.IsPong():
			continue
		}
		return s.buf, nil, nil
	}
}

func (c *Conn) readErr(err error) error {
	if err == nil {
		err = errClosed
	}
	return fmt.Errorf("%s stream: %w", c.cfg.Name, err)
}
