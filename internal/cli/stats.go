package cli

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/shopspring/decimal"
	"github.com/spf13/cobra"

	"tradedeck/config"
	"tradedeck/internal/app"
	"tradedeck/sim/swapstats"
	"tradedeck/stats"
)

// statsOptions are `tradedeck stats`'s flags.
type statsOptions struct {
	venue                  app.VenueChoice
	network, period        string
	asJSON, asCSV, sources bool
	timeout                time.Duration
}

// Stats is `tradedeck stats`: the swap statistics printed once.
func Stats(env Env) *cobra.Command {
	var o statsOptions
	cmd := &cobra.Command{
		Use:   "stats",
		Short: "swap statistics printed once (table, --json or --csv) for scripts",
		Example: `  tradedeck stats --network avax --period 1w --sources
  tradedeck stats --period 1d --json`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runStats(cmd.Context(), o, env.Stdout) },
	}
	fs := cmd.Flags()
	venueFlags(fs, &o.venue, "use") // --live / --staging: the config's stats_url; default an in-process simulated service
	fs.StringVar(&o.network, "network", "bsc", "network: bsc, avax, fantom, polygon, arbitrum, optimism (or any the service knows)")
	fs.StringVar(&o.period, "period", "1w", "period: 1d (hourly rows), 1w, 1m, 3m, 1y, all (daily rows)")
	fs.BoolVar(&o.asJSON, "json", false, "print JSON")
	fs.BoolVar(&o.asCSV, "csv", false, "print CSV (the rows; with --sources the sources instead)")
	fs.BoolVar(&o.sources, "sources", false, "include the split of volume by source")
	fs.DurationVar(&o.timeout, "timeout", 30*time.Second, "give up after this long")
	return cmd
}

func runStats(ctx context.Context, o statsOptions, stdout io.Writer) error {
	if o.asJSON && o.asCSV {
		return errors.New("stats: --json and --csv exclude each other")
	}
	if !stats.ValidPeriod(o.period) {
		return fmt.Errorf("stats: unknown period %q: one of %s", o.period, strings.Join(stats.Periods, ", "))
	}
	url, simulated, stop, err := statsURL(o.venue)
	if err != nil {
		return err
	}
	defer stop()
	ctx, cancel := context.WithTimeout(ctx, o.timeout)
	defer cancel()
	rep, err := stats.Fetch(ctx, stats.NewClient(url), o.network, o.period, o.sources)
	if err != nil {
		return err
	}
	out := statsOutput{URL: url, Simulated: simulated, Report: rep, Sources: o.sources, FetchedAt: time.Now()}
	switch {
	case o.asJSON:
		return out.writeJSON(stdout)
	case o.asCSV:
		return out.writeCSV(stdout)
	}
	return out.writeTable(stdout)
}

// statsURL chooses the stats service as the dashboard chooses its venue:
// the config's stats_url with --live or --staging, else the simulated
// service in-process (the stats command needs no whole simulated venue).
func statsURL(vf app.VenueChoice) (url string, simulated bool, stop func(), err error) {
	target, err := vf.Target()
	if err != nil {
		return "", false, nil, err
	}
	if target != config.TargetSim {
		cfg, _, err := config.LoadFlag(vf.Config)
		if err != nil {
			return "", false, nil, err
		}
		return cfg.EndpointsOf(target).StatsURL, false, func() {}, nil
	}
	url, stop, err = startLocalStats(vf.Seed)
	return url, true, stop, err
}

// startLocalStats serves the simulated stats service on a random loopback
// port, mounted under /woofi as the full simulator mounts it, so the command
// always talks HTTP.
func startLocalStats(seed int64) (string, func(), error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, fmt.Errorf("stats: starting the local service: %w", err)
	}
	mux := http.NewServeMux()
	mux.Handle("/woofi/", http.StripPrefix("/woofi", swapstats.New(seed, time.Now).Handler()))
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	go srv.Serve(ln)
	stop := func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		srv.Shutdown(ctx)
	}
	return "http://" + ln.Addr().String() + "/woofi", stop, nil
}

type statsOutput struct {
	URL       string
	Simulated bool
	Report    stats.Report
	Sources   bool
	FetchedAt time.Time
}

func (o statsOutput) change() (decimal.Decimal, bool) {
	if !o.Report.HasPrevious {
		return decimal.Decimal{}, false
	}
	return stats.Change(o.Report.Series.Totals().VolumeUSD, o.Report.Previous.VolumeUSD)
}

func rowTime(s stats.Series, t time.Time) string {
	if s.Hourly {
		return t.UTC().Format("2006-01-02 15:04")
	}
	return t.UTC().Format("2006-01-02")
}

func turnoverText(has bool, d decimal.Decimal) string {
	if !has {
		return "-"
	}
	return d.StringFixed(2)
}

func (o statsOutput) writeTable(w io.Writer) error {
	s := o.Report.Series
	kind := "daily rows, UTC"
	if s.Hourly {
		kind = "hourly rows, UTC"
	}
	src := o.URL
	if o.Simulated {
		src += " (simulated)"
	}
	fmt.Fprintf(w, "Swap statistics  network %s  period %s  (%s)\nsource %s, fetched %s\n\n", s.Network, s.Period, kind, src, o.FetchedAt.UTC().Format(time.RFC3339))
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "DATE\tVOLUME USD\tTRADERS\tTRADES\tTURNOVER %\t")
	for _, r := range s.Rows {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t\n", rowTime(s, r.Time), stats.FormatUSD(r.VolumeUSD, 2), stats.FormatCount(r.Traders), stats.FormatCount(r.Trades), turnoverText(r.HasTurnover, r.Turnover))
	}
	t := s.Totals()
	fmt.Fprintf(tw, "TOTAL\t%s\t%s avg\t%s\t%s avg\t\n", stats.FormatUSD(t.VolumeUSD, 2), stats.FormatCount(t.AvgTraders()), stats.FormatCount(t.Trades), turnoverText(t.HasTurnover, t.Turnover))
	if err := tw.Flush(); err != nil {
		return err
	}
	// "all" has no previous period to compare with: no change line.
	if ch, ok := o.change(); ok {
		fmt.Fprintf(w, "\nvolume change vs the previous %s: %s (previous %s USD)\n", s.Period, stats.FormatChange(ch), stats.FormatUSD(o.Report.Previous.VolumeUSD, 2))
	} else if s.Period != "all" {
		fmt.Fprintf(w, "\nvolume change vs the previous %s: n/a\n", s.Period)
	}
	if !o.Sources {
		return nil
	}
	fmt.Fprintln(w, "\nSOURCES")
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "#\tNAME\tVOLUME USD\tTRADES\tSHARE %\t")
	for i, x := range o.Report.Sources {
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t\n", i+1, x.Name, stats.FormatUSD(x.VolumeUSD, 2), stats.FormatCount(x.Trades), x.Percentage.StringFixed(2))
	}
	return tw.Flush()
}

type jsonRow struct {
	Time     time.Time        `json:"time"`
	ID       int64            `json:"id"`
	Volume   decimal.Decimal  `json:"volume_usd"`
	Traders  int64            `json:"traders"`
	Trades   int64            `json:"trades"`
	Turnover *decimal.Decimal `json:"turnover_rate_percentage,omitempty"`
}

type jsonTotals struct {
	From       time.Time        `json:"from"`
	To         time.Time        `json:"to"`
	Volume     decimal.Decimal  `json:"volume_usd"`
	Trades     int64            `json:"trades"`
	AvgTraders int64            `json:"avg_traders"`
	PeakTrader int64            `json:"peak_traders"`
	Turnover   *decimal.Decimal `json:"avg_turnover_rate_percentage,omitempty"`
}

type jsonSource struct {
	ID         string          `json:"id"`
	Name       string          `json:"name"`
	Volume     decimal.Decimal `json:"volume_usd"`
	Trades     int64           `json:"trades"`
	Percentage decimal.Decimal `json:"percentage"`
}

func totalsJSON(t stats.Totals) jsonTotals {
	j := jsonTotals{From: t.From, To: t.To, Volume: t.VolumeUSD, Trades: t.Trades, AvgTraders: t.AvgTraders(), PeakTrader: t.TraderPeak}
	if t.HasTurnover {
		j.Turnover = &t.Turnover
	}
	return j
}

// writeJSON prints exact amounts as decimal strings in USD (not x 10^18).
func (o statsOutput) writeJSON(w io.Writer) error {
	s := o.Report.Series
	out := struct {
		Network   string           `json:"network"`
		Period    string           `json:"period"`
		Hourly    bool             `json:"hourly"`
		Source    string           `json:"source_url"`
		FetchedAt time.Time        `json:"fetched_at"`
		Rows      []jsonRow        `json:"rows"`
		Totals    jsonTotals       `json:"totals"`
		Previous  *jsonTotals      `json:"previous,omitempty"`
		Change    *decimal.Decimal `json:"volume_change_percent,omitempty"`
		Sources   []jsonSource     `json:"sources,omitempty"`
	}{Network: s.Network, Period: s.Period, Hourly: s.Hourly, Source: o.URL, FetchedAt: o.FetchedAt.UTC(), Rows: []jsonRow{}, Totals: totalsJSON(s.Totals())}
	for _, r := range s.Rows {
		jr := jsonRow{Time: r.Time, ID: r.ID, Volume: r.VolumeUSD, Traders: r.Traders, Trades: r.Trades}
		if r.HasTurnover {
			jr.Turnover = &r.Turnover
		}
		out.Rows = append(out.Rows, jr)
	}
	if o.Report.HasPrevious {
		p := totalsJSON(o.Report.Previous)
		out.Previous = &p
	}
	if ch, ok := o.change(); ok {
		out.Change = &ch
	}
	if o.Sources {
		out.Sources = []jsonSource{}
		for _, x := range o.Report.Sources {
			out.Sources = append(out.Sources, jsonSource{x.ID, x.Name, x.VolumeUSD, x.Trades, x.Percentage})
		}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}

func (o statsOutput) writeCSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	if o.Sources {
		cw.Write([]string{"rank", "id", "name", "volume_usd", "trades", "percentage"})
		for i, x := range o.Report.Sources {
			cw.Write([]string{strconv.Itoa(i + 1), x.ID, x.Name, x.VolumeUSD.String(), strconv.FormatInt(x.Trades, 10), x.Percentage.String()})
		}
	} else {
		cw.Write([]string{"time", "id", "volume_usd", "traders", "trades", "turnover_rate_percentage"})
		for _, r := range o.Report.Series.Rows {
			turnover := ""
			if r.HasTurnover {
				turnover = r.Turnover.String()
			}
			cw.Write([]string{r.Time.UTC().Format(time.RFC3339), strconv.FormatInt(r.ID, 10), r.VolumeUSD.String(), strconv.FormatInt(r.Traders, 10), strconv.FormatInt(r.Trades, 10), turnover})
		}
	}
	cw.Flush()
	return cw.Error()
}
