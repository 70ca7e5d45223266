package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"tradedeck/config"
	"tradedeck/feed"
	"tradedeck/feed/hub"
	"tradedeck/fixed"
	"tradedeck/venue"
)

func init() {
	register("watch", "headless feed: book top, trades and health, one line a second", runWatch)
}

func runWatch(args []string) error {
	fs, vf := venueFlagSet("watch")
	interval := fs.String("interval", "1m", "candle interval")
	watch := fs.String("watch", "", "comma-separated watchlist symbols (bbo and ticker)")
	every := fs.Duration("every", time.Second, "print interval")
	duration := fs.Duration("duration", 0, "stop after this long (0: until interrupted)")
	verbose := fs.Bool("v", false, "log reconnects, resyncs and REST failures to stderr")
	replayPath := fs.String("replay", "", "watch a recording (tradedeck record) instead of a venue, at --speed")
	replaySpeed := fs.String("speed", "1", "with --replay: playback speed, a factor or max")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: tradedeck watch SYMBOL [flags]\n\nThe venue is chosen as the dashboard's: the embedded simulated venue, or --live / --staging\nwith the config's addresses; keys come from the environment, never from a flag.")
		fs.PrintDefaults()
	}
	// Flags may follow the symbol (`watch SPOT_BTC_USDT -v`).
	arg, err := parseOneArg(fs, args, "SYMBOL")
	if err != nil {
		return err
	}
	symbol := strings.ToUpper(arg)
	ctx, stop := interruptContext()
	defer stop()
	if *duration > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, *duration)
		defer cancel()
	}
	var logw io.Writer
	if *verbose {
		logw = os.Stderr
	}
	var wl []string
	if *watch != "" {
		wl = strings.Split(strings.ToUpper(*watch), ",")
	}
	view := feed.View{Symbol: symbol, Interval: *interval, Watchlist: wl}
	if *replayPath != "" {
		return watchReplay(ctx, *replayPath, *replaySpeed, logw, view, *every)
	}
	cfg, _, err := config.LoadFlag(vf.config)
	if err != nil {
		return err
	}
	cfg.Interval = *interval
	fl := vf.dashboard()
	fl.readOnly, fl.feedLog = true, logw
	v, err := openVenue(ctx, fl, cfg)
	if err != nil {
		return fmt.Errorf("watch: %w", err)
	}
	defer v.close()
	fmt.Printf("watch: %s venue at %s\n", v.label, v.endpoints.BaseURL)
	if err := checkSymbols(ctx, v.client, "watch", append([]string{symbol}, wl...)...); err != nil {
		return err
	}
	// The same path as the dashboard's: a session of the venue's feed hub.
	s := v.hub.Join(ctx, view)
	defer s.Close()
	return watchLoop(ctx, os.Stdout, s.Updates(), symbol, *every, untilDone(ctx))
}

// watchReplay watches a recording through a hub of its own, on the
// replay's clock.
func watchReplay(ctx context.Context, path, speed string, logw io.Writer, view feed.View, every time.Duration) error {
	srv, err := startWatchReplay(ctx, path, speed)
	if err != nil {
		return err
	}
	var creds venue.Credentials
	if srv.Summary().Header.Private {
		creds = replayCredentials
	}
	ctx = replayEnds(ctx, srv)
	fmt.Printf("watch: replaying %s (REPLAY)\n", path)
	h := hub.New(feed.New(feed.Config{Endpoints: srv.Endpoints, Credentials: creds, Interval: view.Interval, Log: logw, Clock: srv.Now}))
	errc := make(chan error, 1)
	go func() { errc <- h.Run(ctx) }()
	s := h.Join(ctx, view)
	return watchLoop(ctx, os.Stdout, s.Updates(), view.Symbol, every, errc)
}

// untilDone reports nil once ctx ends: the venue's hub runs as long as
// the venue and shows its failures on the health line.
func untilDone(ctx context.Context) <-chan error {
	errc := make(chan error, 1)
	go func() { <-ctx.Done(); errc <- nil }()
	return errc
}

// watchView is the latest state the printer knows.
type watchView struct {
	book   *feed.Book
	trades *feed.Trades
	health []feed.Health
	acct   *feed.Account
}

func watchLoop(ctx context.Context, w io.Writer, updates <-chan feed.Update, symbol string, every time.Duration, errc <-chan error) error {
	var v watchView
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case err := <-errc:
			return watchErr(err)
		case <-ctx.Done():
			return nil
		case u, ok := <-updates:
			if !ok {
				return watchErr(<-errc)
			}
			if b := u.Books[symbol]; b != nil {
				v.book = b
			}
			if tr := u.Trades[symbol]; tr != nil {
				v.trades = tr
			}
			if u.Health != nil {
				v.health = u.Health
			}
			if u.Account != nil {
				v.acct = u.Account
			}
			for _, e := range u.Events {
				fmt.Fprintf(w, "%s event %s\n", e.Time.UTC().Format("15:04:05"), e.Text)
			}
		case now := <-t.C:
			fmt.Fprintln(w, v.line(now))
		}
	}
}

// watchErr: stopping on a signal or after --duration is not an error.
func watchErr(err error) error {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return nil
	}
	return err
}

func (v *watchView) line(now time.Time) string {
	var b strings.Builder
	b.WriteString(now.UTC().Format("15:04:05"))
	if bk := v.book; bk != nil {
		pd, qd := bk.Scale.PriceDec, bk.Scale.QtyDec
		fmt.Fprintf(&b, " %s %s age %s", bk.Symbol, bk.State, bk.Age.Truncate(time.Millisecond))
		if len(bk.Bids) > 0 {
			fmt.Fprintf(&b, " bid %s x %s", fixed.Format(bk.Bids[0].Price, pd), fixed.Format(bk.Bids[0].Qty, qd))
		}
		if len(bk.Asks) > 0 {
			fmt.Fprintf(&b, " ask %s x %s", fixed.Format(bk.Asks[0].Price, pd), fixed.Format(bk.Asks[0].Qty, qd))
		}
	} else {
		b.WriteString(" book: waiting")
	}
	if tr := v.trades; tr != nil && len(tr.Rows) > 0 {
		b.WriteString(" | trades")
		for i, t := range tr.Rows {
			if i == 3 {
				break
			}
			fmt.Fprintf(&b, " %s %s@%s", t.Side, fixed.Format(t.Qty, tr.Scale.QtyDec), fixed.Format(t.Price, tr.Scale.PriceDec))
		}
	}
	for _, h := range v.health {
		fmt.Fprintf(&b, " | %s %s %.0f msg/s lat %s gaps %d resyncs %d reconnects %d",
			h.Stream, h.State, h.MsgsPerSec, h.Latency.Truncate(100*time.Microsecond), h.Gaps, h.Resyncs, h.Reconnects)
		if h.State == feed.Reconnecting {
			fmt.Fprintf(&b, " (in %s)", h.RetryIn.Truncate(time.Millisecond))
		}
	}
	if a := v.acct; a != nil {
		fmt.Fprintf(&b, " | open orders %d fills %d", len(a.Open), len(a.Fills))
	}
	return b.String()
}
