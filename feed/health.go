package feed

import (
	"fmt"
	"time"

	"tradedeck/feed/ws"
	"tradedeck/venue/stream"
)

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

// onStatus records a stream state change.
func (f *Feed) onStatus(i int, st ws.Status) {
	f.mu.Lock()
	defer f.mu.Unlock()
	h := &f.health[i].h
	prev := h.State
	h.State = stateOf(st.State)
	h.RetryIn = st.RetryIn
	h.Reconnects = st.Reconnects
	if st.Err != nil {
		h.Err = st.Err.Error()
	}
	f.hlthDirt = true
	if h.State == prev {
		return
	}
	if o := f.cfg.Observer; o != nil {
		o.ObserveHealth(*h)
	}
	switch h.State {
	case Reconnecting:
		f.logf("%s stream down (%v), reconnecting in %s", h.Stream, st.Err, st.RetryIn)
	case AuthFailed:
		f.emitLocked(Event{Kind: EventError, Text: fmt.Sprintf("%s stream: authentication refused; retrying in %s", h.Stream, st.RetryIn)})
	case Connected:
		f.logf("%s stream live", h.Stream)
	}
	if i == 0 {
		// A book's trust follows its stream's: restate every book.
		for _, s := range f.syms {
			if s.book != nil {
				s.mark(dBook, &f.dirty)
			}
		}
	}
}

// frameError counts a frame that could not be read and shows why.
func (f *Feed) frameError(i int, what string, err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.health[i].malformed++
	f.health[i].h.Err = what + ": " + err.Error()
	f.hlthDirt = true
	f.logf("%s stream: %s: %v", f.health[i].h.Stream, what, err)
}

// restError shows a failed REST call on a stream's health line.
func (f *Feed) restError(i int, what string, err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.health[i].h.Err = what + ": " + err.Error()
	f.hlthDirt = true
	f.logf("%s: %v", what, err)
}

// restRetry is restError for a call the stream waits on (the symbol
// rules): until it succeeds the stream cannot start, so the user sees it
// as reconnecting in wait, with the reason, not as "connecting" forever.
func (f *Feed) restRetry(i int, what string, err error, wait time.Duration) {
	f.restError(i, what, err)
	f.mu.Lock()
	defer f.mu.Unlock()
	f.health[i].h.State = Reconnecting
	f.health[i].h.RetryIn = wait
	if o := f.cfg.Observer; o != nil {
		o.ObserveHealth(f.health[i].h)
	}
}

// onReply handles a non-push frame (acks, errors).
func (f *Feed) onReply(i int, env *stream.Envelope) {
	if !env.HasSuccess || env.Success {
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	msg := fmt.Sprintf("%s stream: %s %s refused: %s", f.health[i].h.Stream, env.Event, env.ID, env.ErrorMsg)
	f.health[i].h.Err = msg
	f.hlthDirt = true
	f.emitLocked(Event{Kind: EventError, Text: msg})
}

// refreshHealth recomputes the rates once a second.
func (f *Feed) refreshHealthLocked(now time.Time) {
	conns := [2]*ws.Conn{f.market, f.private}
	for i := range f.health {
		c := conns[i]
		if c == nil {
			continue
		}
		sh := &f.health[i]
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
	gaps, resyncs := f.retired.gaps, f.retired.resyncs
	for _, s := range f.syms {
		if s.book != nil {
			gaps += s.book.sync.Gaps
			resyncs += s.book.sync.Resyncs
		}
	}
	f.health[0].h.Gaps, f.health[0].h.Resyncs = gaps, resyncs
	f.hlthDirt = true
}
