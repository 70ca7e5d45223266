package feed

import (
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"tradedeck/feed/ws"
	"tradedeck/venue/stream"
)

// Stream indexes of healthState.streams.
const (
	mStream = 0 // market
	pStream = 1 // private
)

// healthState is the health part: the state, rates and last error of each
// stream. Its lock is taken after a part's own (see core).
type healthState struct {
	c           *core
	mu          sync.Mutex
	streams     [2]streamHealth
	hasPrivate  bool
	dirty       atomic.Bool     // changed since the last Update
	marketState atomic.Uint32   // streams[mStream].h.State, readable under the market's lock
	retired     [2]atomic.Int64 // gaps, resyncs of books no longer held
}

// streamHealth is the health of one stream plus what computing it needs.
type streamHealth struct {
	h          Health
	lastTS     int64 // venue ts of the last push
	frames0    uint64
	t0         time.Time
	latencyEst float64 // smoothed, ns
	malformed  uint64
}

// sample records one push: its venue ts gives the latency estimate
// (exponentially smoothed, so one late frame does not swing it).
func (sh *streamHealth) sample(now time.Time, venueTS int64) {
	if venueTS <= 0 {
		return
	}
	sh.lastTS = venueTS
	lat := float64(now.UnixNano() - venueTS*int64(time.Millisecond))
	if sh.latencyEst == 0 {
		sh.latencyEst = lat
	} else {
		sh.latencyEst += (lat - sh.latencyEst) / 16
	}
}

func stateOf(s ws.State) StreamState {
	switch s {
	case ws.Connecting:
		return Connecting
	case ws.Live:
		return Connected
	case ws.Stale:
		return StreamStale
	case ws.Reconnecting:
		return Reconnecting
	case ws.AuthFailed:
		return AuthFailed
	}
	return Stopped
}

func (hs *healthState) init(c *core, hasPrivate bool) {
	hs.c = c
	hs.hasPrivate = hasPrivate
	hs.streams[mStream].h = Health{Stream: StreamMarket, State: Connecting}
	hs.streams[pStream].h = Health{Stream: StreamPrivate, State: Stopped}
	if hasPrivate {
		hs.streams[pStream].h.State = Connecting
	}
	hs.marketState.Store(uint32(Connecting))
}

// changedLocked marks stream i changed and returns its Health.
func (hs *healthState) changedLocked(i int) Health {
	hs.dirty.Store(true)
	hs.c.wake.Wake()
	hs.marketState.Store(uint32(hs.streams[mStream].h.State))
	return hs.streams[i].h
}

// observe shows a change of a stream's state to the observer.
func (hs *healthState) observe(h Health) {
	if hs.c.obs != nil {
		hs.c.obs.ObserveHealth(h)
	}
}

// market is the market stream's state.
func (hs *healthState) market() StreamState { return StreamState(hs.marketState.Load()) }

// status records a stream state change and reports whether the state
// itself changed.
func (hs *healthState) status(i int, st ws.Status) bool {
	hs.mu.Lock()
	h := &hs.streams[i].h
	prev := h.State
	h.State = stateOf(st.State)
	h.RetryIn = st.RetryIn
	h.Reconnects = st.Reconnects
	if st.Err != nil {
		h.Err = st.Err.Error()
	}
	snap := hs.changedLocked(i)
	hs.mu.Unlock()
	if snap.State == prev {
		return false
	}
	hs.observe(snap)
	switch snap.State {
	case Reconnecting:
		hs.c.logf("%s stream down (%v), reconnecting in %s", snap.Stream, st.Err, st.RetryIn)
	case AuthFailed:
		hs.c.emit(Event{Kind: EventError, Text: fmt.Sprintf("%s stream: authentication refused; retrying in %s", snap.Stream, st.RetryIn)})
	case Connected:
		hs.c.logf("%s stream live", snap.Stream)
	}
	return true
}

// setErr shows err as stream i's last error.
func (hs *healthState) setErr(i int, msg string) {
	hs.mu.Lock()
	hs.streams[i].h.Err = msg
	hs.changedLocked(i)
	hs.mu.Unlock()
}

// frameError counts a frame that could not be read and shows why.
func (hs *healthState) frameError(i int, what string, err error) {
	hs.mu.Lock()
	hs.streams[i].malformed++
	hs.mu.Unlock()
	hs.setErr(i, what+": "+err.Error())
	hs.c.logf("%s stream: %s: %v", hs.streams[i].h.Stream, what, err)
}

// restError shows a failed REST call on a stream's health line.
func (hs *healthState) restError(i int, what string, err error) {
	hs.setErr(i, what+": "+err.Error())
	hs.c.logf("%s: %v", what, err)
}

// restRetry is restError for a call the stream waits on (the symbol
// rules): until it succeeds the stream cannot start, so the user sees it
// as reconnecting in wait, with the reason, not as "connecting" forever.
func (hs *healthState) restRetry(i int, what string, err error, wait time.Duration) {
	hs.mu.Lock()
	h := &hs.streams[i].h
	h.Err = what + ": " + err.Error()
	h.State = Reconnecting
	h.RetryIn = wait
	snap := hs.changedLocked(i)
	hs.mu.Unlock()
	hs.observe(snap)
	hs.c.logf("%s: %v", what, err)
}

// sample records a push of stream i for the latency estimate.
func (hs *healthState) sample(i int, now time.Time, ts int64) {
	hs.mu.Lock()
	hs.streams[i].sample(now, ts)
	hs.mu.Unlock()
}

// reply handles a non-push frame (acks, errors).
func (hs *healthState) reply(i int, env *stream.Envelope) {
	if !env.HasSuccess || env.Success {
		return
	}
	msg := fmt.Sprintf("%s stream: %s %s refused: %s", hs.streams[i].h.Stream, env.Event, env.ID, env.ErrorMsg)
	hs.setErr(i, msg)
	hs.c.emit(Event{Kind: EventError, Text: msg})
}

// retire adds the gap and resync counts of a book no longer held.
func (hs *healthState) retire(gaps, resyncs uint64) {
	hs.retired[0].Add(int64(gaps))
	hs.retired[1].Add(int64(resyncs))
}

// refresh recomputes the rates once a second; gaps and resyncs are those
// of the books held now. It marks the health changed only when a shown
// figure moved.
func (hs *healthState) refresh(now time.Time, conns [2]*ws.Conn, gaps, resyncs uint64) {
	hs.mu.Lock()
	was := [2]healthShown{shownOf(&hs.streams[0].h), shownOf(&hs.streams[1].h)}
	for i := range hs.streams {
		c := conns[i]
		if c == nil {
			continue
		}
		sh := &hs.streams[i]
		n := c.Frames()
		if !sh.t0.IsZero() {
			if dt := now.Sub(sh.t0).Seconds(); dt > 0 {
				sh.h.MsgsPerSec = float64(n-sh.frames0) / dt
			}
		}
		sh.frames0, sh.t0 = n, now
		sh.h.LastMsg = c.LastFrame()
		sh.h.Latency = time.Duration(sh.latencyEst)
		sh.h.Reconnects = c.Reconnects()
	}
	m := &hs.streams[mStream].h
	m.Gaps = gaps + uint64(hs.retired[0].Load())
	m.Resyncs = resyncs + uint64(hs.retired[1].Load())
	// Sent when a figure a consumer shows moved (unchanged.go); the rest
	// rides along with the next Update that carries Health.
	if was != [2]healthShown{shownOf(&hs.streams[0].h), shownOf(&hs.streams[1].h)} {
		hs.dirty.Store(true)
		hs.c.wake.Wake()
	}
	hs.mu.Unlock()
}

func (hs *healthState) snapshotLocked() []Health {
	out := []Health{hs.streams[mStream].h}
	if hs.hasPrivate {
		out = append(out, hs.streams[pStream].h)
	}
	return out
}

// snapshot is the current health of the streams.
func (hs *healthState) snapshot() []Health {
	hs.mu.Lock()
	defer hs.mu.Unlock()
	return hs.snapshotLocked()
}

// collect puts the health in u when it changed.
func (hs *healthState) collect(u *Update) {
	if !hs.dirty.Swap(false) {
		return
	}
	u.Health = hs.snapshot()
}
