package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"tradedeck/config"
	"tradedeck/record/capture"
)

func init() {
	register("record", "record the market (and private) streams of symbols to a file for replay", runRecord)
}

func runRecord(args []string) error {
	fs, vf := venueFlagSet("record")
	symbols := fs.String("symbols", "", "comma-separated symbols to record")
	watchlist := fs.Bool("watchlist", false, "record the config's watchlist (with --symbols: both)")
	duration := fs.Duration("duration", 0, "stop after this long (0: until interrupted)")
	out := fs.String("out", "", "output file (default tradedeck-YYYYMMDD-HHMMSS.tdrec)")
	maxSize := fs.String("max-size", "1GB", "start a new part (FILE.2.tdrec, ...) past this size; 0: never")
	intervals := fs.String("intervals", "1m", "comma-separated candle intervals to record")
	allTickers := fs.Bool("all-tickers", false, "also record the tickers and bbos of every symbol (once a second; large on a real venue)")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: tradedeck record --symbols A,B [--duration 10m] [--out FILE] [flags]\n\nEvery market frame of the symbols (and the private stream when keys are set), with receive times, zstd-compressed; see docs/record.md.")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return err
	}
	capSize, err := parseSize(*maxSize)
	if err != nil {
		return fmt.Errorf("record: --max-size: %w", err)
	}
	cfg, _, err := config.LoadFlag(vf.config)
	if err != nil {
		return err
	}
	syms := splitSymbols(*symbols)
	if *watchlist {
		syms = append(syms, cfg.Watchlist...)
	}
	syms = dedupeStrings(syms)
	if len(syms) == 0 {
		fs.Usage()
		return errors.New("record: no symbols (--symbols or --watchlist)")
	}
	path := *out
	if path == "" {
		path = time.Now().UTC().Format("tradedeck-20060102-150405") + ".tdrec"
	}
	ctx, v, closeVenue, err := vf.openInterruptible()
	if err != nil {
		return err
	}
	defer closeVenue()
	if v.creds.ApplicationID == "" {
		return errors.New("record: the venue's streams need an application id (" + config.EnvApplicationID + ")")
	}
	if *duration > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, *duration)
		defer cancel()
	}
	fmt.Fprintf(os.Stderr, "record: %s %s to %s (ctrl-c stops; a kill keeps all but the last second)\n", v.label, strings.Join(syms, ","), path)
	lastReport := time.Now()
	st, err := capture.Run(ctx, capture.Options{
		Endpoints: v.endpoints, Credentials: v.creds, Venue: v.label, Symbols: syms,
		Intervals: splitList(*intervals), AllTickers: *allTickers, Out: path, MaxBytes: capSize, Log: os.Stderr,
		Progress: func(s capture.Stats) {
			if time.Since(lastReport) >= 10*time.Second {
				lastReport = time.Now()
				fmt.Fprintf(os.Stderr, "record: %s  %d market, %d private frames  %s\n", s.Last.Sub(s.First).Truncate(time.Second), s.Market, s.Private, formatBytes(s.Bytes))
			}
		},
	})
	if err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "record: done: %d market, %d private frames, %d REST replies over %s; %s in %s\n",
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
