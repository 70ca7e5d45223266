package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"tradedeck/export"
	"tradedeck/internal/app"
)

// exportOptions are `tradedeck export`'s flags.
type exportOptions struct {
	venue                             app.VenueChoice
	symbol, since, until, format, out string
	quiet                             bool
}

// Export is `tradedeck export KIND`: the account's data out of the venue.
func Export(env Env) *cobra.Command {
	var o exportOptions
	cmd := &cobra.Command{
		Use:   "export KIND",
		Short: "export fills, orders, funding, interest, transfers, assets, positions or balances (csv, json, jsonl)",
		Long: "Export the account's data out of the venue.\n\nKIND is one of " + strings.Join(kindNames(), ", ") +
			".\nDecimals are exact, times UTC ISO-8601 with milliseconds.",
		Example: `  tradedeck export fills --since 7d --out fills.csv
  tradedeck export orders --live --symbol PERP_BTC_USDT --format jsonl`,
		Args:      exactlyOne("KIND"),
		ValidArgs: kindNames(),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runExport(env, o, args[0])
		},
	}
	fs := cmd.Flags()
	venueFlags(fs, &o.venue, "use")
	fs.StringVar(&o.symbol, "symbol", "", "only this symbol (fills, orders, funding, positions) or token (interest, assets, transfers, balances)")
	fs.StringVar(&o.since, "since", "", "from this date (2026-01-31), time (2026-01-31T15:04, UTC) or duration ago (7d, 12h)")
	fs.StringVar(&o.until, "until", "", "up to this date (inclusive), time or duration ago; default now")
	fs.StringVar(&o.format, "format", "", "csv, json or jsonl (default from --out's extension, else csv)")
	fs.StringVar(&o.out, "out", "", "output file (default stdout); written whole or not at all")
	fs.BoolVarP(&o.quiet, "quiet", "q", false, "no progress on stderr")
	return cmd
}

func runExport(env Env, o exportOptions, arg string) error {
	kind, err := export.ParseKind(arg)
	if err != nil {
		return err
	}
	now := time.Now()
	q := export.Query{Kind: kind, Symbol: strings.ToUpper(o.symbol)}
	if q.Since, err = export.ParseWhen(o.since, now, false); err != nil {
		return fmt.Errorf("export: --since: %w", err)
	}
	if q.Until, err = export.ParseWhen(o.until, now, true); err != nil {
		return fmt.Errorf("export: --until: %w", err)
	}
	f := export.Format(o.format)
	if f == "" {
		f = formatFromName(o.out)
	}
	ctx, v, closeVenue, err := o.venue.OpenInterruptible()
	if err != nil {
		return err
	}
	defer closeVenue()
	if !v.Credentials.HasKeys() {
		return errors.New("export: the account's data needs API keys (" + "TRADEDECK_API_KEY, TRADEDECK_API_SECRET)")
	}
	var progress export.Progress
	if !o.quiet {
		progress = exportProgress(env.Stderr, time.Now())
	}
	n, err := exportTo(ctx, env.Stdout, o.out, f, func(w export.Writer) (int, error) {
		return export.Run(ctx, v.Client, q, w, progress)
	})
	if err != nil {
		return err
	}
	if !o.quiet {
		dest := o.out
		if dest == "" {
			dest = "stdout"
		}
		fmt.Fprintf(env.Stderr, "export: %d %s from %s to %s\n", n, kind, v.Label, dest)
	}
	return nil
}

// exportTo runs an export into path (stdout when empty) through a
// temporary file renamed at the end, so a failed export leaves no
// half-written file behind.
func exportTo(ctx context.Context, stdout io.Writer, path string, f export.Format, run func(export.Writer) (int, error)) (int, error) {
	if path == "" {
		w, err := export.NewWriter(f, stdout)
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
