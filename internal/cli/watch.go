package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"tradedeck/config"
	"tradedeck/feed"
	"tradedeck/fixed"
	"tradedeck/internal/app"
	"tradedeck/internal/app/proc"
)

// watchOptions are `tradedeck watch`'s flags.
type watchOptions struct {
	venue                   app.VenueChoice
	interval, watch         string
	every, duration         time.Duration
	verbose                 bool
	replayPath, replaySpeed string
}

// Watch is `tradedeck watch SYMBOL`: the headless feed, one line a second.
func Watch(env Env) *cobra.Command {
	var o watchOptions
	cmd := &cobra.Command{
		Use:   "watch SYMBOL",
		Short: "headless feed: book top, trades and health, one line a second",
		Long: `Headless feed: book top, trades and stream health, one line each print interval.

The venue is chosen as the dashboard's: the embedded simulated venue, or --live / --staging
with the config's addresses; keys come from the environment, never from a flag.`,
		Example: `  tradedeck watch SPOT_BTC_USDT -v
  tradedeck watch PERP_ETH_USDT --live --every 5s
  tradedeck watch SPOT_BTC_USDT --replay rec.tdrec --speed max`,
		Args: exactlyOne("SYMBOL"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runWatch(cmd.Context(), env, o, strings.ToUpper(args[0]))
		},
	}
	fs := cmd.Flags()
	venueFlags(fs, &o.venue, "use")
	fs.StringVar(&o.interval, "interval", "1m", "candle interval")
	fs.StringVar(&o.watch, "watch", "", "comma-separated watchlist symbols (bbo and ticker)")
	fs.DurationVar(&o.every, "every", time.Second, "print interval")
	fs.DurationVar(&o.duration, "duration", 0, "stop after this long (0: until interrupted)")
	fs.BoolVarP(&o.verbose, "verbose", "v", false, "log reconnects, resyncs and REST failures to stderr")
	fs.StringVar(&o.replayPath, "replay", "", "watch a recording (tradedeck record) instead of a venue, at --speed")
	fs.StringVar(&o.replaySpeed, "speed", "1", "with --replay: playback speed, a factor or max")
	return cmd
}

func runWatch(ctx context.Context, env Env, o watchOptions, symbol string) error {
	defer oneProcessor()()
	ctx, stop := proc.Interruptible(ctx)
	defer stop()
	stopProfiles, err := proc.StartProfiles() // proc/diag_profile.go: -tags profile only
	if err != nil {
		return err
	}
	defer stopProfiles()
	if o.duration > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, o.duration)
		defer cancel()
	}
	var logw io.Writer
	if o.verbose {
		logw = env.Stderr
	}
	var wl []string
	if o.watch != "" {
		wl = strings.Split(strings.ToUpper(o.watch), ",")
	}
	view := feed.View{Symbol: symbol, Interval: o.interval, Watchlist: wl}
	if o.replayPath != "" {
		rf, err := app.OpenReplayFeed(ctx, o.replayPath, o.replaySpeed, view.Interval, logw)
		if err != nil {
			return err
		}
		fmt.Fprintf(env.Stdout, "watch: replaying %s (REPLAY)\n", o.replayPath)
		s := rf.Hub.Join(rf.Ctx, view)
		return watchLoop(rf.Ctx, env.Stdout, s.Updates(), symbol, o.every, rf.Err)
	}
	cfg, _, err := config.LoadFlag(o.venue.Config)
	if err != nil {
		return err
	}
	cfg.Interval = o.interval
	fl := o.venue.Dashboard()
	fl.ReadOnly, fl.FeedLog, fl.FPS = true, logw, watchFPS(o.every)
	v, err := app.OpenVenue(ctx, fl, cfg)
	if err != nil {
		return fmt.Errorf("watch: %w", err)
	}
	defer v.Close()
	fmt.Fprintf(env.Stdout, "watch: %s venue at %s\n", v.Label, v.Endpoints.BaseURL)
	if err := app.CheckSymbols(ctx, v.Client, "watch", append([]string{symbol}, wl...)...); err != nil {
		return err
	}
	// The same path as the dashboard's: a session of the venue's feed hub.
	s := v.Hub.Join(ctx, view)
	defer s.Close()
	return watchLoop(ctx, env.Stdout, s.Updates(), symbol, o.every, untilDone(ctx))
}

// oneProcessor runs watch's goroutines on one processor unless the
// environment sets GOMAXPROCS. watch is a stream reader handing each
// message on to a coalescer and a printer; on one processor those
// hand-offs need no wake-up of another thread (futex, sysmon), which was
// about a fifth of its CPU (make bench-cpu watch-busy: 1.75-1.8 -> 1.55-1.6 %
// of a core at ~63 msgs/s). The returned func puts the old setting back
// (a test runs watch inside its own process).
func oneProcessor() (restore func()) {
	if os.Getenv("GOMAXPROCS") != "" {
		return func() {}
	}
	old := runtime.GOMAXPROCS(1)
	return func() { runtime.GOMAXPROCS(old) }
}

// watchFPS is the frame rate watch asks of its venue's hub: four
// Updates per printed line (the hub coalesces at twice the rate), so the
// line shows the market at most a quarter of --every old (the book's age
// says by how much), and no more than the headless rate. Each Update is
// a timer that wakes the process and a chain of hand-offs (coalescer,
// hub, session, printer): at the headless rate, 20 a second, for one
// line (make bench-cpu watch-busy, docs/performance.md).
func watchFPS(every time.Duration) int {
	if every <= 0 {
		return app.HeadlessFPS
	}
	perLine := 2 // Updates per second = 2*fps
	fps := int((time.Duration(perLine)*time.Second + every - 1) / every)
	return max(1, min(fps, app.HeadlessFPS))
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
	bookAt time.Time // when book arrived: its Age was taken then
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
				v.book, v.bookAt = b, time.Now()
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
		age := bk.Age + max(0, now.Sub(v.bookAt))
		fmt.Fprintf(&b, " %s %s age %s", bk.Symbol, bk.State, age.Truncate(time.Millisecond))
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
