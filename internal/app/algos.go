package app

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/shopspring/decimal"

	"tradedeck/algo"
	"tradedeck/algo/control"
	"tradedeck/algo/store"
	"tradedeck/panes/common"
	"tradedeck/ui"
	"tradedeck/xdg"
)

// The protective-orders engine of the venue's account, one per account
// across processes (docs/algos.md "What runs where"): the process that
// takes the account's lock runs the engine and answers the others on its
// socket; a process that cannot take it is a view of the one that did;
// a process that may not trade (read-only, an SSH viewer's server) never
// runs it. Algos is what every host hands on: the screens (ui.Options),
// the desk (flatten and panic cancel stop the algos first), alerts.

// AlgoSource is the engine's method set the screens and commands use
// (the screens' own seam, ui.Algos): *algo.Engine here, *control.Client
// for the engine of another process.
type AlgoSource = ui.Algos

var (
	_ AlgoSource = (*algo.Engine)(nil)
	_ AlgoSource = (*control.Client)(nil)
)

// Place says where the engine of the account runs, for the screens.
type Place uint8

const (
	PlaceNone     Place = iota // no process runs it: nothing protects the positions
	PlaceStarting              // this process runs it and is reconciling with the venue
	PlaceHere                  // this process runs it
	PlaceView                  // another process runs it; this one is a view
)

// AlgoOptions say how a process hosts the engine.
type AlgoOptions struct {
	// Host names the process in the lock ("dashboard", "desk", "serve").
	Host string
	// MayRun: this process may run the engine (it trades). Without it the
	// process is at most a view.
	MayRun bool
	// Log receives the engine's and the socket's lines (never a secret).
	Log func(string)
	// Audit, when set, hears every change a view asked for over the
	// socket (serve's audit).
	Audit func(by, op, detail string, err error)
	// OnLive, when set, hears whether the engine running here has a live
	// algo (one not in a final state), each time that may have changed
	// (algolive.go); the dashboard holds its processors by it.
	OnLive func(live bool)
}

// accountState is where the engine of the venue's account keeps its
// database, lock and socket, and the account's key in them. The embedded
// simulator (and a replay's paper account) lives and dies with this
// process, so its engine's state is a directory of its own, removed at
// exit (tests and dashboards never collide); a paper account kept in a
// file is keyed by that file; the live and staging venues (and `tradedeck sim` reached as one with
// --live --config) by the venue's address and the API key.
func (v *Venue) accountState() (dir, account string, cleanup func(), err error) {
	switch {
	case v.Label == "SIM" || v.Label == "REPLAY" || (v.Label == "PAPER" && v.paperState == ""):
		dir, err = os.MkdirTemp(os.Getenv("XDG_RUNTIME_DIR"), "tradedeck-"+lower(v.Label)+"-")
		if err != nil {
			return "", "", nil, fmt.Errorf("engine state: %w", err)
		}
		return dir, algo.AccountKey(v.Endpoints, v.Credentials), func() { _ = os.RemoveAll(dir) }, nil
	case v.Label == "PAPER":
		abs, err := filepath.Abs(v.paperState)
		if err != nil {
			return "", "", nil, err
		}
		return xdg.State(nil), "paper " + abs + " " + v.Credentials.APIKey, func() {}, nil
	}
	return xdg.State(nil), algo.AccountKey(v.Endpoints, v.Credentials), func() {}, nil
}

func lower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

// Algos is the engine of the venue's account as this process has it: the
// engine itself, a view of another process's, or none (with why). When
// the engine's process of a view ends, the view takes the lock and runs
// the engine here (if it may), or waits for another.
type Algos struct {
	v     *Venue
	o     AlgoOptions
	paths control.Paths
	dir   string
	acct  string
	clean func()

	mu     sync.Mutex
	engine *algo.Engine
	view   *control.Client
	store  *store.Store
	lock   *control.Lock
	place  Place
	where  string // "process 4242 (tradedeck desk)", or why none runs
	subs   map[*algoSub]struct{}
	ready  chan struct{}

	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
}

type algoSub struct {
	ch   chan algo.Event
	stop func() // the current source's subscription
}

// errNoEngine refuses what needs an engine when none runs.
var errNoEngine = errors.New("engine not running: nothing protects these positions")

// StartAlgos finds or starts the engine of the venue's account.
func (v *Venue) StartAlgos(ctx context.Context, o AlgoOptions) (*Algos, error) {
	a := &Algos{v: v, o: o, subs: map[*algoSub]struct{}{}, ready: make(chan struct{}), clean: func() {}}
	a.ctx, a.cancel = context.WithCancel(ctx)
	if !v.Credentials.HasKeys() {
		a.where = "no API keys: no engine"
		return a, nil
	}
	dir, acct, clean, err := v.accountState()
	if err != nil {
		return nil, err
	}
	a.dir, a.acct, a.clean = dir, acct, clean
	if a.paths, err = control.PathsOf(control.Dir(dir), acct); err != nil {
		clean()
		return nil, err
	}
	if err := a.settle(); err != nil {
		a.Close()
		return nil, err
	}
	a.wg.Add(1)
	go a.watch()
	return a, nil
}

// settle runs the engine here if this process may and can take the lock,
// else becomes a view of the process that holds it, else none.
func (a *Algos) settle() error {
	if a.o.MayRun {
		lock, err := control.Acquire(a.paths, control.Holder{PID: os.Getpid(), Venue: a.v.Label, Host: a.o.Host, Started: time.Now()})
		if err == nil {
			return a.runHere(lock)
		}
		if !errors.Is(err, control.ErrHeld) {
			return err
		}
	}
	ctx, cancel := context.WithTimeout(a.ctx, 5*time.Second)
	defer cancel()
	c, err := control.Find(ctx, a.paths, "tradedeck "+a.o.Host) // the engine adds this process's id
	a.mu.Lock()
	defer a.mu.Unlock()
	if err != nil {
		a.place, a.where = PlaceNone, "engine not running: nothing protects these positions"
		if !errors.Is(err, control.ErrNotRunning) {
			a.where = err.Error()
		}
		return nil
	}
	a.view, a.place, a.where = c, PlaceView, c.Info().String()
	a.resubscribeLocked(c)
	return nil
}

// runHere opens the database and runs the engine under lock.
func (a *Algos) runHere(lock *control.Lock) error {
	st, err := store.Open(store.Path(a.dir))
	if err != nil {
		lock.Release()
		return err
	}
	member := a.v.alerts.Join() // the algos' symbols stay subscribed at full rate
	e, err := algo.New(algo.Config{Account: a.acct, Venue: a.v.Client, Store: st, OnSymbols: member.Track, Log: a.o.Log, Now: a.v.clock})
	if err != nil {
		member.Leave()
		st.Close()
		lock.Release()
		return err
	}
	l, err := control.Listen(lock.Paths.Socket)
	if err != nil {
		member.Leave()
		st.Close()
		lock.Release()
		return err
	}
	a.v.algoObs.e.Store(e)
	srv := control.NewServer(control.ServerConfig{Engine: e, Log: a.o.Log, Action: a.o.Audit,
		Info: control.Info{Holder: control.Holder{PID: os.Getpid(), Venue: a.v.Label, Host: a.o.Host}, Account: a.v.Endpoints.BaseURL}})
	a.mu.Lock()
	a.engine, a.store, a.lock, a.place, a.where = e, st, lock, PlaceStarting, ""
	a.resubscribeLocked(e)
	a.mu.Unlock()
	if a.o.OnLive != nil {
		a.wg.Add(1)
		go func() { defer a.wg.Done(); reportLive(a.ctx, e, a.o.OnLive) }()
	}
	a.wg.Add(2)
	go func() {
		defer a.wg.Done()
		defer member.Leave()
		if err := e.Run(a.ctx); err != nil && a.o.Log != nil {
			a.o.Log("engine: " + err.Error())
		}
	}()
	go func() {
		defer a.wg.Done()
		if err := srv.Serve(a.ctx, l); err != nil && a.o.Log != nil {
			a.o.Log(err.Error())
		}
	}()
	go func() {
		select {
		case <-e.Ready():
			a.mu.Lock()
			if a.place == PlaceStarting {
				a.place = PlaceHere
			}
			a.mu.Unlock()
			close(a.ready)
		case <-a.ctx.Done():
		}
	}()
	return nil
}

// watch follows a view's engine: when its process ends, this one takes
// over (or finds the next holder), every few seconds while none runs.
func (a *Algos) watch() {
	defer a.wg.Done()
	for {
		a.mu.Lock()
		view, here := a.view, a.engine != nil
		a.mu.Unlock()
		if here {
			return
		}
		var gone <-chan struct{}
		if view != nil {
			gone = view.Done()
		}
		select {
		case <-a.ctx.Done():
			return
		case <-gone:
			if a.o.Log != nil {
				a.o.Log("the engine's process ended: " + view.Err().Error())
			}
			a.mu.Lock()
			a.view, a.place, a.where = nil, PlaceNone, "engine not running: its process ended"
			a.mu.Unlock()
		case <-time.After(3 * time.Second):
			if view != nil {
				continue
			}
		}
		if err := a.settle(); err != nil && a.o.Log != nil {
			a.o.Log("engine: " + err.Error())
		}
	}
}

// resubscribeLocked moves every subscriber to src.
func (a *Algos) resubscribeLocked(src AlgoSource) {
	for s := range a.subs {
		a.follow(s, src)
	}
}

// follow forwards src's events to s until src's channel closes.
func (a *Algos) follow(s *algoSub, src AlgoSource) {
	if s.stop != nil {
		s.stop()
	}
	ch, stop := src.Subscribe(cap(s.ch))
	s.stop = stop
	go func() {
		for ev := range ch {
			select {
			case s.ch <- ev:
			default:
			}
		}
	}()
}

// source is the engine or view now (nil: none).
func (a *Algos) source() AlgoSource {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.engine != nil {
		return a.engine
	}
	if a.view != nil {
		return a.view
	}
	return nil
}

// Engine is the engine when this process runs it.
func (a *Algos) Engine() *algo.Engine {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.engine
}

// Store is the engine's database when this process runs it (nil else).
func (a *Algos) Store() *store.Store {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.store
}

// Place says where the engine runs, and who runs it or why none does.
func (a *Algos) Place() (Place, string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.place, a.where
}

// Ready is closed once this process's engine reconciled (never, for a
// view: it is ready when its engine answers).
func (a *Algos) Ready() <-chan struct{} { return a.ready }

// Close stops the engine (journaling what moved), its socket, and drops
// the lock; a view hangs up.
func (a *Algos) Close() {
	a.cancel()
	a.wg.Wait()
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.engine != nil {
		a.v.algoObs.e.Store(nil)
	}
	if a.view != nil {
		_ = a.view.Close()
	}
	if a.store != nil {
		_ = a.store.Close()
	}
	a.lock.Release()
	for s := range a.subs {
		if s.stop != nil {
			s.stop()
		}
	}
	a.clean()
}

// The AlgoSource methods: the current engine's or view's.

func (a *Algos) Preview(s algo.Spec) (algo.Preview, error) {
	if src := a.source(); src != nil {
		return src.Preview(s)
	}
	return algo.Preview{}, a.none()
}

func (a *Algos) Add(s algo.Spec, c algo.Confirm) (algo.Algo, error) {
	if src := a.source(); src != nil {
		return src.Add(s, c)
	}
	return algo.Algo{}, a.none()
}

func (a *Algos) Cancel(id algo.ID, why string) error {
	if src := a.source(); src != nil {
		return src.Cancel(id, why)
	}
	return a.none()
}

func (a *Algos) CancelAll(sc algo.Scope) error {
	if src := a.source(); src != nil {
		return src.CancelAll(sc)
	}
	return nil // nothing runs, nothing fires: the desk may go on
}

func (a *Algos) AmendTrigger(id algo.ID, leg algo.Leg, price decimal.Decimal) error {
	if src := a.source(); src != nil {
		return src.AmendTrigger(id, leg, price)
	}
	return a.none()
}

func (a *Algos) Resolve(id algo.ID, d algo.Decision) error {
	if src := a.source(); src != nil {
		return src.Resolve(id, d)
	}
	return a.none()
}

func (a *Algos) Pause(id algo.ID, why string) error {
	if src := a.source(); src != nil {
		return src.Pause(id, why)
	}
	return a.none()
}

func (a *Algos) Resume(id algo.ID) error {
	if src := a.source(); src != nil {
		return src.Resume(id)
	}
	return a.none()
}

func (a *Algos) Tighten(id algo.ID, percent, distance decimal.Decimal) error {
	if src := a.source(); src != nil {
		return src.Tighten(id, percent, distance)
	}
	return a.none()
}

func (a *Algos) Snapshot() []algo.Algo {
	if src := a.source(); src != nil {
		return src.Snapshot()
	}
	return nil
}

func (a *Algos) Protection() []algo.Protection {
	if src := a.source(); src != nil {
		return src.Protection()
	}
	return nil
}

// StopAlgos is CancelAll for desk.Config.Algos: flatten, panic cancel and
// cancel-all stop the algos first.
func (a *Algos) StopAlgos(symbol, why string) error {
	return a.CancelAll(algo.Scope{Symbol: symbol, Why: why})
}

// Subscribe follows the engine's events, across a takeover.
func (a *Algos) Subscribe(n int) (<-chan algo.Event, func()) {
	s := &algoSub{ch: make(chan algo.Event, max(n, 1))}
	a.mu.Lock()
	a.subs[s] = struct{}{}
	if a.engine != nil {
		a.follow(s, a.engine)
	} else if a.view != nil {
		a.follow(s, a.view)
	}
	a.mu.Unlock()
	return s.ch, func() {
		a.mu.Lock()
		defer a.mu.Unlock()
		if _, ok := a.subs[s]; ok {
			delete(a.subs, s)
			if s.stop != nil {
				s.stop()
			}
		}
	}
}

func (a *Algos) none() error {
	_, where := a.Place()
	if where == "" {
		return errNoEngine
	}
	return fmt.Errorf("%w (%s)", errNoEngine, where)
}

// uiAlgos is the engine as the screens take it (ui.Algos), saying where
// it runs (ui.AlgoPlace).
type uiAlgos struct {
	AlgoSource
	a *Algos
}

var (
	_ ui.Algos     = uiAlgos{}
	_ ui.AlgoPlace = uiAlgos{}
)

// Place is where the engine runs as the screens say it.
func (u uiAlgos) Place() (common.EngineState, string) {
	p, where := u.a.Place()
	switch p {
	case PlaceStarting:
		return common.EngineStarting, where
	case PlaceHere:
		return common.EngineHere, where
	case PlaceView:
		return common.EngineView, where
	}
	return common.EngineNone, where
}

// forUI is the venue's engine for one screen (nil: no process can run it
// here: no keys, a replay).
func (v *Venue) forUI() ui.Algos {
	src := v.algoSource()
	if src == nil || v.Algos == nil {
		return nil
	}
	return uiAlgos{AlgoSource: src, a: v.Algos}
}
