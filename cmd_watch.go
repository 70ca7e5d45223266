package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"tradedeck/feed"
	"tradedeck/feed/hub"
	"tradedeck/fixed"
	"tradedeck/sim"
	"tradedeck/venue"
)

func init() {
	register("watch", "headless feed: book top, trades and health, one line a second", runWatch)
}

func runWatch(args []string) error {
	fs := flag.NewFlagSet("watch", flag.ContinueOnError)
	base := fs.String("url", "", "REST base URL of the venue (default: start the embedded simulated venue)")
	wsURL := fs.String("ws", "", "Websocket base URL (market and private); default derived from --url")
	hist := fs.String("history-url", "", "public history base URL (default --url)")
	app := fs.String("app", os.Getenv("TRADEDECK_APPLICATION_ID"), "application id (env TRADEDECK_APPLICATION_ID)")
	key := fs.String("key", os.Getenv("TRADEDECK_API_KEY"), "API key (env TRADEDECK_API_KEY); none: public data only")
	interval := fs.String("interval", "1m", "candle interval")
	watch := fs.String("watch", "", "comma-separated watchlist symbols (bbo and ticker)")
	every := fs.Duration("every", time.Second, "print interval")
	duration := fs.Duration("duration", 0, "stop after this long (0: until interrupted)")
	verbose := fs.Bool("v", false, "log reconnects, resyncs and REST failures to stderr")
	replayPath := fs.String("replay", "", "watch a recording (tradedeck record) instead of a venue, at --speed")
	replaySpeed := fs.String("speed", "1", "with --replay: playback speed, a factor or max")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: tradedeck watch SYMBOL [flags]\n\nThe API secret is read from the environment (TRADEDECK_API_SECRET), never from a flag.")
		fs.PrintDefaults()
	}
	if err := fs.Parse(reorderArgs(args)); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		fs.Usage()
		return errors.New("watch: exactly one SYMBOL expected")
	}
	symbol := strings.ToUpper(fs.Arg(0))
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if *duration > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, *duration)
		defer cancel()
	}

	var ep venue.Endpoints
	var creds venue.Credentials
	var clock func() time.Time
	if *replayPath != "" {
		srv, err := startWatchReplay(ctx, *replayPath, *replaySpeed)
		if err != nil {
			return err
		}
		ep, clock = srv.Endpoints, srv.Now
		if srv.Summary().Header.Private {
			creds = replayCredentials
		}
		ctx = replayEnds(ctx, srv)
		fmt.Printf("watch: replaying %s (REPLAY)\n", *replayPath)
	} else if *base == "" {
		inst, err := sim.Start(ctx, sim.Options{Seed: 1})
		if err != nil {
			return fmt.Errorf("watch: start the simulated venue: %w", err)
		}
		defer inst.Close()
		ep, creds = inst.Endpoints, inst.Credentials
		fmt.Printf("watch: embedded simulated venue (SIM) at %s\n", ep.BaseURL)
	} else {
		ws := *wsURL
		if ws == "" {
			ws = "ws" + strings.TrimPrefix(strings.TrimSuffix(*base, "/"), "http")
		}
		h := *hist
		if h == "" {
			h = *base
		}
		ep = venue.Endpoints{BaseURL: *base, PublicHistoryURL: h, WSMarketURL: ws, WSPrivateURL: ws}
		creds = venue.Credentials{APIKey: *key, APISecret: os.Getenv("TRADEDECK_API_SECRET"), ApplicationID: *app}
	}
	var logw io.Writer
	if *verbose {
		logw = os.Stderr
	}
	var wl []string
	if *watch != "" {
		wl = strings.Split(strings.ToUpper(*watch), ",")
	}
	// The same path as the dashboard's: a session of a feed hub.
	h := hub.New(feed.New(feed.Config{Endpoints: ep, Credentials: creds, Interval: *interval, Log: logw, Clock: clock}))
	errc := make(chan error, 1)
	go func() { errc <- h.Run(ctx) }()
	s := h.Join(ctx, feed.View{Symbol: symbol, Interval: *interval, Watchlist: wl})
	return watchLoop(ctx, os.Stdout, s.Updates(), symbol, *every, errc)
}

// reorderArgs lets flags follow the symbol (`watch SPOT_BTC_USDT -v`).
func reorderArgs(args []string) []string {
	var flags, pos []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if strings.HasPrefix(a, "-") {
			flags = append(flags, a)
			if !strings.Contains(a, "=") && i+1 < len(args) && !isBoolFlag(a) {
				flags = append(flags, args[i+1])
				i++
			}
			continue
		}
		pos = append(pos, a)
	}
	return append(flags, pos...)
}

func isBoolFlag(a string) bool {
	a = strings.TrimLeft(a, "-")
	return a == "v" || a == "h" || a == "help"
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
