// Package replay serves a recording (package record) as a venue: a
// loopback HTTP + Websocket server speaking the venue's stream protocol
// and the REST endpoints the feed reads, pacing the recorded frames by
// their receive times. The dashboard and `replay --check` point an
// unchanged feed at it, so a replay runs the same book sync, gap
// detection and candle code as live data.
//
// Playback is controlled here: pause, step (one frame), speed (a factor
// or max) and jump (to a recorded time). A jump closes the stream
// connections: the feed reconnects and resyncs its books from the state
// at the new position, exactly as after a network drop.
package replay

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"sync"
	"time"

	"tradedeck/venue"
)

// Max is the Speed that delivers frames as fast as the clients read them.
const Max = 0

// Options of a replay server.
type Options struct {
	Path   string
	Speed  float64   // playback factor; Max (0) for as fast as possible
	From   time.Time // start here (zero: the start of the recording)
	Paused bool      // start paused
	// Clients is how many market stream subscribers to wait for before
	// the clock starts (default 1), so the first frames reach them.
	Clients int
	// Settle is how long after the last awaited subscriber the clock
	// starts, letting it send all its subscriptions (default 300ms).
	Settle time.Duration
	Listen string           // default 127.0.0.1:0
	Now    func() time.Time // the real clock pacing playback
}

// Server is a running replay.
type Server struct {
	opts    Options
	summary Summary
	ln      net.Listener
	http    *http.Server
	// Endpoints are the server's addresses, for feed.Config.
	Endpoints venue.Endpoints

	mu      sync.Mutex
	wake    chan struct{} // cap 1: the player re-reads its controls
	speed   float64
	paused  bool
	steps   int
	seekTo  int64 // recorded ns; 0: none
	started bool  // the clock runs (clients arrived)
	ended   bool
	pos     int64     // recorded time of the last delivered record (ns)
	anchor  int64     // recorded time at anchorAt
	anchorT time.Time // real time of the anchor
	state   *state    // REST replies and books as of pos
	cur     *cursor   // where the player reads; the player's own once Run starts
	clients map[*client]bool
	paper   http.Handler  // the paper venue's proxy (AttachPaper); nil: none
	done    chan struct{} // closed when the end of the recording is reached
	stats   PlayStats
}

// PlayStats counts what was delivered.
type PlayStats struct {
	Frames  uint64 // stream frames sent to at least one subscriber or not
	Jumps   int
	Started time.Time // real time the clock started
	Ended   time.Time // real time the last frame was delivered
}

// Open reads the recording's summary and listens; Run starts playback.
func Open(opts Options) (*Server, error) {
	if opts.Clients <= 0 {
		opts.Clients = 1
	}
	if opts.Settle <= 0 {
		opts.Settle = 300 * time.Millisecond
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Listen == "" {
		opts.Listen = "127.0.0.1:0"
	}
	if opts.Speed < 0 {
		return nil, errors.New("replay: speed must be positive (or max)")
	}
	sum, err := Summarize(opts.Path)
	if err != nil {
		return nil, err
	}
	if sum.Frames == 0 {
		return nil, fmt.Errorf("replay: %s holds no stream frames", opts.Path)
	}
	if !opts.From.IsZero() && (opts.From.UnixNano() > sum.Last || opts.From.UnixNano() < sum.First) {
		return nil, fmt.Errorf("replay: --from %s is outside the recording (%s to %s)",
			opts.From.UTC().Format(time.RFC3339Nano), time.Unix(0, sum.First).UTC().Format(time.RFC3339Nano), time.Unix(0, sum.Last).UTC().Format(time.RFC3339Nano))
	}
	ln, err := net.Listen("tcp", opts.Listen)
	if err != nil {
		return nil, err
	}
	s := &Server{
		opts: opts, summary: sum, ln: ln,
		wake: make(chan struct{}, 1), speed: opts.Speed, paused: opts.Paused,
		clients: map[*client]bool{}, done: make(chan struct{}),
	}
	var from int64
	if !opts.From.IsZero() {
		from = opts.From.UnixNano()
	}
	// The state at the start is ready before anything is served.
	if s.cur, s.state, s.pos, err = s.seek(from); err != nil {
		ln.Close()
		return nil, err
	}
	addr := ln.Addr().String()
	s.Endpoints = venue.Endpoints{
		BaseURL: "http://" + addr, PublicHistoryURL: "http://" + addr,
		WSMarketURL: "ws://" + addr, WSPrivateURL: "ws://" + addr, StatsURL: "http://" + addr + "/stats",
	}
	mux := http.NewServeMux()
	s.routes(mux)
	s.http = &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	return s, nil
}

// Summary is what the recording holds (read once at Open).
func (s *Server) Summary() Summary { return s.summary }

// Run serves and plays until ctx ends. The recording's end does not stop
// it: the last state stays served (Done tells when it was reached).
func (s *Server) Run(ctx context.Context) error {
	errc := make(chan error, 1)
	go func() { errc <- s.http.Serve(s.ln) }()
	perr := s.play(ctx)
	sctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	_ = s.http.Shutdown(sctx)
	s.closeClients()
	if err := <-errc; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	if perr != nil && ctx.Err() == nil {
		return perr
	}
	return nil
}

// Done is closed when the last frame was delivered.
func (s *Server) Done() <-chan struct{} { return s.done }

// Stats counts the delivered frames.
func (s *Server) Stats() PlayStats {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.stats
}

// Now is the replay's clock: the recorded time being played. Give it to
// the feed (feed.Config.Clock) so ages, latencies and staleness are
// measured in recorded time and a pause freezes them.
func (s *Server) Now() time.Time {
	s.mu.Lock()
	defer s.mu.Unlock()
	return time.Unix(0, s.nowLocked())
}

func (s *Server) nowLocked() int64 {
	if !s.started || s.paused || s.speed == Max || s.ended {
		return s.pos
	}
	return s.anchor + int64(float64(s.opts.Now().Sub(s.anchorT))*s.speed)
}

// Status is the playback state, for a banner.
type Status struct {
	Now         time.Time // recorded time being played
	First, Last time.Time // span of the recording
	Speed       float64   // Max (0) for max
	Paused      bool
	Started     bool // the clock runs (a client subscribed)
	Ended       bool
}

// Status returns the playback state.
func (s *Server) Status() Status {
	s.mu.Lock()
	defer s.mu.Unlock()
	return Status{
		Now: time.Unix(0, s.nowLocked()), First: time.Unix(0, s.summary.First), Last: time.Unix(0, s.summary.Last),
		Speed: s.speed, Paused: s.paused, Started: s.started, Ended: s.ended,
	}
}

func (s *Server) poke() {
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// reanchor makes the current recorded time the clock's new origin (after
// a pause, a speed change or a jump).
func (s *Server) reanchorLocked(rec int64) {
	s.anchor, s.anchorT = rec, s.opts.Now()
}

// SetPaused pauses or resumes playback.
func (s *Server) SetPaused(p bool) {
	s.mu.Lock()
	s.setPausedLocked(p)
	s.mu.Unlock()
	s.poke()
}

// setPausedLocked stops or restarts the clock at the recorded time it
// shows now.
func (s *Server) setPausedLocked(p bool) {
	if s.paused != p {
		now := s.nowLocked()
		s.paused = p
		s.reanchorLocked(now)
	}
}

// TogglePause flips pause and returns the new state.
func (s *Server) TogglePause() bool {
	s.mu.Lock()
	p := !s.paused
	s.mu.Unlock()
	s.SetPaused(p)
	return p
}

// Step delivers the next frame while paused (pausing first if needed).
func (s *Server) Step() {
	s.mu.Lock()
	s.setPausedLocked(true)
	s.steps++
	s.mu.Unlock()
	s.poke()
}

// SetSpeed changes the playback factor (Max for max).
func (s *Server) SetSpeed(f float64) {
	if f < 0 {
		return
	}
	s.mu.Lock()
	now := s.nowLocked()
	s.speed = f
	s.reanchorLocked(now)
	s.mu.Unlock()
	s.poke()
}

// Speed is the current playback factor.
func (s *Server) Speed() float64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.speed
}

// Jump moves playback to recorded time t (clamped to the recording).
func (s *Server) Jump(t time.Time) {
	ns := min(max(t.UnixNano(), s.summary.First), s.summary.Last)
	s.mu.Lock()
	s.seekTo = ns
	s.mu.Unlock()
	s.poke()
}

// JumpBy moves playback by d of recorded time (negative: back).
func (s *Server) JumpBy(d time.Duration) { s.Jump(s.Now().Add(d)) }
