// Package ws is the simulated venue's Websocket server: the market stream at
// /ws/stream/{application_id} and the private stream at /v2/ws/private/stream/{application_id},
// with the venue's frames, topics and cadences (docs/sim-streams.md).
//
// Frames are encoded once per topic and the same bytes are queued to every subscriber. Each
// connection has a bounded queue drained by its own writer: a client that cannot keep up is
// closed with a reason instead of slowing the market or the other clients down.
package ws

import (
	"context"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/coder/websocket"

	"tradedeck/sim/exchange"
	"tradedeck/sim/faults"
)

// Paths the streams are served under (followed by the application id).
const (
	MarketPath  = "/ws/stream/"
	PrivatePath = "/v2/ws/private/stream/"
)

// Options tune the server; zero fields take the venue's values.
type Options struct {
	PingInterval   time.Duration // server ping cadence (10 s)
	MaxMissedPongs int           // pings without an answer before the client is dropped (10)
	QueueSize      int           // frames buffered per connection before it counts as slow (4096)
	WriteTimeout   time.Duration // one frame write; past it the client counts as slow (10 s)
	UpdateInterval time.Duration // orderbookupdate cadence (200 ms)
	SnapshotEvery  int           // orderbook snapshots every N updates (5: 1 s)
	BBOInterval    time.Duration // bbo check cadence (10 ms)
	StatsInterval  time.Duration // ticker, kline, prices, positioninfo cadence (1 s)
	AuthWindow     time.Duration // accepted auth timestamp skew (300 s)
	// Each connection holds a send queue, so their number bounds the streams' memory.
	MaxConnsPerIP int // open connections per client address (256)
	MaxConns      int // open connections in all (2048)
	Faults        *faults.Injector
}

func (o *Options) defaults() {
	def(&o.PingInterval, 10*time.Second)
	def(&o.WriteTimeout, 10*time.Second)
	def(&o.UpdateInterval, 200*time.Millisecond)
	def(&o.BBOInterval, 10*time.Millisecond)
	def(&o.StatsInterval, time.Second)
	def(&o.AuthWindow, 300*time.Second)
	def(&o.MaxMissedPongs, 10)
	def(&o.MaxConnsPerIP, 256)
	def(&o.MaxConns, 2048)
	def(&o.QueueSize, 4096)
	def(&o.SnapshotEvery, 5)
}

// def gives an option left unset (zero or negative) its default v.
func def[T int | time.Duration](opt *T, v T) {
	if *opt <= 0 {
		*opt = v
	}
}

// Server serves both streams of one exchange.
type Server struct {
	ex      *exchange.Exchange
	opts    Options
	faults  *faults.Injector
	hub     *hub
	books   *bookPublisher
	markets map[string]marketInfo
	symbols []string // sorted

	versions map[string]int64  // balance version per "application|token", owned by the event loop
	outbox   chan privateFrame // private frames waiting for their journal record (durable.go)

	mu     sync.Mutex
	conns  map[*conn]struct{}
	perIP  map[string]int // open connections per client address
	nconns int            // open connections, admitted ones included

	slowDrops, pongDrops, authFails, eventDrops atomic.Int64
}

// New returns a server over ex; call Run to start its publishers.
func New(ex *exchange.Exchange, opts Options) *Server {
	opts.defaults()
	s := &Server{ex: ex, opts: opts, faults: opts.Faults, hub: newHub(), conns: map[*conn]struct{}{}, perIP: map[string]int{},
		markets: loadMarkets(ex), symbols: ex.Symbols(), versions: map[string]int64{},
		outbox: make(chan privateFrame, outboxSize)}
	s.books = newBookPublisher(s)
	return s
}

// Stats are the server's counters.
type Stats struct {
	Connections int
	Market      int   // of Connections, on the market stream
	Private     int   // of Connections, on the private stream
	SlowDrops   int64 // clients closed because their queue overflowed or a write timed out
	PongDrops   int64 // clients closed after MaxMissedPongs unanswered pings
	AuthFails   int64
	EventDrops  int64 // times the publisher fell behind the exchange's event stream
}

// Stats returns the server's counters.
func (s *Server) Stats() Stats {
	s.mu.Lock()
	n := len(s.conns)
	private := 0
	for c := range s.conns {
		if c.private {
			private++
		}
	}
	s.mu.Unlock()
	return Stats{Connections: n, Market: n - private, Private: private, SlowDrops: s.slowDrops.Load(), PongDrops: s.pongDrops.Load(), AuthFails: s.authFails.Load(), EventDrops: s.eventDrops.Load()}
}

// Subscribers is how many connections hold a public topic (a client's
// subscriptions, seen from the venue).
func (s *Server) Subscribers(topic string) int { return s.hub.count(topic) }

// Handler serves both stream paths.
func (s *Server) Handler() http.Handler { return http.HandlerFunc(s.serve) }

// Register mounts both streams on mux.
func (s *Server) Register(mux *http.ServeMux) {
	mux.Handle(MarketPath, s.Handler())
	mux.Handle(PrivatePath, s.Handler())
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	var private bool
	var appID string
	switch {
	case strings.HasPrefix(r.URL.Path, PrivatePath):
		private, appID = true, strings.TrimPrefix(r.URL.Path, PrivatePath)
	case strings.HasPrefix(r.URL.Path, MarketPath):
		appID = strings.TrimPrefix(r.URL.Path, MarketPath)
	}
	if appID == "" || len(appID) > maxAppID || strings.Contains(appID, "/") {
		http.Error(w, "want /ws/stream/{application_id} or /v2/ws/private/stream/{application_id}", http.StatusNotFound)
		return
	}
	ip := clientIP(r)
	if !s.admit(ip) {
		http.Error(w, "too many Websocket connections", http.StatusTooManyRequests)
		return
	}
	defer s.release(ip)
	wsc, err := websocket.Accept(w, r, &websocket.AcceptOptions{InsecureSkipVerify: true})
	if err != nil {
		return // Accept has answered the client
	}
	wsc.SetReadLimit(1 << 16)
	ctx, cancel := context.WithCancel(context.Background())
	c := &conn{srv: s, ws: wsc, private: private, appID: appID, queue: make(chan frame, s.opts.QueueSize), ctx: ctx, cancel: cancel, topics: map[string]bool{}}
	s.mu.Lock()
	s.conns[c] = struct{}{}
	s.mu.Unlock()
	unregister := s.faults.OnDrop(func(reason string) { c.fail(websocket.StatusGoingAway, reason) })
	go c.writeLoop()
	go c.keepAlive()
	c.readLoop()
	unregister()
	c.unsubscribeAll()
	s.mu.Lock()
	delete(s.conns, c)
	s.mu.Unlock()
}

// maxAppID bounds the application id of a stream path (a UUID).
const maxAppID = 64

// admit counts a new connection from ip, or refuses it past the bounds.
func (s *Server) admit(ip string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.perIP[ip] >= s.opts.MaxConnsPerIP || s.nconns >= s.opts.MaxConns {
		return false
	}
	s.perIP[ip]++
	s.nconns++
	return true
}

// release uncounts a connection admitted for ip.
func (s *Server) release(ip string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.nconns--
	if s.perIP[ip]--; s.perIP[ip] <= 0 {
		delete(s.perIP, ip)
	}
}

func clientIP(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}

// Close drops every client and waits for nothing: connections finish on their own.
func (s *Server) Close() {
	s.mu.Lock()
	conns := make([]*conn, 0, len(s.conns))
	for c := range s.conns {
		conns = append(conns, c)
	}
	s.mu.Unlock()
	for _, c := range conns {
		c.fail(websocket.StatusGoingAway, reasonShutdown)
	}
}

// closePrivate drops every private stream client.
func (s *Server) closePrivate(reason string) {
	s.mu.Lock()
	var conns []*conn
	for c := range s.conns {
		if c.private {
			conns = append(conns, c)
		}
	}
	s.mu.Unlock()
	for _, c := range conns {
		c.fail(websocket.StatusTryAgainLater, reason)
	}
}

// Run publishes until ctx ends.
func (s *Server) Run(ctx context.Context) {
	var wg sync.WaitGroup
	wg.Add(4)
	go func() { defer wg.Done(); s.books.run(ctx) }()
	go func() { defer wg.Done(); s.runOutbox(ctx) }()
	go func() { defer wg.Done(); s.runBBO(ctx) }()
	go func() { defer wg.Done(); s.runStats(ctx) }()
	wg.Wait()
	s.Close()
}

func (s *Server) nowMs() int64 { return s.ex.Now() }
