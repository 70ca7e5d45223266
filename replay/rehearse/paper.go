package rehearse

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/shopspring/decimal"

	"tradedeck/sim/exchange"
	"tradedeck/sim/mirror"
	"tradedeck/sim/rest"
	"tradedeck/venue"
)

// paper is the rehearsal's venue: the simulator's exchange (its matching
// engine, fees, margin and positions) on the recorded symbols' rules,
// whose book is the recording's, laid on it by the paper-trading
// follower (sim/mirror, fed frame by frame here instead of from a live
// upstream), served by the simulator's REST API on loopback so the
// engine talks to it as to any venue, with real signatures.
type paper struct {
	ex      *exchange.Exchange
	follow  *mirror.Follower
	acc     *exchange.Account
	appID   string
	client  *venue.Client
	events  <-chan exchange.Event
	unsub   func()
	srv     *http.Server
	served  chan error
	symbols []string
	lost    bool // the event subscription overflowed and was closed
	// deliver hands the events published so far to their readers; it
	// runs after every request, before the reply leaves.
	deliver func()
}

// openPaper builds the paper venue on the recorded rules of symbols,
// starting at the prices of mids, on the recording's clock now.
func openPaper(rules []venue.SymbolRule, symbols []string, mids map[string]decimal.Decimal, now func() time.Time, deliver func()) (*paper, error) {
	u, err := universe(rules, symbols, mids)
	if err != nil {
		return nil, err
	}
	ex, err := exchange.New(exchange.Options{Universe: u, Clock: now, NoSeedLiquidity: true, NoHistory: true})
	if err != nil {
		return nil, fmt.Errorf("rehearse: paper venue: %w", err)
	}
	p := &paper{ex: ex, follow: mirror.New(ex, mirror.Options{Symbols: symbols}), symbols: symbols, served: make(chan error, 1), deliver: deliver}
	for _, spec := range u.Accounts {
		if spec.Main == "" {
			p.acc, _ = ex.AccountByName(spec.Name)
			break
		}
	}
	if p.acc == nil {
		return nil, errors.New("rehearse: the paper venue has no main account")
	}
	creds := ex.Credentials(p.acc)
	p.appID = creds.ApplicationID
	p.events, p.unsub = ex.Subscribe()
	// Requests are signed with the wall clock; the exchange runs on the
	// recording's, so the REST server checks signatures on the wall clock.
	rs := rest.New(ex, rest.Options{Clock: time.Now, NoRateLimits: true})
	mux := http.NewServeMux()
	rs.Register(mux, "/pub")
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		p.unsub()
		return nil, err
	}
	p.srv = &http.Server{Handler: p.streamFirst(mux), ReadHeaderTimeout: 10 * time.Second}
	go func() { p.served <- p.srv.Serve(ln) }()
	base := "http://" + ln.Addr().String()
	// No client-side rate limiting: its windows run on the wall clock,
	// which stands still for the recording while the engine settles.
	p.client = venue.NewClient(venue.Endpoints{BaseURL: base, PublicHistoryURL: base + "/pub"}, creds, venue.WithLimiter(nil))
	return p, nil
}

// streamFirst delivers the events a request caused before its reply
// leaves (the reply is buffered until the handler returns): the engine
// hears of its order's fills and the position they made on its private
// stream before it reads anything back over REST, every time. On a real
// venue either may come first; here one order, always the same, keeps
// the rehearsal deterministic.
func (p *paper) streamFirst(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.ServeHTTP(w, r)
		p.deliver()
	})
}

// close stops the REST server (its error: a failed serve, none after a
// clean shutdown).
func (p *paper) close() error {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	_ = p.srv.Shutdown(ctx) // loopback, no client left: Serve's own end says the rest
	err := <-p.served
	p.unsub()
	if errors.Is(err, http.ErrServerClosed) {
		return nil
	}
	return err
}

// universe is the simulator's default universe (tokens, the demo
// accounts and their fees) with the recorded rules of symbols instead of
// its own, as the paper venue of `sim --mirror` takes its upstream's.
func universe(rules []venue.SymbolRule, symbols []string, mids map[string]decimal.Decimal) (*exchange.Universe, error) {
	base, err := exchange.DefaultUniverse()
	if err != nil {
		return nil, err
	}
	byName := map[string]venue.SymbolRule{}
	for _, r := range rules {
		byName[r.Symbol] = r
	}
	u := *base
	u.Symbols = nil
	for _, s := range symbols {
		r, ok := byName[s]
		if !ok {
			return nil, fmt.Errorf("rehearse: the recording has no rules of %s (its /v1/public/info reply)", s)
		}
		mid := mids[s]
		if !mid.IsPositive() {
			mid = decimal.Max(r.QuoteTick, r.QuoteMin)
		}
		r.CreatedTime, r.UpdatedTime = venue.SecTime{}, venue.SecTime{}
		u.Symbols = append(u.Symbols, exchange.SymbolSpec{SymbolRule: r, InitialPrice: mid.Div(r.QuoteTick).Floor().Mul(r.QuoteTick)})
	}
	b, err := json.Marshal(&u) // through the file format, so the universe's checks apply
	if err != nil {
		return nil, err
	}
	u2, err := exchange.ParseUniverse(b)
	if err != nil {
		return nil, fmt.Errorf("rehearse: paper venue on the recorded rules: %w", err)
	}
	return u2, nil
}

// pending takes the exchange's events published so far (false: none).
func (p *paper) pending() (exchange.Event, bool) {
	select {
	case ev, ok := <-p.events:
		if !ok {
			p.lost = true
			return nil, false
		}
		return ev, true
	default:
		return nil, false
	}
}

// position is the paper account's perpetual position of symbol.
func (p *paper) position(symbol string) exchange.Position {
	pos, err := p.ex.Position(p.acc, symbol)
	if err != nil {
		return exchange.Position{Symbol: symbol}
	}
	return pos
}
