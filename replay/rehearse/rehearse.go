// Package rehearse runs the desk's algo engine (package algo, unchanged)
// on a recording, on paper, and reports what it would have done: the
// headless form of `tradedeck replay FILE --rehearse LINE`.
//
// The recording is played in-process, record by record, as fast as the
// engine settles. Each market frame first moves the paper venue's book
// (the simulator's exchange, its book laid on by the paper-trading
// follower from the recorded book and trades), then reaches the engine as
// the feed would hand it (trades, bbo, mark prices), and the next frame
// waits until the engine is quiet (algo.Engine.Quiet) and every order
// event it caused has reached it. The engine's clock is the recording's.
// So an order the engine sends meets the book exactly as the recording
// stood when it decided, and the same recording and algos give the same
// report every time.
//
// Nothing here reaches a real venue: the paper venue listens on loopback
// only, keyed by the simulator's demo account, and the engine's database
// is a scratch file removed at the end.
package rehearse

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/shopspring/decimal"

	"tradedeck/algo"
	"tradedeck/algo/report"
	"tradedeck/algo/store"
	"tradedeck/feed"
	"tradedeck/record"
	"tradedeck/venue"
)

// Options of a rehearsal.
type Options struct {
	Path  string   // the recording (one part)
	Lines []string // algos in the engine's grammar (algo.Parse), added in order
	// Positions are opened (a MARKET order on the paper book) before the
	// algos are added: a stop needs a position to protect.
	Positions []Position
	// From is when the algos are added: the first moment at or after it
	// when each of their symbols has a book and a best bid and ask (zero:
	// the first such moment of the recording).
	From time.Time
	// Log gets the engine's lines (events, notable things); nil: none.
	Log func(string)
	// Settle bounds the wait for the engine after one frame (default 30 s
	// of wall time): a longer one is a stuck engine, reported as an error.
	Settle time.Duration
}

// Position is a perpetual position (signed: negative is short) or a spot
// holding to buy, opened before the algos.
type Position struct {
	Symbol string
	Qty    decimal.Decimal
}

// ParsePosition reads SYMBOL=QTY (QTY signed: -0.5 is a short).
func ParsePosition(s string) (Position, error) {
	sym, q, ok := strings.Cut(s, "=")
	qty, err := decimal.NewFromString(strings.TrimSpace(q))
	if !ok || err != nil || qty.IsZero() {
		return Position{}, fmt.Errorf("rehearse: position %q: want SYMBOL=QTY (negative for a short), e.g. PERP_BTC_USDT=0.05", s)
	}
	return Position{Symbol: strings.ToUpper(strings.TrimSpace(sym)), Qty: qty}, nil
}

// Run plays the recording through the engine and returns the report.
func Run(ctx context.Context, o Options) (report.Report, error) {
	if len(o.Lines) == 0 {
		return report.Report{}, errors.New("rehearse: no algo to rehearse")
	}
	r, err := newRun(o)
	if err != nil {
		return report.Report{}, err
	}
	defer r.close()
	if err := r.play(ctx); err != nil {
		return report.Report{}, err
	}
	return r.report()
}

// run is one rehearsal in progress.
type run struct {
	opts    Options
	specs   []algo.Spec
	symbols []string
	want    map[string]bool

	clk    recClock // the recording's clock: receive time of the record being played, or of a timer due before it
	rules  []venue.SymbolRule
	scales map[string]feed.Scale
	books  map[string]venue.OrderBook // recorded books before the paper venue opened
	// drainMu orders the deliveries of the paper venue's events (the
	// driver's and the REST server's) and guards what they touch.
	drainMu   sync.Mutex
	delivered int // events the REST server delivered since the driver's last drain
	bbo       map[string]feed.BBO
	tape      map[string][]report.Print
	first     time.Time // first market frame of the rehearsed symbols
	last      time.Time // last one
	started   bool      // the positions are open and the algos added

	paper   *paper
	dir     string
	st      *store.Store
	eng     *algo.Engine
	stopEng context.CancelFunc
	engDone chan error

	starts  []report.Start
	fills   []report.Fill
	opening []report.Fill // fills of the positions opened first
	orders  []report.Order
	orderAt map[int64]int // index in orders by client order id
	// openFilled is what each opening order filled, by client order id.
	openFilled map[int64]decimal.Decimal
}

func newRun(o Options) (*run, error) {
	r := &run{opts: o, want: map[string]bool{}, scales: map[string]feed.Scale{}, books: map[string]venue.OrderBook{},
		bbo: map[string]feed.BBO{}, tape: map[string][]report.Print{}, openFilled: map[int64]decimal.Decimal{}, orderAt: map[int64]int{}}
	if r.opts.Settle <= 0 {
		r.opts.Settle = 30 * time.Second
	}
	for _, line := range o.Lines {
		s, err := algo.Parse(line)
		if err != nil {
			return nil, fmt.Errorf("rehearse %q: %w", line, err)
		}
		r.specs = append(r.specs, s)
		r.addSymbol(s.Symbol)
	}
	for _, p := range o.Positions {
		r.addSymbol(p.Symbol)
	}
	return r, nil
}

func (r *run) addSymbol(s string) {
	if !r.want[s] {
		r.want[s] = true
		r.symbols = append(r.symbols, s)
	}
}

// clock is the engine's and the paper venue's clock.
func (r *run) clock() time.Time { return r.clk.Now() }

// play reads the recording through.
func (r *run) play(ctx context.Context) error {
	f, err := os.Open(r.opts.Path)
	if err != nil {
		return err
	}
	defer f.Close()
	rd, err := record.NewReader(f)
	if err != nil {
		return err
	}
	defer rd.Close()
	if err := r.checkSymbols(rd.Header()); err != nil {
		return err
	}
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		rec, err := rd.Next()
		var fe *record.FormatError
		if errors.Is(err, io.EOF) || (errors.As(err, &fe) && fe.Truncated) {
			break
		}
		if err != nil {
			return err
		}
		if err := r.runTimers(rec.Time); err != nil {
			return err
		}
		r.clk.set(rec.Time)
		if err := r.apply(rec); err != nil {
			return err
		}
	}
	if !r.started {
		return r.neverStarted()
	}
	if err := r.settle(); err != nil {
		return err
	}
	return r.runTimers(r.clk.now.Load()) // the timers due by the last record
}

// checkSymbols refuses an algo on a symbol the recording does not hold.
func (r *run) checkSymbols(h record.Header) error {
	have := map[string]bool{}
	for _, s := range h.Symbols {
		have[s] = true
	}
	for _, s := range r.symbols {
		if len(h.Symbols) > 0 && !have[s] {
			return fmt.Errorf("rehearse: %s is not in the recording (it holds %s)", s, strings.Join(h.Symbols, ", "))
		}
	}
	return nil
}

func (r *run) neverStarted() error {
	if !r.opts.From.IsZero() && r.last.Before(r.opts.From) {
		return fmt.Errorf("rehearse: the recording ends at %s, before --from", r.last.UTC().Format(time.RFC3339Nano))
	}
	return fmt.Errorf("rehearse: the recording never had a book and a best bid and ask of %s at once: nothing was rehearsed", strings.Join(r.symbols, ", "))
}

// close stops the engine and the paper venue and removes the scratch
// database.
func (r *run) close() {
	if r.stopEng != nil {
		r.stopEng()
		if err := <-r.engDone; err != nil && r.opts.Log != nil {
			r.opts.Log("rehearse: engine: " + err.Error())
		}
	}
	if r.st != nil {
		_ = r.st.Close() // a scratch file, removed next
	}
	if r.paper != nil {
		_ = r.paper.close() // loopback, done with: nothing left to serve
	}
	if r.dir != "" {
		_ = os.RemoveAll(r.dir) // best effort: a temp directory
	}
}

// startEngine opens the paper venue and runs the engine on it, on a
// scratch database (recorded data never touches the desk's own).
func (r *run) startEngine() error {
	mids := map[string]decimal.Decimal{}
	for s, ob := range r.books {
		if len(ob.Bids) > 0 && len(ob.Asks) > 0 {
			mids[s] = ob.Bids[0].Price.Add(ob.Asks[0].Price).Div(decimal.NewFromInt(2))
		}
	}
	p, err := openPaper(r.rules, r.symbols, mids, r.clock, r.deliverAfterRequest)
	if err != nil {
		return err
	}
	r.drainMu.Lock() // the REST server's goroutines read these (deliverAfterRequest)
	defer r.drainMu.Unlock()
	r.paper = p
	for s, ob := range r.books {
		p.follow.LoadBook(s, ob)
	}
	if r.dir, err = os.MkdirTemp("", "tradedeck-rehearse-*"); err != nil {
		return err
	}
	if r.st, err = store.Open(store.Path(r.dir)); err != nil {
		return err
	}
	r.eng, err = algo.New(algo.Config{Account: "rehearsal " + p.client.Endpoints().BaseURL, Venue: p.client, Store: r.st,
		Now: r.clk.Now, AfterFunc: r.clk.AfterFunc, Poll: time.Minute, Log: r.opts.Log})
	return err
}

// runEngine starts the engine and waits until it reconciled.
func (r *run) runEngine() error {
	ctx, cancel := context.WithCancel(context.Background())
	r.stopEng, r.engDone = cancel, make(chan error, 1)
	go func() { r.engDone <- r.eng.Run(ctx) }()
	select {
	case <-r.eng.Ready():
		return r.settle()
	case err := <-r.engDone:
		r.stopEng = nil
		return fmt.Errorf("rehearse: the engine did not start: %w", err)
	case <-time.After(r.opts.Settle):
		return errors.New("rehearse: the engine did not reconcile with the paper venue in time")
	}
}
