package cli

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"tradedeck/config"
	"tradedeck/internal/app"
	"tradedeck/record/capture"
)

// recordOptions are `tradedeck record`'s flags.
type recordOptions struct {
	venue                            app.VenueChoice
	symbols, out, maxSize, intervals string
	watchlist, allTickers            bool
	duration                         time.Duration
}

// Record is `tradedeck record`: every stream frame of some symbols to a file.
func Record(env Env) *cobra.Command {
	var o recordOptions
	cmd := &cobra.Command{
		Use:   "record",
		Short: "record the market (and private) streams of symbols to a file for replay",
		Long: `Record every market frame of the symbols (and the private stream when keys are set), with
receive times, zstd-compressed; see docs/record.md.`,
		Example: `  tradedeck record --symbols SPOT_BTC_USDT,PERP_ETH_USDT --duration 10m --out btc.tdrec
  tradedeck record --live --watchlist`,
		Args: noArgs,
		RunE: func(*cobra.Command, []string) error { return runRecord(env, o) },
	}
	fs := cmd.Flags()
	venueFlags(fs, &o.venue, "use")
	fs.StringVar(&o.symbols, "symbols", "", "comma-separated symbols to record")
	fs.BoolVar(&o.watchlist, "watchlist", false, "record the config's watchlist (with --symbols: both)")
	fs.DurationVar(&o.duration, "duration", 0, "stop after this long (0: until interrupted)")
	fs.StringVar(&o.out, "out", "", "output file (default tradedeck-YYYYMMDD-HHMMSS.tdrec)")
	fs.StringVar(&o.maxSize, "max-size", "1GB", "start a new part (FILE.2.tdrec, ...) past this size; 0: never")
	fs.StringVar(&o.intervals, "intervals", "1m", "comma-separated candle intervals to record")
	fs.BoolVar(&o.allTickers, "all-tickers", false, "also record the tickers and bbos of every symbol (once a second; large on a real venue)")
	return cmd
}

func runRecord(env Env, o recordOptions) error {
	capSize, err := parseSize(o.maxSize)
	if err != nil {
		return fmt.Errorf("record: --max-size: %w", err)
	}
	cfg, _, err := config.LoadFlag(o.venue.Config)
	if err != nil {
		return err
	}
	syms := splitSymbols(o.symbols)
	if o.watchlist {
		syms = append(syms, cfg.Watchlist...)
	}
	syms = dedupeStrings(syms)
	if len(syms) == 0 {
		return errors.New("record: no symbols (--symbols or --watchlist)")
	}
	path := o.out
	if path == "" {
		path = time.Now().UTC().Format("tradedeck-20060102-150405") + ".tdrec"
	}
	ctx, v, closeVenue, err := o.venue.OpenInterruptible()
	if err != nil {
		return err
	}
	defer closeVenue()
	if v.Credentials.ApplicationID == "" {
		return errors.New("record: the venue's streams need an application id (" + config.EnvApplicationID + ")")
	}
	if o.duration > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, o.duration)
		defer cancel()
	}
	fmt.Fprintf(env.Stderr, "record: %s %s to %s (ctrl-c stops; a kill keeps all but the last second)\n", v.Label, strings.Join(syms, ","), path)
	lastReport := time.Now()
	st, err := capture.Run(ctx, capture.Options{
		Endpoints: v.Endpoints, Credentials: v.Credentials, Venue: v.Label, Symbols: syms,
		Intervals: splitList(o.intervals), AllTickers: o.allTickers, Out: path, MaxBytes: capSize, Log: env.Stderr,
		Progress: func(s capture.Stats) {
			if time.Since(lastReport) >= 10*time.Second {
				lastReport = time.Now()
				fmt.Fprintf(env.Stderr, "record: %s  %d market, %d private frames  %s\n", s.Last.Sub(s.First).Truncate(time.Second), s.Market, s.Private, formatBytes(s.Bytes))
			}
		},
	})
	if err != nil {
		return err
	}
	fmt.Fprintf(env.Stderr, "record: done: %d market, %d private frames, %d REST replies over %s; %s in %s\n",
		st.Market, st.Private, st.REST, st.Last.Sub(st.First).Truncate(time.Millisecond), formatBytes(st.Bytes), strings.Join(st.Parts, ", "))
	return nil
}

func splitList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

func splitSymbols(s string) []string { return splitList(strings.ToUpper(s)) }

func dedupeStrings(in []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, s := range in {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}

// parseSize reads 500MB, 2GB, 1048576 (bytes); 0 means no limit.
func parseSize(s string) (int64, error) {
	s = strings.ToUpper(strings.TrimSpace(s))
	mult := int64(1)
	for _, u := range []struct {
		suffix string
		m      int64
	}{{"GB", 1 << 30}, {"MB", 1 << 20}, {"KB", 1 << 10}, {"B", 1}} {
		if strings.HasSuffix(s, u.suffix) {
			s, mult = strings.TrimSuffix(s, u.suffix), u.m
			break
		}
	}
	n, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("%q is not a size such as 500MB", s)
	}
	return n * mult, nil
}

func formatBytes(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.2f GB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}
