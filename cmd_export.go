package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"tradedeck/export"
)

func init() {
	register("export", "export fills, orders, funding, interest, transfers, assets, positions or balances (csv, json, jsonl)", runExport)
}

func runExport(args []string) error {
	fs, vf := venueFlagSet("export")
	symbol := fs.String("symbol", "", "only this symbol (fills, orders, funding, positions) or token (interest, assets, transfers, balances)")
	since := fs.String("since", "", "from this date (2026-01-31), time (2026-01-31T15:04, UTC) or duration ago (7d, 12h)")
	until := fs.String("until", "", "up to this date (inclusive), time or duration ago; default now")
	format := fs.String("format", "", "csv, json or jsonl (default from --out's extension, else csv)")
	out := fs.String("out", "", "output file (default stdout); written whole or not at all")
	quiet := fs.Bool("q", false, "no progress on stderr")
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "usage: tradedeck export KIND [flags]\n\nKIND is one of %s.\nDecimals are exact, times UTC ISO-8601 with milliseconds.\n", strings.Join(kindNames(), ", "))
		fs.PrintDefaults()
	}
	arg, err := parseOneArg(fs, args, "KIND")
	if err != nil {
		return err
	}
	kind, err := export.ParseKind(arg)
	if err != nil {
		return err
	}
	now := time.Now()
	q := export.Query{Kind: kind, Symbol: strings.ToUpper(*symbol)}
	if q.Since, err = export.ParseWhen(*since, now, false); err != nil {
		return fmt.Errorf("export: --since: %w", err)
	}
	if q.Until, err = export.ParseWhen(*until, now, true); err != nil {
		return fmt.Errorf("export: --until: %w", err)
	}
	f := export.Format(*format)
	if f == "" {
		f = formatFromName(*out)
	}
	ctx, v, closeVenue, err := vf.openInterruptible()
	if err != nil {
		return err
	}
	defer closeVenue()
	if !v.creds.HasKeys() {
		return errors.New("export: the account's data needs API keys (" + "TRADEDECK_API_KEY, TRADEDECK_API_SECRET)")
	}
	var progress export.Progress
	if !*quiet {
		progress = exportProgress(os.Stderr, time.Now())
	}
	n, err := exportTo(ctx, *out, f, func(w export.Writer) (int, error) {
		return export.Run(ctx, v.client, q, w, progress)
	})
	if err != nil {
		return err
	}
	if !*quiet {
		dest := *out
		if dest == "" {
			dest = "stdout"
		}
		fmt.Fprintf(os.Stderr, "export: %d %s from %s to %s\n", n, kind, v.label, dest)
	}
	return nil
}

// exportTo runs an export into path (stdout when empty) through a
// temporary file renamed at the end, so a failed export leaves no
// half-written file behind.
func exportTo(ctx context.Context, path string, f export.Format, run func(export.Writer) (int, error)) (int, error) {
	if path == "" {
		w, err := export.NewWriter(f, os.Stdout)
		if err != nil {
			return 0, err
		}
		return run(w)
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return 0, err
	}
	defer os.Remove(tmp.Name())
	w, err := export.NewWriter(f, tmp)
	if err != nil {
		tmp.Close()
		return 0, err
	}
	n, err := run(w)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return n, err
	}
	return n, os.Rename(tmp.Name(), path)
}

func formatFromName(path string) export.Format {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".json":
		return export.JSON
	case ".jsonl", ".ndjson":
		return export.JSONL
	}
	return export.CSV
}

// exportProgress reports pages on stderr once an export takes more than
// a moment.
func exportProgress(w io.Writer, start time.Time) export.Progress {
	shown := false
	return func(kind export.Kind, page, rows int, total int64) {
		if !shown && time.Since(start) < time.Second && page < 3 {
			return
		}
		shown = true
		of := ""
		if total >= 0 {
			of = fmt.Sprintf(" of %d", total)
		}
		fmt.Fprintf(w, "export %s: page %d, %d rows%s (%s)\n", kind, page, rows, of, time.Since(start).Truncate(100*time.Millisecond))
	}
}

func kindNames() []string {
	out := make([]string, len(export.Kinds))
	for i, k := range export.Kinds {
		out[i] = string(k)
	}
	return out
}
