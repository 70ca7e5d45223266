package algo

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"time"

	"github.com/shopspring/decimal"

	"tradedeck/algo/store"
	"tradedeck/feed"
	"tradedeck/venue"
)

// Venue is what the engine needs of the venue's REST client (a
// *venue.Client; the simulator and paper trading are venues like any).
type Venue interface {
	SendOrder(ctx context.Context, r venue.OrderRequest) (venue.OrderAck, error)
	CancelOrderByClientID(ctx context.Context, symbol string, clientOrderID int64) error
	GetOrderByClientID(ctx context.Context, clientOrderID int64) (venue.Order, error)
	Positions(ctx context.Context) (venue.Positions, error)
	HoldingV2(ctx context.Context, all bool) ([]venue.HoldingV2, error)
	MarketTrades(ctx context.Context, symbol string, limit int) ([]venue.MarketTrade, error)
	SymbolRules(ctx context.Context) ([]venue.SymbolRule, error)
	OrderBook(ctx context.Context, symbol string, maxLevel int) (venue.OrderBook, error)
	FuturesInfo(ctx context.Context, symbol string) (venue.FuturesInfo, error)
}

var _ Venue = (*venue.Client)(nil)

// Config builds an Engine.
type Config struct {
	// Account keys the account's algos in the database (AccountKey).
	Account string
	Venue   Venue
	Store   *store.Store
	// Now is the clock (nil: time.Now).
	Now func() time.Time
	// AfterFunc runs f once d has passed on the same clock, and returns
	// a stop that reports whether it stopped f in time (nil:
	// time.AfterFunc). Every wait that is part of an algo's behaviour
	// runs on it (clock.go); a clock that only moves when told to (the
	// rehearsal's) moves once Quiet says the engine has done all it can.
	AfterFunc func(d time.Duration, f func()) (stop func() bool)
	// MaxAge is how old (venue time to local clock) a price may be and
	// still fire a trigger (0: DefaultMaxAge).
	MaxAge time.Duration
	// Retries bounds the re-sends of a stop-market's remainder and of a
	// send whose result was unknown (0: DefaultRetries).
	Retries int
	// Timeout bounds one REST call (0: 10 s).
	Timeout time.Duration
	// Poll is how often an open child is read from REST when the private
	// stream has not moved it (0: 2 s).
	Poll time.Duration
	// OnSymbols receives the symbols the algos watch whenever they change
	// (feed.Feed.Track), outside the engine's lock.
	OnSymbols func([]string)
	// Log receives one line per notable thing (never a secret); nil: none.
	Log func(string)
}

// DefaultMaxAge is how old a price may be and still fire a trigger.
const DefaultMaxAge = 2 * time.Second

// DefaultRetries bounds re-sends.
const DefaultRetries = 8

// AccountKey is the key of an account in the database: the venue's
// address and the API key (never the secret).
func AccountKey(ep venue.Endpoints, creds venue.Credentials) string {
	return ep.BaseURL + " " + creds.APIKey
}

// Errors of the engine's surface.
var (
	ErrNotFound    = errors.New("no such algo")
	ErrNotReady    = errors.New("the engine has not reconciled with the venue yet")
	ErrFinal       = errors.New("the algo is already finished")
	ErrNothing     = errors.New("nothing to protect")
	ErrThrough     = errors.New("the trigger is already through the market")
	ErrNoPrice     = errors.New("no fresh price of the trigger's source yet")
	ErrNoDecision  = errors.New("the algo does not need a decision")
	ErrNotPausable = errors.New("a protective order cannot be paused: cancel it, or move its trigger")
)

// Engine runs the algos of one account. It is a feed.Observer (give it
// to the feed's Config.Observer, or tee it with the alert engine) and its
// methods are safe for concurrent use.
type Engine struct {
	cfg    Config
	prefix int64 // client order id prefix of the database

	ready   chan struct{}
	isReady atomic.Bool
	// runCtx ends when Run's context does: every REST call and wait of
	// the engine's goroutines is bounded by it.
	runCtx  context.Context
	stopRun context.CancelFunc

	// market is the engine's view of the market stream (atomic: read on
	// every frame): live, and its generation, bumped on every reconnect.
	marketLive atomic.Bool
	// privateUp and privateLive (unix nanos) are the private stream's
	// state and its latest turn to live: news of a child before then may
	// never have been carried (missedByStream).
	privateUp   atomic.Bool
	privateLive atomic.Int64

	mu      sync.Mutex
	algos   map[ID]*algoState
	bySym   map[string]*symState
	pos     map[string]decimal.Decimal // signed perpetual positions (stream, REST)
	posSeen map[string]bool
	rules   map[string]ruleInfo
	cids    map[int64]*child
	// pollResting's round: when it last ran, and whether its reads are
	// still out.
	polledAt time.Time
	polling  bool
	events   []store.EventRow // not yet journaled
	// kick wakes Run's journal round when an event is emitted (the
	// round sleeps while no algo is live and nothing waits to be written).
	kick   chan struct{}
	rounds atomic.Int64 // journal rounds run (tests count them)

	// work is the working orders' clock (Config.Now; tests speed it up).
	work workClock

	subMu sync.Mutex
	subs  map[*subscriber]struct{}

	// wg counts the engine's goroutines (spawn); once Run's end began
	// waiting for them (stopping), nothing new starts.
	wg       sync.WaitGroup
	spawnMu  sync.Mutex
	stopping bool
}

var _ feed.Observer = (*Engine)(nil)

// New builds an engine on an open store. Run reconciles and starts it.
func New(c Config) (*Engine, error) {
	if c.Venue == nil || c.Store == nil || c.Account == "" {
		return nil, errors.New("algo: an engine needs a venue, a store and an account")
	}
	if c.Now == nil {
		c.Now = time.Now
	}
	if c.AfterFunc == nil {
		c.AfterFunc = realAfterFunc
	}
	if c.MaxAge <= 0 {
		c.MaxAge = DefaultMaxAge
	}
	if c.Retries <= 0 {
		c.Retries = DefaultRetries
	}
	if c.Timeout <= 0 {
		c.Timeout = 10 * time.Second
	}
	if c.Poll <= 0 {
		c.Poll = 2 * time.Second
	}
	e := &Engine{cfg: c, prefix: c.Store.ClientIDPrefix(), ready: make(chan struct{}), kick: make(chan struct{}, 1),
		algos: map[ID]*algoState{}, bySym: map[string]*symState{}, pos: map[string]decimal.Decimal{},
		posSeen: map[string]bool{}, rules: map[string]ruleInfo{}, cids: map[int64]*child{}, subs: map[*subscriber]struct{}{},
	}
	e.work = workClock{now: c.Now, speed: 1}
	e.runCtx, e.stopRun = context.WithCancel(context.Background())
	e.marketLive.Store(true)
	return e, nil
}

// Ready is closed once Run has reconciled with the venue and armed the
// algos; before that Add refuses.
func (e *Engine) Ready() <-chan struct{} { return e.ready }

func (e *Engine) logf(format string, a ...any) {
	if e.cfg.Log != nil {
		e.cfg.Log(sprintf(format, a...))
	}
}

// call bounds one REST call; protective calls go first in the rate
// limiter's queue (venue.Protective).
func (e *Engine) call(protective bool) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithTimeout(e.runCtx, e.cfg.Timeout)
	if protective {
		ctx = venue.Protective(ctx)
	}
	return ctx, cancel
}

// StopAlgos is CancelAll for desk.Config.Algos (flatten, panic cancel,
// read-only, cancel all of a symbol).
func (e *Engine) StopAlgos(symbol, why string) error {
	return e.CancelAll(Scope{Symbol: symbol, Why: why})
}

// spawn runs f on a goroutine Run waits for when it ends. Once Run began
// waiting, nothing new starts (false; a WaitGroup must not grow from zero
// while it is waited on): what was left is the next engine's to
// reconcile, from the journal.
func (e *Engine) spawn(f func()) bool {
	e.spawnMu.Lock()
	defer e.spawnMu.Unlock()
	if e.stopping {
		return false
	}
	e.wg.Add(1)
	go func() {
		defer e.wg.Done()
		f()
	}()
	return true
}
