// Package capture records a venue: every market stream frame of the chosen
// symbols (and the private stream when keys are set) with its receive
// time, plus the REST replies a client needs to start, into a recording
// file (package record). It connects through the same stream code as the
// live feed (feed/ws), so reconnects and keep-alives behave the same.
package capture

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
	"sync"
	"time"

	"tradedeck/feed/ws"
	"tradedeck/record"
	"tradedeck/venue"
	"tradedeck/venue/stream"
)

// Options of a recording session.
type Options struct {
	Endpoints   venue.Endpoints
	Credentials venue.Credentials // keys set: the private stream is recorded too
	Venue       string            // SIM or LIVE, for the header
	Symbols     []string
	Intervals   []string // candle intervals recorded, default 1m
	AllTickers  bool     // also the `tickers` and `bbos` topics (every symbol, once a second)

	Out        string
	MaxBytes   int64         // size of a part before rotation (0: one file)
	FlushEvery time.Duration // default 1s: what a kill can lose at most
	// Progress, when set, is called after every flush.
	Progress func(Stats)
	Log      io.Writer // stream errors; nil discards
	Now      func() time.Time
}

// Stats is what a session wrote so far.
type Stats struct {
	Market, Private, REST uint64 // records by kind
	Bytes                 int64  // on disk, every part
	Parts                 []string
	First, Last           time.Time
}

// Recorder is one running session.
type Recorder struct {
	opts Options

	mu      sync.Mutex // guards file, stats, prelude
	file    *record.File
	stats   Stats
	prelude map[string]record.Record // latest REST reply per request, for new parts
	order   []string                 // prelude keys in first-seen order
	err     error                    // first write error
}

// Topics are the market topics recorded for symbols: what the dashboard
// subscribes for a focused symbol and a watchlist entry, every interval.
func Topics(symbols, intervals []string, allTickers bool) []string {
	var t []string
	if allTickers {
		t = append(t, "tickers", "bbos")
	}
	for _, s := range symbols {
		t = append(t, s+"@orderbookupdate", s+"@orderbook", s+"@trade", s+"@bbo", s+"@ticker")
		for _, iv := range intervals {
			t = append(t, s+"@kline_"+iv)
		}
		if strings.HasPrefix(s, "PERP_") {
			t = append(t, s+"@markprice", s+"@indexprice", s+"@estfundingrate", s+"@openinterest")
		}
	}
	return t
}

// Run records until ctx ends, then flushes and closes the file.
func Run(ctx context.Context, opts Options) (Stats, error) {
	if len(opts.Symbols) == 0 {
		return Stats{}, errors.New("record: no symbols")
	}
	if len(opts.Intervals) == 0 {
		opts.Intervals = []string{"1m"}
	}
	if opts.FlushEvery <= 0 {
		opts.FlushEvery = time.Second
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Log == nil {
		opts.Log = io.Discard
	}
	rc := &Recorder{opts: opts, prelude: map[string]record.Record{}}
	topics := Topics(opts.Symbols, opts.Intervals, opts.AllTickers)
	f, err := record.Create(record.FileOptions{
		Path: opts.Out, MaxBytes: opts.MaxBytes, Prelude: rc.preludeRecords,
		Header: record.Header{Created: opts.Now().UTC(), Venue: opts.Venue, BaseURL: opts.Endpoints.BaseURL,
			Symbols: opts.Symbols, Topics: topics, Private: opts.Credentials.HasKeys(), Generator: "tradedeck record"},
	})
	if err != nil {
		return Stats{}, err
	}
	rc.file = f
	client := venue.NewClient(opts.Endpoints, opts.Credentials, venue.WithHTTPClient(rc.teeClient()))
	if err := rc.snapshots(ctx, client); err != nil {
		f.Close()
		return rc.Stats(), err
	}
	runCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	var wg sync.WaitGroup
	// The book snapshots are read once the deltas flow (after every
	// connect): a snapshot older than the first recorded delta could not
	// be bridged to it.
	connected := make(chan struct{}, 1)
	market := rc.stream(record.Market, opts.Endpoints.MarketStreamURL(opts.Credentials.ApplicationID), nil, func() {
		select {
		case connected <- struct{}{}:
		default:
		}
	})
	market.Subscribe(topics...)
	wg.Add(2)
	go func() { defer wg.Done(); _ = market.Run(runCtx) }() // ends with runCtx; failures reach OnStatus
	go func() { defer wg.Done(); rc.bookSnapshots(runCtx, client, connected) }()
	if opts.Credentials.HasKeys() {
		private := rc.stream(record.Private, opts.Endpoints.PrivateStreamURL(opts.Credentials.ApplicationID), rc.authenticate, nil)
		private.Subscribe("executionreport", "balance", "positioninfo", "position")
		wg.Add(1)
		go func() { defer wg.Done(); _ = private.Run(runCtx) }() // as the market stream's
	}
	t := time.NewTicker(opts.FlushEvery)
	defer t.Stop()
	for done := false; !done; {
		select {
		case <-ctx.Done():
			done = true
		case <-t.C:
		}
		if err := rc.flush(); err != nil {
			cancel()
			wg.Wait()
			f.Close()
			return rc.Stats(), err
		}
	}
	cancel()
	wg.Wait()
	rc.mu.Lock()
	err = f.Close()
	rc.stats.Bytes = f.Size()
	rc.mu.Unlock()
	return rc.Stats(), err
}

// Stats is a copy of the counts so far.
func (rc *Recorder) Stats() Stats {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	s := rc.stats
	s.Parts = rc.file.Paths()
	return s
}

// add appends one record (the file copies its bytes).
func (rc *Recorder) add(r record.Record) {
	rc.mu.Lock()
	rc.file.Append(r)
	t := time.Unix(0, r.Time)
	if rc.stats.First.IsZero() {
		rc.stats.First = t
	}
	rc.stats.Last = t
	switch r.Kind {
	case record.Market:
		rc.stats.Market++
	case record.Private:
		rc.stats.Private++
	case record.REST:
		rc.stats.REST++
		k := string(r.Key)
		if _, ok := rc.prelude[k]; !ok {
			rc.order = append(rc.order, k)
		}
		rc.prelude[k] = r.Clone()
	}
	big := rc.file.Buffered() >= 4<<20
	rc.mu.Unlock()
	if big {
		_ = rc.flush() // a burst: do not let one block grow without bound
	}
}

func (rc *Recorder) flush() error {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	if rc.err == nil {
		rc.err = rc.file.Flush()
	}
	rc.stats.Bytes = rc.file.Size()
	if rc.opts.Progress != nil {
		s := rc.stats
		s.Parts = rc.file.Paths()
		rc.opts.Progress(s)
	}
	return rc.err
}

// preludeRecords are the latest REST replies, written first in every part
// (called by the file under rc.mu).
func (rc *Recorder) preludeRecords() []record.Record {
	out := make([]record.Record, 0, len(rc.order))
	for _, k := range rc.order {
		out = append(out, rc.prelude[k])
	}
	return out
}

// stream builds one recorded Websocket stream.
func (rc *Recorder) stream(kind record.Kind, url string, handshake func(context.Context, *ws.Session) error, onConnect func()) *ws.Conn {
	name := kind.String()
	return ws.New(ws.Config{
		Name: name, URL: url, Handshake: handshake, OnConnect: onConnect,
		OnFrame: func(frame []byte, env *stream.Envelope, perr error) {
			now := rc.opts.Now().UnixNano()
			if perr == nil && !env.IsPush() {
				if env.HasSuccess && !env.Success {
					fmt.Fprintf(rc.opts.Log, "record: %s stream refused %s: %s\n", name, env.Event, env.ErrorMsg)
				}
				return // replies belong to this session, not to a replay
			}
			rc.add(record.Record{Kind: kind, Time: now, Data: frame})
		},
		OnStatus: func(st ws.Status) {
			text := st.State.String()
			if st.Err != nil {
				text += ": " + st.Err.Error()
			}
			if st.State == ws.Reconnecting || st.State == ws.AuthFailed {
				fmt.Fprintf(rc.opts.Log, "record: %s stream %s\n", name, text)
			}
			rc.add(record.Record{Kind: record.Event, Time: rc.opts.Now().UnixNano(), Key: []byte(name), Data: []byte(text)})
		},
	})
}

// authenticate is the private stream's handshake (the venue's auth
// event, signed with the secret, which never leaves this process).
func (rc *Recorder) authenticate(ctx context.Context, s *ws.Session) error {
	ts := s.Now().UnixMilli()
	cr := rc.opts.Credentials
	if err := s.Send(stream.AppendAuth(nil, s.NextID(), cr.APIKey, venue.SignWS(cr.APISecret, ts), ts)); err != nil {
		return err
	}
	var env stream.Envelope
	for {
		_, perr, err := s.Read(&env)
		if err != nil {
			return err
		}
		if perr != nil || string(env.Event) != "auth" {
			continue
		}
		if env.Success {
			return nil
		}
		return fmt.Errorf("private stream: %s: %w", env.ErrorMsg, ws.ErrAuthFailed)
	}
}

// snapshots reads, through the REST client (rate limits, signing), what
// the feed reads at start; the tee transport records every reply.
func (rc *Recorder) snapshots(ctx context.Context, c *venue.Client) error {
	rules, err := c.SymbolRules(ctx)
	if err != nil {
		return fmt.Errorf("record: symbol rules: %w", err)
	}
	known := map[string]bool{}
	for _, r := range rules {
		known[r.Symbol] = true
	}
	var unknown []string
	for _, s := range rc.opts.Symbols {
		if !known[s] {
			unknown = append(unknown, s)
		}
	}
	if len(unknown) > 0 {
		sort.Strings(unknown)
		return fmt.Errorf("record: unknown symbols: %s", strings.Join(unknown, ", "))
	}
	for _, s := range rc.opts.Symbols {
		for _, iv := range rc.opts.Intervals {
			typ := iv
			if typ == "1M" {
				typ = "1mon"
			}
			if _, err := c.Kline(ctx, venue.KlineRequest{Symbol: s, Type: typ, Limit: 1000}); err != nil {
				return fmt.Errorf("record: %s %s candles: %w", s, iv, err)
			}
		}
		if _, err := c.MarketTrades(ctx, s, 100); err != nil {
			return fmt.Errorf("record: %s trades: %w", s, err)
		}
		if strings.HasPrefix(s, "PERP_") {
			if _, err := c.FuturesInfo(ctx, s); err != nil {
				return fmt.Errorf("record: %s futures info: %w", s, err)
			}
		}
	}
	if rc.opts.Credentials.HasKeys() {
		return accountSnapshots(ctx, c)
	}
	return nil
}

// bookSnapshots reads every symbol's REST book after each market stream
// connect, recorded after the deltas that preceded it.
func (rc *Recorder) bookSnapshots(ctx context.Context, c *venue.Client, connected <-chan struct{}) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-connected:
		}
		for _, s := range rc.opts.Symbols {
			if _, err := c.OrderBook(ctx, s, 1000); err != nil && ctx.Err() == nil {
				fmt.Fprintf(rc.opts.Log, "record: %s order book: %v\n", s, err)
			}
		}
	}
}

// accountSnapshots reads the account as the feed's reconciliation does.
func accountSnapshots(ctx context.Context, c *venue.Client) error {
	since := time.Now().Add(-24 * time.Hour)
	if _, err := c.HoldingV2(ctx, false); err != nil {
		return fmt.Errorf("record: balances: %w", err)
	}
	if _, err := c.Positions(ctx); err != nil {
		return fmt.Errorf("record: positions: %w", err)
	}
	if _, err := c.AccountInfo(ctx); err != nil {
		return fmt.Errorf("record: account info: %w", err)
	}
	pages := []func(p int) (venue.Meta, int, error){
		func(p int) (venue.Meta, int, error) {
			r, m, err := c.ListOrders(ctx, venue.OrderFilter{Status: venue.StatusIncomplete, Page: p})
			return m, len(r), err
		},
		func(p int) (venue.Meta, int, error) {
			r, m, err := c.ListOrders(ctx, venue.OrderFilter{Status: venue.StatusCompleted, Start: since, Page: p})
			return m, len(r), err
		},
		func(p int) (venue.Meta, int, error) {
			r, m, err := c.ListTrades(ctx, venue.TradeFilter{Start: since, Page: p})
			return m, len(r), err
		},
	}
	for _, list := range pages {
		for p := 1; p <= 20; p++ {
			m, n, err := list(p)
			if err != nil {
				return fmt.Errorf("record: account listings: %w", err)
			}
			if !m.HasNext(n) {
				break
			}
		}
	}
	return nil
}
