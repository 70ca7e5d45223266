package app

// The protective-orders engine in the dashboard, minimally (issue 25's
// hosts are helper algohost's: the lock that makes a second process a
// view, serve, the headless desk). Here: the embedded simulated venue
// and paper trading, whose account is this process's alone, run the
// engine in process and hand it to the screens; a live or staging venue
// waits for the lock before it runs one.

import (
	"context"
	"slices"
	"sync"

	"tradedeck/alerts"
	"tradedeck/algo"
	"tradedeck/algo/store"
	"tradedeck/feed"
	"tradedeck/ui"
)

// dashAlgos is the venue's engine and the symbols it keeps subscribed
// (merged with the alerts' before they reach the feed's Track, which
// replaces its set on each call).
type dashAlgos struct {
	engine *algo.Engine
	mu     sync.Mutex
	track  func([]string)
	alert  []string
	algos  []string
}

// startAlgos builds the engine of an account no other process can share
// (nil otherwise, or when its database cannot be opened: the screens then
// say "engine not running").
func (v *Venue) startAlgos(ctx context.Context) *dashAlgos {
	if v.Label != "SIM" && v.Label != "PAPER" || !v.Credentials.HasKeys() || v.replay != nil {
		return nil
	}
	st, err := store.Open(store.Path(alerts.StateDir(nil)))
	if err != nil {
		return nil
	}
	d := &dashAlgos{}
	e, err := algo.New(algo.Config{Account: algo.AccountKey(v.Endpoints, v.Credentials), Venue: v.Client, Store: st,
		OnSymbols: func(s []string) { d.set(nil, s) }})
	if err != nil {
		_ = st.Close()
		return nil
	}
	d.engine = e
	v.algos = d
	context.AfterFunc(ctx, func() { _ = st.Close() })
	return d
}

// Observer is the engine as the feed's observer (nil interface without one).
func (d *dashAlgos) Observer() feed.Observer {
	if d == nil {
		return nil
	}
	return d.engine
}

// SetTrack connects the union of the alerts' and the engine's symbols to
// the feed; alertTrack is what the alerts' fanout calls.
func (d *dashAlgos) SetTrack(track func([]string)) {
	d.mu.Lock()
	d.track = track
	d.mu.Unlock()
	d.set(nil, nil)
}

func (d *dashAlgos) alertTrack(s []string) { d.set(s, nil) }

func (d *dashAlgos) set(alert, algos []string) {
	d.mu.Lock()
	if alert != nil {
		d.alert = alert
	}
	if algos != nil {
		d.algos = algos
	}
	union := slices.Compact(slices.Sorted(slices.Values(append(slices.Clone(d.alert), d.algos...))))
	track := d.track
	d.mu.Unlock()
	if track != nil {
		track(union)
	}
}

// algosUI is what the screens get: the engine, or nil.
func (v *Venue) algosUI() ui.Algos {
	if v.algos == nil {
		return nil
	}
	return v.algos.engine
}
