package alerts

import (
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"tradedeck/feed"
)

// DefaultCooldown separates two firings of an `every` alert that set no
// cooldown of its own (price kinds; order and stream events have none).
const DefaultCooldown = time.Minute

// Options configure an Engine.
type Options struct {
	// Store keeps the alerts; nil keeps them in memory only (tests).
	Store *Store
	// Now is the clock (nil: time.Now).
	Now func() time.Time
	// Cooldown is the default cooldown of `every` threshold alerts
	// (0: DefaultCooldown).
	Cooldown time.Duration
	// OnFire receives each firing, outside the engine's lock. It must not
	// block: it runs on the feed's goroutines (Deliverer.Deliver queues).
	OnFire func(Fired)
	// OnSymbols receives the symbols the alerts watch whenever they
	// change (feed.Feed.Track), outside the engine's lock.
	OnSymbols func([]string)
	// OnError receives persistence errors (an unreadable file, a full disk).
	OnError func(error)
	// Check accepts or refuses an alert's action when it is added (the
	// algo exists in the account, the action can be done to it); nil:
	// alerts here cannot act, and one with an action is refused.
	Check func(Action) error
	// By names who adds alerts through this engine (Alert.By).
	By string
}

// Engine evaluates alerts on the feed's data. It is a feed.Observer; its
// methods are safe for concurrent use.
type Engine struct {
	opts Options

	// syncMu makes each round trip with the store whole: two syncs (the
	// run loop's flush and an add) could otherwise apply their files in
	// the other order, and the older file would take back firings the
	// newer one had counted.
	syncMu sync.Mutex

	mu      sync.Mutex
	watches map[int]*watch
	bySym   map[string][]*watch // symbol (or "*") -> its alerts
	streams []*watch
	file    File // the last file read or written (history, counters)
	pending []Fired
	symbols []string

	positions map[string]*position
	health    map[string]time.Time // stream -> down since (absent: up)
	orders    orderMemory
	stamp     Stamp
	fileID    string // the store's absolute path ("memory": none), for firings' keys

	realClock bool          // Options.Now is the system's: Run sleeps until what is due
	poke      chan struct{} // cap 1: something may be due sooner than Run sleeps (run.go)
	wakes     atomic.Int64  // Run's wake-ups (tests count them)
}

var _ feed.Observer = (*Engine)(nil)

// NewEngine builds an engine and loads its store.
func NewEngine(o Options) (*Engine, error) {
	realClock := o.Now == nil
	if realClock {
		o.Now = time.Now
	}
	if o.Cooldown <= 0 {
		o.Cooldown = DefaultCooldown
	}
	e := &Engine{opts: o, watches: map[int]*watch{}, positions: map[string]*position{},
		health: map[string]time.Time{}, orders: newOrderMemory(20000), realClock: realClock, poke: make(chan struct{}, 1)}
	e.file = File{Version: 1, NextID: 1, NextSeq: 1}
	e.fileID = "memory"
	if o.Store != nil {
		e.fileID = o.Store.Path()
		if abs, err := filepath.Abs(e.fileID); err == nil {
			e.fileID = abs // `--file alerts.json` from two directories is two files
		}
		e.stamp = o.Store.Stamp()
		f, err := o.Store.Load()
		if err != nil {
			return nil, err
		}
		e.file = f
	}
	e.mu.Lock()
	e.rebuildLocked()
	syms := e.symbols
	e.mu.Unlock()
	e.announce(syms)
	return e, nil
}

func (e *Engine) announce(syms []string) {
	if e.opts.OnSymbols != nil {
		e.opts.OnSymbols(syms)
	}
}

// rebuildLocked makes the watches match e.file.Alerts, keeping the
// runtime state (armed, unsaved firings) of alerts that stay.
func (e *Engine) rebuildLocked() {
	old := e.watches
	e.watches = make(map[int]*watch, len(e.file.Alerts))
	e.bySym = map[string][]*watch{}
	e.streams = e.streams[:0]
	for _, a := range e.file.Alerts {
		w := old[a.ID]
		if w == nil || !sameCondition(&w.a, &a) {
			w = newWatch(a)
		} else {
			w.merge(a)
		}
		e.watches[a.ID] = w
		if a.Kind == KindStream {
			e.streams = append(e.streams, w)
		} else {
			e.bySym[a.Symbol] = append(e.bySym[a.Symbol], w)
		}
	}
	var syms []string
	for s := range e.bySym {
		if s != AnySymbol {
			syms = append(syms, s)
		}
	}
	sort.Strings(syms)
	e.symbols = syms
	e.wake() // a stream alert added or changed may be due before Run's sleep ends
}

// Symbols lists the symbols the alerts watch (the ones to Track).
func (e *Engine) Symbols() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return slices.Clone(e.symbols)
}

// List returns every alert, by ID.
func (e *Engine) List() []Alert {
	e.mu.Lock()
	defer e.mu.Unlock()
	out := make([]Alert, 0, len(e.watches))
	for _, w := range e.watches {
		out = append(out, w.a)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

// History returns the fired alerts, newest first, including those not yet
// written to the file.
func (e *Engine) History() []Fired {
	e.mu.Lock()
	defer e.mu.Unlock()
	out := make([]Fired, 0, len(e.file.Fired)+len(e.pending))
	for i := len(e.pending) - 1; i >= 0; i-- {
		out = append(out, e.pending[i])
	}
	for i := len(e.file.Fired) - 1; i >= 0; i-- {
		out = append(out, e.file.Fired[i])
	}
	return out
}

// Unread counts the fired alerts not yet read.
func (e *Engine) Unread() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.file.Unread() + len(e.pending)
}

// ErrNotFound: no alert has this ID.
var ErrNotFound = errors.New("no such alert")

// ErrCannotAct refuses an alert with an action where nothing can act.
var ErrCannotAct = errors.New("alerts here cannot act on algos (no engine of the account)")

// Add stores a new alert (from Parse) and starts watching it. An alert
// with an action is refused, with the reason, unless Options.Check
// accepts the action.
func (e *Engine) Add(a Alert) (Alert, error) {
	if a.Then != nil {
		if e.opts.Check == nil {
			return a, ErrCannotAct
		}
		if err := e.opts.Check(*a.Then); err != nil {
			return a, fmt.Errorf("then %s: %w", a.Then, err)
		}
	}
	a.By = e.opts.By
	a.Created = e.opts.Now()
	if a.Every && a.Cooldown == 0 && thresholdKind(a.Kind) {
		a.Cooldown = Duration(e.opts.Cooldown)
	}
	var added Alert
	err := e.change(func(f *File) error {
		added = AddTo(f, a)
		return nil
	})
	return added, err
}

// AddTo appends a to f with the next ID and returns it as stored.
func AddTo(f *File, a Alert) Alert {
	a.ID = f.NextID
	f.NextID++
	a.Done, a.Count, a.Last = false, 0, time.Time{}
	f.Alerts = append(f.Alerts, a)
	return a
}

// Remove deletes an alert.
func (e *Engine) Remove(id int) error {
	return e.change(func(f *File) error { return RemoveFrom(f, id) })
}

// RemoveFrom deletes alert id from f.
func RemoveFrom(f *File, id int) error {
	for i := range f.Alerts {
		if f.Alerts[i].ID == id {
			f.Alerts = slices.Delete(f.Alerts, i, i+1)
			return nil
		}
	}
	return fmt.Errorf("alert %d: %w", id, ErrNotFound)
}

// SetPaused pauses or resumes an alert; resuming a fired once alert arms
// it again.
func (e *Engine) SetPaused(id int, paused bool) error {
	return e.change(func(f *File) error {
		a := f.Find(id)
		if a == nil {
			return fmt.Errorf("alert %d: %w", id, ErrNotFound)
		}
		a.Paused = paused
		if !paused {
			a.Done = false
		}
		return nil
	})
}

// MarkRead marks every fired alert read.
func (e *Engine) MarkRead() error {
	e.mu.Lock()
	for i := range e.pending {
		e.pending[i].Read = true
	}
	e.mu.Unlock()
	return e.change(func(f *File) error {
		for i := range f.Fired {
			f.Fired[i].Read = true
		}
		return nil
	})
}

// change applies fn to the stored file (with the firings not yet saved)
// and reloads the watches from the result.
func (e *Engine) change(fn func(*File) error) error {
	if e.opts.Store == nil {
		e.mu.Lock()
		f := e.file
		f.Alerts = slices.Clone(f.Alerts)
		e.saveLocked(&f)
		err := fn(&f)
		if err == nil {
			e.file = f
			e.rebuildLocked()
		}
		syms := e.symbols
		e.mu.Unlock()
		e.announce(syms)
		return err
	}
	return e.sync(fn)
}

// Flush writes the firings not yet saved and picks up another process's
// changes to the file (`alerts add` while the dashboard runs).
func (e *Engine) Flush() error {
	if e.opts.Store == nil {
		return nil
	}
	now := e.opts.Store.Stamp()
	e.mu.Lock()
	same := len(e.pending) == 0 && now == e.stamp
	e.mu.Unlock()
	if same {
		return nil
	}
	return e.sync(nil)
}

// sync is one round trip with the store: the unsaved firings go in, fn
// runs, and the watches follow the file that was written.
func (e *Engine) sync(fn func(*File) error) error {
	e.syncMu.Lock()
	defer e.syncMu.Unlock()
	var taken []Fired
	counts := map[int]*watch{}
	f, err := e.opts.Store.Update(func(f *File) error {
		e.mu.Lock()
		defer e.mu.Unlock()
		taken = e.saveLocked(f)
		for _, x := range taken {
			counts[x.Alert] = e.watches[x.Alert]
		}
		if fn != nil {
			return fn(f)
		}
		return nil
	})
	e.mu.Lock()
	if err != nil && len(taken) > 0 {
		e.pending = append(taken, e.pending...) // not saved: try again later
		for _, w := range counts {
			if w != nil {
				w.unsaved = true
			}
		}
	}
	if err == nil {
		e.file = f
		e.stamp = e.opts.Store.Stamp()
		e.rebuildLocked()
	}
	syms := e.symbols
	e.mu.Unlock()
	e.announce(syms)
	return err
}

// saveLocked moves the pending firings and the fired alerts' counters
// into f; it returns the firings it moved.
func (e *Engine) saveLocked(f *File) []Fired {
	taken := e.pending
	e.pending = nil
	for i := range taken {
		taken[i].Seq = f.NextSeq
		f.NextSeq++
	}
	f.Fired = append(f.Fired, taken...)
	for _, w := range e.watches {
		if !w.unsaved {
			continue
		}
		w.unsaved = false
		if a := f.Find(w.a.ID); a != nil {
			a.Count = max(a.Count, w.a.Count)
			if w.a.Last.After(a.Last) {
				a.Last = w.a.Last
			}
			a.Done = a.Done || w.a.Done
		}
	}
	return taken
}

func (e *Engine) report(err error) {
	if err != nil && e.opts.OnError != nil {
		e.opts.OnError(err)
	}
}

// fire records one firing of w (called with e.mu held) and returns it for
// delivery after the lock is released.
func (e *Engine) fireLocked(w *watch, now time.Time, symbol, value, msg string) Fired {
	w.a.Count++
	w.a.Last = now
	if !w.a.Every {
		w.a.Done = true
	}
	w.unsaved = true
	x := Fired{Alert: w.a.ID, Symbol: symbol, Kind: w.a.Kind, Value: value, Message: msg, Time: now,
		Action: w.a.Then, By: w.a.By, N: w.a.Count, Key: e.firingKey(&w.a)}
	if w.a.Then != nil {
		x.Message += " (then " + w.a.Then.String() + ")"
	}
	e.pending = append(e.pending, x)
	if len(e.pending) > HistoryLimit {
		e.pending = e.pending[len(e.pending)-HistoryLimit:]
	}
	return x
}

// firingKey names the firing of a at its count: the alerts file, the
// alert's number and creation time (a number is used again only in a new
// file), and the count.
func (e *Engine) firingKey(a *Alert) string {
	return fmt.Sprintf("%s#%d@%d/%d", e.fileID, a.ID, a.Created.UnixMilli(), a.Count)
}

func (e *Engine) deliver(fired []Fired) {
	if e.opts.OnFire == nil {
		return
	}
	for _, x := range fired {
		e.opts.OnFire(x)
	}
}

// thresholdKind: the kinds whose condition holds for a while (a level),
// as opposed to events (an order report) and outages (stream).
func thresholdKind(k Kind) bool { return k != KindOrder && k != KindStream }
