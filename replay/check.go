package replay

import (
	"context"
	"fmt"
	"io"
	"sort"
	"strings"
	"sync"
	"time"

	"tradedeck/feed"
)

// SymbolCheck is what the feed made of one symbol's recorded frames.
type SymbolCheck struct {
	Symbol  string
	State   feed.SyncState
	TS      int64 // venue ts of the last applied book update
	Asks    int
	Bids    int
	Gaps    uint64
	Resyncs uint64
	Trades  int
	Candles int
}

// Report is the result of reading a recording through the feed.
type Report struct {
	Summary Summary
	Symbols []SymbolCheck
	Elapsed time.Duration // real time until every book showed its last recorded update, at max speed
	Settled time.Duration // until the candle histories were loaded too
	Frames  uint64
}

// watched is the state one feed reached.
type watched struct {
	mu sync.Mutex
	st feed.State
}

// waitCaughtUp waits (bounded) until every feed shows its symbol's last
// recorded book update (booksAt) and its candle history, a large REST
// reply (allAt).
func waitCaughtUp(states []*watched, syms []string, sum Summary) (booksAt, allAt time.Time) {
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		books, all := true, true
		for i, sym := range syms {
			st := states[i]
			st.mu.Lock()
			if b := st.st.Books[sym]; sum.LastBookTS[sym] != 0 && (b == nil || b.TS < sum.LastBookTS[sym]) {
				books = false
			}
			if c := st.st.Candles[feed.CandleKey(sym, "1m")]; sum.Topics[sym+"@kline_1m"] > 0 && (c == nil || !c.Loaded) {
				all = false
			}
			st.mu.Unlock()
		}
		now := time.Now()
		if books && booksAt.IsZero() {
			booksAt = now
		}
		if books && all {
			return booksAt, now
		}
		time.Sleep(10 * time.Millisecond)
	}
	now := time.Now()
	if booksAt.IsZero() {
		booksAt = now
	}
	return booksAt, now
}

// Check replays the recording at max speed into one feed per recorded
// symbol (each focused on its symbol, as the dashboard would be) and
// reports what the feed found.
func Check(ctx context.Context, path string) (Report, error) {
	sum, err := Summarize(path)
	if err != nil {
		return Report{}, err
	}
	syms := sum.Symbols()
	if len(syms) == 0 {
		return Report{Summary: sum}, fmt.Errorf("replay: %s holds no symbol topics", path)
	}
	srv, err := Open(Options{Path: path, Speed: Max, Clients: len(syms)})
	if err != nil {
		return Report{}, err
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	srvDone := make(chan error, 1)
	go func() { srvDone <- srv.Run(ctx) }()
	states := make([]*watched, len(syms))
	var wg sync.WaitGroup
	for i, sym := range syms {
		w := &watched{st: feed.NewState()}
		states[i] = w
		f := feed.New(feed.Config{Endpoints: srv.Endpoints, Symbol: sym, Clock: srv.Now, NoAllTickers: true, SnapshotWait: 200 * time.Millisecond})
		wg.Add(2)
		go func() { defer wg.Done(); _ = f.Run(ctx) }() // ends only with ctx's error
		go func() {
			defer wg.Done()
			for u := range f.Updates() {
				w.mu.Lock()
				w.st.Apply(&u)
				w.mu.Unlock()
			}
		}()
	}
	select {
	case <-srv.Done():
	case err := <-srvDone:
		if err == nil {
			err = ctx.Err()
		}
		return Report{Summary: sum}, err
	}
	booksAt, allAt := waitCaughtUp(states, syms, sum)
	ps := srv.Stats()
	// Times run until the feeds caught up, not until the frames were
	// queued: the replay's speed is the feed's.
	rep := Report{Summary: sum, Elapsed: booksAt.Sub(ps.Started), Settled: allAt.Sub(ps.Started), Frames: ps.Frames}
	for i, sym := range syms {
		states[i].mu.Lock()
		rep.Symbols = append(rep.Symbols, symbolCheck(sym, &states[i].st))
		states[i].mu.Unlock()
	}
	cancel()
	wg.Wait()
	if err := <-srvDone; err != nil {
		return rep, err
	}
	return rep, nil
}

func symbolCheck(sym string, st *feed.State) SymbolCheck {
	sc := SymbolCheck{Symbol: sym}
	if b := st.Books[sym]; b != nil {
		sc.State, sc.TS, sc.Asks, sc.Bids, sc.Gaps, sc.Resyncs = b.State, b.TS, len(b.Asks), len(b.Bids), b.Gaps, b.Resyncs
	}
	if t := st.Trades[sym]; t != nil {
		sc.Trades = len(t.Rows)
	}
	for k, c := range st.Candles {
		if strings.HasPrefix(k, sym) {
			sc.Candles += len(c.Rows)
		}
	}
	return sc
}

// Print writes the report for a person.
func (r Report) Print(w io.Writer) {
	s := r.Summary
	h := s.Header
	fmt.Fprintf(w, "file      %s (format %d, part %d, %s, recorded by %s at %s)\n", s.Path, h.Format, h.Part, h.Venue, h.Generator, h.Created.UTC().Format(time.RFC3339))
	first, last := time.Unix(0, s.First).UTC(), time.Unix(0, s.Last).UTC()
	fmt.Fprintf(w, "span      %s to %s (%s)\n", first.Format("2006-01-02 15:04:05.000"), last.Format("15:04:05.000"), last.Sub(first).Truncate(time.Millisecond))
	fmt.Fprintf(w, "records   %d market frames, %d private frames, %d REST replies, %d stream events\n", s.Frames-s.Private, s.Private, s.REST, len(s.Events))
	if s.Truncated != nil {
		fmt.Fprintf(w, "end       truncated at offset %d (%s): everything before it was read\n", s.Truncated.Offset, s.Truncated.Msg)
	} else {
		fmt.Fprintln(w, "end       complete")
	}
	if s.Malformed > 0 {
		fmt.Fprintf(w, "malformed %d frames\n", s.Malformed)
	}
	breaks := 0
	for _, n := range s.ChainBreaks {
		breaks += n
	}
	fmt.Fprintf(w, "recorder  %d reconnects while recording; %d book update chain breaks in the file\n", s.Reconnects, breaks)
	topics := make([]string, 0, len(s.Topics))
	for t := range s.Topics {
		topics = append(topics, t)
	}
	sort.Strings(topics)
	fmt.Fprintln(w, "topics")
	for _, t := range topics {
		fmt.Fprintf(w, "  %-36s %8d\n", t, s.Topics[t])
	}
	fmt.Fprintln(w, "through the feed")
	var gaps, resyncs uint64
	for _, c := range r.Symbols {
		gaps += c.Gaps
		resyncs += c.Resyncs
		fmt.Fprintf(w, "  %-16s book %-10s ts %d  %d asks %d bids  gaps %d resyncs %d  trades %d candles %d\n",
			c.Symbol, c.State, c.TS, c.Asks, c.Bids, c.Gaps, c.Resyncs, c.Trades, c.Candles)
	}
	rate := 0.0
	if r.Elapsed > 0 {
		rate = float64(r.Frames) / r.Elapsed.Seconds()
	}
	fmt.Fprintf(w, "replay    %d frames in %s at max speed (%.0f frames/s; candle histories loaded at %s); gaps %d, resyncs %d\n",
		r.Frames, r.Elapsed.Truncate(time.Millisecond), rate, r.Settled.Truncate(time.Millisecond), gaps, resyncs)
}
