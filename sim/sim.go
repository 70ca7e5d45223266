// Package sim assembles the simulated venue: the exchange state, its REST
// API and (added by other packages through Mux) its Websocket streams and
// swap statistics, all on one loopback listener.
package sim

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"
	"tradedeck/loopback"

	"tradedeck/sim/exchange"
	"tradedeck/sim/journal"
	"tradedeck/sim/mirror"
	"tradedeck/sim/rest"
	"tradedeck/venue"
)

// Options configure Start.
type Options struct {
	Listen        string         // address to listen on; default 127.0.0.1:0
	Seed          int64          // same seed, same venue
	StringNumbers bool           // REST numbers as JSON strings
	StatePath     string         // persist state here (empty: memory only)
	Universe      string         // replacement universe file (empty: embedded default)
	Clock         exchange.Clock // injectable time (tests); nil: time.Now
	SaveInterval  time.Duration  // how often a changed state is saved; default 5 s
	TickInterval  time.Duration  // how often funding/interest schedules are checked; default 1 s
	NoRateLimits  bool           // disable the venue's REST rate limits
	StrictParams  bool           // refuse unknown parameters on reads too (rest.Options)
	// NoHistory starts without the synthetic past (candles, 24h statistics
	// and a public trade tape drawn from Seed): history begins at the first live trade.
	NoHistory bool
	// Middleware wraps the whole HTTP handler, outermost last (fault injection hooks in here).
	Middleware []func(http.Handler) http.Handler
	Logger     *slog.Logger  // nil: discard
	Living     LivingOptions // streams, synthetic market, faults (living.go)
	// Mirror, when set, follows an upstream venue's public market instead
	// of running synthetic participants: paper trading (docs/paper.md).
	Mirror *MirrorOptions
}

// MirrorOptions make the venue a paper venue on an upstream's market.
type MirrorOptions struct {
	Upstream      venue.Endpoints // only the public addresses are used
	ApplicationID string          // for the upstream's market stream path (public); empty: "paper"
	Symbols       []string        // nil: every symbol both list
	Latency       time.Duration   // an order meets the book as it stands this long after arrival
}

// Instance is a running simulated venue.
type Instance struct {
	Endpoints      venue.Endpoints
	Credentials    venue.Credentials // demo main account
	SubCredentials venue.Credentials // demo subaccount
	Exchange       *exchange.Exchange
	REST           *rest.Server
	Mux            *http.ServeMux   // mount more handlers here (Websocket streams, stats)
	Addr           string           // host:port listened on
	Mirror         *mirror.Follower // the upstream follower (Options.Mirror), else nil

	living // Faults, Streams, Market (living.go)

	opts     Options
	srv      *http.Server
	cancel   context.CancelFunc
	wg       sync.WaitGroup
	saveMu   sync.Mutex
	closeOne sync.Once
	closeErr error
	log      *slog.Logger
	journal  *journal.Journal // nil without StatePath
}

// HistoryPrefix is the path of the public history base URL on the listener.
const HistoryPrefix = "/pub"

// StatsPrefix is the path of the swap statistics base URL on the listener.
const StatsPrefix = "/woofi"

// Start builds the venue (restoring StatePath when it exists), listens,
// and serves until ctx ends or Close is called.
func Start(ctx context.Context, opts Options) (*Instance, error) {
	opts.defaults()
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	if opts.Mirror != nil {
		opts.Living.NoMarket = true // the upstream is the market
	}
	u, ex, jr, err := openVenue(ctx, opts, log)
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", opts.Listen)
	if err != nil {
		closeJournal(jr)
		return nil, err
	}
	mux := http.NewServeMux()
	var clock func() time.Time
	if opts.Clock != nil {
		clock = opts.Clock
	}
	rs := rest.New(ex, rest.Options{StringNumbers: opts.StringNumbers, Clock: clock, NoRateLimits: opts.NoRateLimits,
		StrictParams: opts.StrictParams, Logger: log, OrderLatency: mirrorLatency(opts.Mirror)})
	rs.Register(mux, HistoryPrefix)
	inj := faultsFor(&opts)
	var h http.Handler = mux
	for _, mw := range opts.Middleware {
		h = mw(h)
	}
	addr := dialAddr(ln.Addr())
	inst := &Instance{
		Endpoints: endpointsAt(addr),
		Exchange:  ex, REST: rs, Mux: mux, Addr: addr, opts: opts, log: log, journal: jr,
		// bounded headers and idle connections: a client's memory on the venue ends with its request
		srv: &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second, MaxHeaderBytes: 1 << 16, IdleTimeout: 2 * time.Minute},
	}
	if err := inst.startLiving(opts, inj); err != nil {
		ln.Close()
		closeJournal(jr)
		return nil, err
	}
	inst.demoCredentials(u)
	if m := opts.Mirror; m != nil {
		inst.Mirror = mirror.New(ex, mirror.Options{Upstream: m.Upstream, ApplicationID: m.ApplicationID, Symbols: m.Symbols, Logger: log})
	}
	inst.serve(ctx, ln)
	return inst, nil
}

func (o *Options) defaults() {
	if o.Listen == "" {
		o.Listen = "127.0.0.1:0"
	}
	if o.SaveInterval <= 0 {
		o.SaveInterval = 5 * time.Second
	}
	if o.TickInterval <= 0 {
		o.TickInterval = time.Second
	}
}

// openVenue checks the options that can fail before anything listens, and
// builds the exchange from the universe, the state file and its journal.
func openVenue(ctx context.Context, opts Options, log *slog.Logger) (*exchange.Universe, *exchange.Exchange, *journal.Journal, error) {
	u, err := exchange.LoadUniverse(opts.Universe)
	if err != nil {
		return nil, nil, nil, err
	}
	xopts := exchange.Options{Universe: u, Seed: opts.Seed, Clock: opts.Clock, NoHistory: opts.NoHistory}
	if m := opts.Mirror; m != nil {
		if u, err = mirror.Universe(ctx, m.Upstream, u, m.Symbols); err != nil {
			return nil, nil, nil, err
		}
		// no synthetic liquidity or past: the book and the trades are the upstream's
		xopts = exchange.Options{Universe: u, Seed: opts.Seed, Clock: opts.Clock, NoHistory: true, NoSeedLiquidity: true}
	}
	if !loopback.Only(opts.Listen) && u.UsesDemoSecrets() {
		return nil, nil, nil, fmt.Errorf("sim: %s is reachable from other machines and the demo credentials are public: "+
			"give accounts your own api_key and api_secret in a universe file "+
			"(tradedeck sim --print-universe > u.json, edit, then --universe u.json), or listen on 127.0.0.1", opts.Listen)
	}
	if err := checkStateDir(opts.StatePath); err != nil {
		return nil, nil, nil, err
	}
	ex, err := restore(opts, xopts, log)
	if err != nil {
		return nil, nil, nil, err
	}
	jr, err := startJournal(opts.StatePath, ex)
	if err != nil {
		return nil, nil, nil, err
	}
	return u, ex, jr, nil
}

// endpointsAt are the venue's URLs on one listener address.
func endpointsAt(addr string) venue.Endpoints {
	return venue.Endpoints{
		BaseURL:          "http://" + addr,
		PublicHistoryURL: "http://" + addr + HistoryPrefix,
		WSMarketURL:      "ws://" + addr,
		WSPrivateURL:     "ws://" + addr,
		StatsURL:         "http://" + addr + StatsPrefix,
	}
}

// demoCredentials picks the first main account and the first subaccount
// of the universe as the demo keys printed at start.
func (i *Instance) demoCredentials(u *exchange.Universe) {
	for _, spec := range u.Accounts {
		a, _ := i.Exchange.AccountByName(spec.Name)
		switch {
		case spec.Main == "" && i.Credentials.APIKey == "":
			i.Credentials = i.Exchange.Credentials(a)
		case spec.Main != "" && i.SubCredentials.APIKey == "":
			i.SubCredentials = i.Exchange.Credentials(a)
		}
	}
}

// serve runs the listener, the living parts and the schedules until ctx
// ends or Close is called.
func (i *Instance) serve(ctx context.Context, ln net.Listener) {
	runCtx, cancel := context.WithCancel(ctx)
	i.cancel = cancel
	i.runLiving(runCtx)
	if i.Mirror != nil {
		i.wg.Add(1)
		go func() { defer i.wg.Done(); i.Mirror.Run(runCtx) }()
	}
	i.wg.Add(2)
	go func() {
		defer i.wg.Done()
		if err := i.srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			i.log.Error("sim: serve", "err", err)
		}
	}()
	go i.background(runCtx)
	go func() {
		<-runCtx.Done()
		i.Close()
	}()
}

// marketSaveEvery is how many save intervals market-data-only changes wait.
const marketSaveEvery = 12

// background runs the venue's schedules and saves the state periodically.
func (i *Instance) background(ctx context.Context) {
	defer i.wg.Done()
	tick := time.NewTicker(i.opts.TickInterval)
	defer tick.Stop()
	save := time.NewTicker(i.opts.SaveInterval)
	defer save.Stop()
	ticks := 0
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
			i.Exchange.Tick()
		case <-save.C:
			// user changes are saved within SaveInterval; market data alone
			// (the living market trades all the time) every marketSaveEvery of them
			user, market := i.Exchange.DirtyState()
			ticks++
			if user || (market && ticks%marketSaveEvery == 0) {
				if err := i.Save(); err != nil {
					i.log.Error("sim: save state", "err", err)
				}
			}
		}
	}
}

// Save writes the state file now (no-op without StatePath).
func (i *Instance) Save() error {
	if i.opts.StatePath == "" {
		return nil
	}
	i.saveMu.Lock()
	defer i.saveMu.Unlock()
	return checkpoint(i.opts.StatePath, i.Exchange, i.journal)
}

// checkpoint writes the snapshot and lets the journal drop what it holds.
func checkpoint(path string, ex *exchange.Exchange, j *journal.Journal) error {
	b, seq, err := ex.Checkpoint()
	if err != nil {
		return err
	}
	if err := writeAtomic(path, b); err != nil {
		return err
	}
	if j == nil {
		return nil
	}
	return j.Checkpoint(seq)
}

// restore builds the venue from the state file and the journal records
// after it, or anew when there is no state file yet.
func restore(opts Options, xopts exchange.Options, log *slog.Logger) (*exchange.Exchange, error) {
	state, err := readState(opts.StatePath)
	if err != nil {
		return nil, err
	}
	var recs []journal.Record
	if opts.StatePath != "" {
		var dropped int64
		if recs, dropped, err = journal.Read(opts.StatePath); err != nil {
			return nil, fmt.Errorf("read the journal of %s: %w", opts.StatePath, err)
		}
		if dropped > 0 {
			log.Warn("sim: dropped a torn journal record (a crash mid-write; it was never acknowledged)", "bytes", dropped)
		}
	}
	if state == nil {
		if len(recs) > 0 {
			log.Warn("sim: journal found without its state file; starting anew", "records", len(recs))
		}
		return exchange.New(xopts)
	}
	ex, err := exchange.NewFromState(xopts, state, recs...)
	if err != nil {
		return nil, fmt.Errorf("restore %s: %w", opts.StatePath, err)
	}
	return ex, nil
}

// startJournal folds what was restored into a fresh snapshot (which also
// proves the state file can be written) and journals every change from now.
func startJournal(path string, ex *exchange.Exchange) (*journal.Journal, error) {
	if path == "" {
		return nil, nil
	}
	b, seq, err := ex.Checkpoint()
	if err != nil {
		return nil, err
	}
	if err := writeAtomic(path, b); err != nil {
		return nil, fmt.Errorf("sim: --state %s: %w", path, err)
	}
	j, err := journal.Open(path, seq+1)
	if err != nil {
		return nil, fmt.Errorf("sim: journal of %s: %w", path, err)
	}
	if err := j.Checkpoint(seq); err != nil {
		j.Close()
		return nil, err
	}
	ex.SetJournal(j)
	return j, nil
}

func closeJournal(j *journal.Journal) {
	if j != nil {
		j.Close()
	}
}

// Close stops serving, waits for the background work and saves the state.
func (i *Instance) Close() error {
	i.closeOne.Do(func() {
		i.cancel()
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		err := i.srv.Shutdown(ctx)
		if err != nil {
			i.srv.Close()
		}
		i.wg.Wait()
		i.closeErr = errors.Join(err, i.Save())
		closeJournal(i.journal)
	})
	return i.closeErr
}

// readState returns the saved state, or nil when there is none yet.
func readState(path string) ([]byte, error) {
	if path == "" {
		return nil, nil
	}
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	return b, err
}

// writeAtomic replaces path with data so that a crash at any moment
// leaves either the old file or the new one: write a temporary file in
// the same directory, fsync it, rename it over path, fsync the directory.
func writeAtomic(path string, data []byte) error {
	dir := filepath.Dir(path)
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	ok := false
	defer func() {
		if !ok {
			os.Remove(tmp)
		}
	}()
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		return err
	}
	ok = true
	// the rename is durable only once the directory is
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	return errors.Join(d.Sync(), d.Close())
}

func mirrorLatency(m *MirrorOptions) time.Duration {
	if m == nil {
		return 0
	}
	return m.Latency
}

// checkStateDir fails at start, not at the first save, when the state
// file's directory is missing or not a directory.
func checkStateDir(path string) error {
	if path == "" {
		return nil
	}
	dir := filepath.Dir(path)
	st, err := os.Stat(dir)
	switch {
	case err != nil:
		return fmt.Errorf("sim: --state %s: directory %s: %w", path, dir, err)
	case !st.IsDir():
		return fmt.Errorf("sim: --state %s: %s is not a directory", path, dir)
	}
	return nil
}

// dialAddr is the address clients use for a listener: a wildcard host
// (0.0.0.0, ::) is reachable on loopback, so the URLs name 127.0.0.1.
func dialAddr(a net.Addr) string {
	tcp, ok := a.(*net.TCPAddr)
	if !ok || !tcp.IP.IsUnspecified() {
		return a.String()
	}
	return net.JoinHostPort("127.0.0.1", strconv.Itoa(tcp.Port))
}
