// Package faults injects the failures a real venue produces, so the client's recovery paths can be
// exercised on purpose: dropped Websocket connections, a missing orderbookupdate (a broken prevTs
// chain), delayed or reordered frames, REST calls answered 429 or 5xx, and stalled streams.
//
// An Injector is shared by the REST wrapper and the Websocket server. Its Config can be replaced at
// any time (flags at start, tests at run time); every injected fault is counted so a test can
// assert that each one was noticed by the client.
package faults

import (
	"context"
	"math/rand/v2"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"tradedeck/venue"
)

// Config says which faults are active. The zero value injects nothing.
type Config struct {
	// DropEvery closes every Websocket connection this often (0: never).
	DropEvery time.Duration
	// SkipUpdateEvery withholds every N-th orderbookupdate push of each symbol from all its
	// subscribers (0: never), so the next push's prevTs names a push nobody received.
	SkipUpdateEvery int
	// Delay holds every pushed frame back this long before it is written (0: none).
	Delay time.Duration
	// ReorderEvery swaps every N-th pushed frame of a connection with the one after it (0: never).
	ReorderEvery int
	// REST429 and REST5xx are the fractions (0..1) of REST calls answered with 429 and with a
	// 5xx status instead of being served.
	REST429 float64
	REST5xx float64
	// Stall stops every stream from sending (connections stay open, requests are read and
	// ignored) while true; StallMarket and StallPrivate stall one kind of stream only.
	Stall        bool
	StallMarket  bool
	StallPrivate bool
}

// stalls reports whether a stream of that kind is stalled under c.
func (c Config) stalls(private bool) bool {
	return c.Stall || (private && c.StallPrivate) || (!private && c.StallMarket)
}

// Counts are the faults injected so far.
type Counts struct {
	Drops          int64 // Websocket connections closed by DropEvery or DropNow
	SkippedUpdates int64 // orderbookupdate pushes withheld from their subscribers
	DelayedFrames  int64
	Reordered      int64 // frame pairs swapped
	REST429        int64
	REST5xx        int64
	StalledFrames  int64 // frames not sent because the stream was stalled
}

// Injector holds the active Config, the counters and the listeners that carry out drops.
type Injector struct {
	cfg atomic.Pointer[Config]

	mu        sync.Mutex
	rng       *rand.Rand
	dropFns   map[int]func(reason string)
	nextID    int
	skipNext  map[string]int // one-shot skips requested per symbol
	skipCount map[string]int64
	changed   chan struct{} // closed and replaced on every Set, to re-arm the drop timer

	drops, skipped, delayed, reordered, r429, r5xx, stalled atomic.Int64
}

// New returns an Injector with nothing active; seed makes the REST fault choice reproducible.
func New(seed uint64) *Injector {
	in := &Injector{
		rng:       rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)),
		dropFns:   map[int]func(string){},
		skipNext:  map[string]int{},
		skipCount: map[string]int64{},
		changed:   make(chan struct{}),
	}
	in.cfg.Store(&Config{})
	return in
}

// Set replaces the active configuration.
func (in *Injector) Set(c Config) {
	in.cfg.Store(&c)
	in.mu.Lock()
	close(in.changed)
	in.changed = make(chan struct{})
	in.mu.Unlock()
}

// Config returns the active configuration. A nil Injector injects nothing.
func (in *Injector) Config() Config {
	if in == nil {
		return Config{}
	}
	return *in.cfg.Load()
}

// Counts returns the faults injected so far.
func (in *Injector) Counts() Counts {
	return Counts{
		Drops:          in.drops.Load(),
		SkippedUpdates: in.skipped.Load(),
		DelayedFrames:  in.delayed.Load(),
		Reordered:      in.reordered.Load(),
		REST429:        in.r429.Load(),
		REST5xx:        in.r5xx.Load(),
		StalledFrames:  in.stalled.Load(),
	}
}

// SkippedBySymbol returns how many orderbookupdate pushes of symbol were withheld.
func (in *Injector) SkippedBySymbol(symbol string) int64 {
	in.mu.Lock()
	defer in.mu.Unlock()
	return in.skipCount[symbol]
}

// OnDrop registers fn to be called when connections must be dropped; the returned func
// unregisters it. The Websocket server registers one per connection.
func (in *Injector) OnDrop(fn func(reason string)) (unregister func()) {
	in.mu.Lock()
	id := in.nextID
	in.nextID++
	in.dropFns[id] = fn
	in.mu.Unlock()
	return func() {
		in.mu.Lock()
		delete(in.dropFns, id)
		in.mu.Unlock()
	}
}

// DropNow closes every open Websocket connection once, and returns how many were closed.
func (in *Injector) DropNow() int {
	in.mu.Lock()
	fns := make([]func(string), 0, len(in.dropFns))
	for _, fn := range in.dropFns {
		fns = append(fns, fn)
	}
	in.mu.Unlock()
	// Count before closing: a client that sees its connection drop must
	// find the drop already counted.
	in.drops.Add(int64(len(fns)))
	for _, fn := range fns {
		fn("fault injection: connection dropped")
	}
	return len(fns)
}

// Run drops connections every Config.DropEvery until ctx ends, re-reading the period after each
// Set.
func (in *Injector) Run(ctx context.Context) {
	for {
		in.mu.Lock()
		changed := in.changed
		in.mu.Unlock()
		every := in.Config().DropEvery
		var tick <-chan time.Time
		var t *time.Ticker
		if every > 0 {
			t = time.NewTicker(every)
			tick = t.C
		}
		select {
		case <-ctx.Done():
			if t != nil {
				t.Stop()
			}
			return
		case <-changed:
		case <-tick:
			in.DropNow()
		}
		if t != nil {
			t.Stop()
		}
	}
}

// SkipNextUpdate withholds the next orderbookupdate push of symbol, once.
func (in *Injector) SkipNextUpdate(symbol string) {
	in.mu.Lock()
	in.skipNext[symbol]++
	in.mu.Unlock()
}

// SkipUpdate decides whether the orderbookupdate push number seq (1, 2, ...) of symbol is withheld,
// and counts it when it is. subscribed says whether anyone would have received it: a push nobody
// would have seen is not a detectable gap, so it is neither skipped nor counted.
func (in *Injector) SkipUpdate(symbol string, seq uint64, subscribed bool) bool {
	if in == nil || !subscribed {
		return false
	}
	skip := false
	if n := in.Config().SkipUpdateEvery; n > 0 && seq%uint64(n) == 0 {
		skip = true
	}
	in.mu.Lock()
	if !skip && in.skipNext[symbol] > 0 {
		in.skipNext[symbol]--
		skip = true
	}
	if skip {
		in.skipCount[symbol]++
	}
	in.mu.Unlock()
	if skip {
		in.skipped.Add(1)
	}
	return skip
}

// Stalled reports whether a market (private=false) or private stream must not send now,
// counting the withheld frame.
func (in *Injector) Stalled(private bool) bool {
	if in == nil || !in.Config().stalls(private) {
		return false
	}
	in.stalled.Add(1)
	return true
}

// StallsStream reports whether that kind of stream is stalled, without counting anything.
func (in *Injector) StallsStream(private bool) bool {
	return in != nil && in.Config().stalls(private)
}

// FrameDelay returns how long a frame is held back, counting it when it is.
func (in *Injector) FrameDelay() time.Duration {
	if in == nil {
		return 0
	}
	d := in.Config().Delay
	if d > 0 {
		in.delayed.Add(1)
	}
	return d
}

// Reorder reports whether the n-th frame (1, 2, ...) of a connection is to be swapped with the
// next one, counting the swap.
func (in *Injector) Reorder(n uint64) bool {
	if in == nil {
		return false
	}
	every := in.Config().ReorderEvery
	if every <= 0 || n%uint64(every) != 0 {
		return false
	}
	in.reordered.Add(1)
	return true
}

// WrapREST answers the configured fractions of HTTP requests with 429 (code -1003) or 500 (code
// -1000) in the venue's error envelope, and passes the rest (and every Websocket handshake) to
// next.
func (in *Injector) WrapREST(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c := in.Config()
		if (c.REST429 > 0 || c.REST5xx > 0) && r.Header.Get("Upgrade") == "" { // Websocket handshakes pass
			in.mu.Lock()
			x := in.rng.Float64()
			in.mu.Unlock()
			switch {
			case x < c.REST429:
				in.r429.Add(1)
				writeError(w, venue.CodeTooManyRequest, "fault injection: too many requests")
				return
			case x < c.REST429+c.REST5xx:
				in.r5xx.Add(1)
				writeError(w, venue.CodeUnknown, "fault injection: internal error")
				return
			}
		}
		next.ServeHTTP(w, r)
	})
}

func writeError(w http.ResponseWriter, code venue.Code, msg string) {
	info := code.Info()
	w.Header().Set("Content-Type", "application/json")
	if code == venue.CodeTooManyRequest {
		w.Header().Set("Retry-After", "1")
	}
	w.WriteHeader(info.HTTPStatus)
	body := `{"success":false,"code":` + strconv.Itoa(int(code)) + `,"message":` + strconv.Quote(msg) + `}`
	_, _ = w.Write([]byte(body))
}
