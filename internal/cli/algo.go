package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/shopspring/decimal"
	"github.com/spf13/cobra"

	"tradedeck/algo"
	"tradedeck/algo/control"
	"tradedeck/algo/store"
	"tradedeck/internal/app"
)

// algoOptions are the flags of `tradedeck algo` and its subcommands.
type algoOptions struct {
	venue         app.VenueChoice
	json          bool
	fireIfThrough bool
	symbol        string
}

// Algo is `tradedeck algo add|list|cancel|amend|resolve`: the account's
// protective orders, through the engine that runs them (over its local
// socket). With no engine running, list reads the database and add
// refuses: nothing would watch the trigger.
func Algo(env Env) *cobra.Command {
	var o algoOptions
	cmd := &cobra.Command{
		Use:   "algo",
		Short: "protective and working orders (stop, tp, oco, trail, bracket; chase, scale, twap) of the account's engine",
		Long: "Add, list and cancel the account's protective and working orders, pause and resume the working ones, in\n" +
			"the account's engine (tradedeck desk, the dashboard or serve runs it; docs/algos.md). The grammar is\n" +
			"the : command line's:\n  " +
			strings.Join(algo.Grammar, "\n  "),
		Example: `  tradedeck algo add stop PERP_BTC_USDT 95000 --live
  tradedeck algo add oco PERP_ETH_USDT 3900 3300 50% --live
  tradedeck algo add chase PERP_ETH_USDT buy 0.5 offset 1 leash 3420 post --live
  tradedeck algo list --json --live
  tradedeck algo pause 13 --live
  tradedeck algo cancel 12 --live
  tradedeck algo cancel all --live`,
		Args: noArgs,
	}
	fs := cmd.PersistentFlags()
	venueFlags(fs, &o.venue, "protect positions on")
	fs.BoolVar(&o.json, "json", false, "one JSON object a line")
	add := &cobra.Command{
		Use:   "add KIND SYMBOL ...",
		Short: "arm a protective order or start a working one, e.g. stop PERP_BTC_USDT 95000",
		Args:  cobra.MinimumNArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			return algoAdd(cmd.Context(), env.Stdout, o, strings.Join(args, " "))
		},
	}
	add.Flags().BoolVar(&o.fireIfThrough, "fire-if-through", false, "a trigger the market is already through fires at once (the confirmation's choice; the grammar's \"now\")")
	cancel := &cobra.Command{
		Use:   "cancel ID|all",
		Short: "cancel one algo, or all of them (--symbol: of one symbol)",
		Args:  exactlyOne("ID or all"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return algoCancel(cmd.Context(), env.Stdout, o, args[0])
		},
	}
	cancel.Flags().StringVar(&o.symbol, "symbol", "", "with all: only this symbol's algos")
	cmd.AddCommand(add, &cobra.Command{
		Use:     "list",
		Aliases: []string{"ls"},
		Short:   "the algos, their triggers, state and child orders",
		Args:    noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return algoList(cmd.Context(), env.Stdout, env.Stderr, o)
		},
	}, cancel, &cobra.Command{
		Use:   "amend ID stop|tp PRICE",
		Short: "move an algo's trigger",
		Args:  cobra.ExactArgs(3),
		RunE: func(cmd *cobra.Command, args []string) error {
			return algoAmend(cmd.Context(), env.Stdout, o, args)
		},
	}, &cobra.Command{
		Use:   "pause ID",
		Short: "pause a working order (chase, scale, twap): its open orders are cancelled, its progress kept",
		Args:  exactlyOne("ID"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return algoPauseResume(cmd.Context(), env.Stdout, o, "pause", args[0])
		},
	}, &cobra.Command{
		Use:   "resume ID",
		Short: "put a paused working order back to work",
		Args:  exactlyOne("ID"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return algoPauseResume(cmd.Context(), env.Stdout, o, "resume", args[0])
		},
	}, &cobra.Command{
		Use:   "resolve ID resume|cancel",
		Short: "answer an algo that needs a decision",
		Args:  cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			return algoResolve(cmd.Context(), env.Stdout, o, args)
		},
	})
	return cmd
}

// howToStart says how to run an engine for the account.
func (o algoOptions) howToStart() string {
	flag := "--live"
	if o.venue.Staging {
		flag = "--staging"
	}
	if o.venue.Config != "" {
		flag += " --config " + o.venue.Config
	}
	return "start one: tradedeck desk " + flag + " (or the dashboard, or serve --trade)"
}

// engine connects to the engine of the account the flags name.
func (o algoOptions) engine(ctx context.Context) (*control.Client, app.AlgoAccount, error) {
	acct, err := o.venue.AlgoAccount()
	if err != nil {
		return nil, acct, err
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	c, err := control.Find(ctx, acct.Paths, "tradedeck algo") // the engine adds this process's id
	return c, acct, err
}

func algoAdd(ctx context.Context, w io.Writer, o algoOptions, line string) error {
	spec, err := algo.Parse(line)
	if err != nil {
		return fmt.Errorf("algo add: %w", err)
	}
	c, _, err := o.engine(ctx)
	if errors.Is(err, control.ErrNotRunning) {
		return fmt.Errorf("algo add: refused: %w; nothing would watch the trigger: %s", err, o.howToStart())
	}
	if err != nil {
		return fmt.Errorf("algo add: %w", err)
	}
	defer c.Close()
	p, err := c.Preview(spec)
	if err != nil {
		return fmt.Errorf("algo add: %w", err)
	}
	a, err := c.Add(p.Spec, algo.Confirm{FireIfThrough: o.fireIfThrough || spec.FireIfThrough})
	if errors.Is(err, algo.ErrThrough) {
		return fmt.Errorf("algo add: refused: %w (--fire-if-through fires it at once)", err)
	}
	if err != nil {
		return fmt.Errorf("algo add: %w", err)
	}
	if o.json {
		return json.NewEncoder(w).Encode(algoJSONOf(a, "running"))
	}
	fmt.Fprintf(w, "algo %d: %s: %s %s, %s, in %s\n", a.ID, a.State, strings.ToLower(string(p.Side)), p.Size, describeLegs(p), c.Info().Holder)
	for _, warn := range p.Warnings {
		fmt.Fprintln(w, "  warning:", warn)
	}
	return nil
}

func describeLegs(p algo.Preview) string {
	var parts []string
	for _, l := range p.Legs {
		parts = append(parts, fmt.Sprintf("%s %s on %s: %s", l.Leg, l.Trigger, l.Source, l.Order))
	}
	if p.ReduceOnly {
		parts = append(parts, "reduce-only")
	}
	return strings.Join(parts, "; ")
}

func algoCancel(ctx context.Context, w io.Writer, o algoOptions, arg string) error {
	c, _, err := o.engine(ctx)
	if errors.Is(err, control.ErrNotRunning) {
		return fmt.Errorf("algo cancel: %w: nothing fires while none runs; %s to cancel", err, o.howToStart())
	}
	if err != nil {
		return fmt.Errorf("algo cancel: %w", err)
	}
	defer c.Close()
	if arg == "all" {
		if err := c.CancelAll(algo.Scope{Symbol: strings.ToUpper(o.symbol), Why: "tradedeck algo cancel all"}); err != nil {
			return fmt.Errorf("algo cancel: %w", err)
		}
		fmt.Fprintln(w, "every algo cancelled"+map[bool]string{true: " of " + strings.ToUpper(o.symbol), false: ""}[o.symbol != ""])
		return nil
	}
	id, err := parseAlgoID(arg)
	if err != nil {
		return err
	}
	if err := c.Cancel(id, ""); err != nil {
		return fmt.Errorf("algo cancel: %w", err)
	}
	fmt.Fprintf(w, "algo %d cancelled\n", id)
	return nil
}

func parseAlgoID(s string) (algo.ID, error) {
	id, err := strconv.ParseInt(strings.TrimPrefix(s, "#"), 10, 64)
	if err != nil || id <= 0 {
		return 0, fmt.Errorf("algo: %q is not an algo ID (see tradedeck algo list)", s)
	}
	return algo.ID(id), nil
}

func algoAmend(ctx context.Context, w io.Writer, o algoOptions, args []string) error {
	id, err := parseAlgoID(args[0])
	if err != nil {
		return err
	}
	leg := map[string]algo.Leg{"stop": algo.LegStop, "sl": algo.LegStop, "tp": algo.LegTP}[strings.ToLower(args[1])]
	if leg == 0 {
		return fmt.Errorf("algo amend: leg %q: stop or tp", args[1])
	}
	price, err := decimal.NewFromString(args[2])
	if err != nil || !price.IsPositive() {
		return fmt.Errorf("algo amend: price %q is not a positive number", args[2])
	}
	c, _, err := o.engine(ctx)
	if errors.Is(err, control.ErrNotRunning) {
		return fmt.Errorf("algo amend: %w; %s", err, o.howToStart())
	}
	if err != nil {
		return fmt.Errorf("algo amend: %w", err)
	}
	defer c.Close()
	if err := c.AmendTrigger(id, leg, price); err != nil {
		return fmt.Errorf("algo amend: %w", err)
	}
	fmt.Fprintf(w, "algo %d: %s moved to %s\n", id, leg, price)
	return nil
}

// algoPauseResume pauses or resumes a working order in the running engine.
func algoPauseResume(ctx context.Context, w io.Writer, o algoOptions, verb, arg string) error {
	id, err := parseAlgoID(arg)
	if err != nil {
		return err
	}
	c, _, err := o.engine(ctx)
	if errors.Is(err, control.ErrNotRunning) {
		return fmt.Errorf("algo %s: %w; %s", verb, err, o.howToStart())
	}
	if err != nil {
		return fmt.Errorf("algo %s: %w", verb, err)
	}
	defer c.Close()
	if verb == "pause" {
		err = c.Pause(id, "paused by tradedeck algo pause")
	} else {
		err = c.Resume(id)
	}
	if err != nil {
		return fmt.Errorf("algo %s: %w", verb, err)
	}
	fmt.Fprintf(w, "algo %d %sd\n", id, verb)
	return nil
}

func algoResolve(ctx context.Context, w io.Writer, o algoOptions, args []string) error {
	id, err := parseAlgoID(args[0])
	if err != nil {
		return err
	}
	d := map[string]algo.Decision{"resume": algo.DecisionResume, "cancel": algo.DecisionCancel}[strings.ToLower(args[1])]
	if d == 0 {
		return fmt.Errorf("algo resolve: %q: resume or cancel", args[1])
	}
	c, _, err := o.engine(ctx)
	if errors.Is(err, control.ErrNotRunning) {
		return fmt.Errorf("algo resolve: %w; %s", err, o.howToStart())
	}
	if err != nil {
		return fmt.Errorf("algo resolve: %w", err)
	}
	defer c.Close()
	if err := c.Resolve(id, d); err != nil {
		return fmt.Errorf("algo resolve: %w", err)
	}
	fmt.Fprintf(w, "algo %d: %s\n", id, args[1])
	return nil
}

func algoList(ctx context.Context, w, errw io.Writer, o algoOptions) error {
	c, acct, err := o.engine(ctx)
	if errors.Is(err, control.ErrNotRunning) {
		fmt.Fprintln(errw, "tradedeck algo:", err.Error()+"; "+o.howToStart())
		return listFromDB(w, acct, o.json)
	}
	if err != nil {
		return fmt.Errorf("algo list: %w", err)
	}
	defer c.Close()
	list, err := c.SnapshotErr()
	if err != nil {
		return fmt.Errorf("algo list: %w", err)
	}
	if o.json {
		enc := json.NewEncoder(w)
		for _, a := range list {
			if err := enc.Encode(algoJSONOf(a, "running")); err != nil {
				return err
			}
		}
		return nil
	}
	fmt.Fprintf(w, "engine in %s on %s\n", c.Info().Holder, acct.Label)
	return algoTable(w, list)
}

func algoTable(w io.Writer, list []algo.Algo) error {
	if len(list) == 0 {
		_, err := fmt.Fprintln(w, "no algos (add one: tradedeck algo add stop SYMBOL PRICE)")
		return err
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tKIND\tSYMBOL\tSIDE\tTRIGGERS\tSTATE\tFILLED\tCHILDREN\tWHY")
	for _, a := range list {
		var trig []string
		for _, t := range a.Triggers {
			s := fmt.Sprintf("%s %s %s", t.Leg, t.Price, t.Source)
			if t.Market.IsPositive() {
				s += fmt.Sprintf(" (%s%%)", t.DistancePct)
			}
			trig = append(trig, s)
		}
		why := a.Reason
		if a.Fired != nil {
			why = a.Fired.Why
		}
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%s\t%s\t%d\t%s\n", a.ID, a.Spec.Label(), a.Spec.Symbol, strings.ToLower(string(a.Side)),
			strings.Join(trig, ", "), a.State, a.Filled, len(a.Children), why)
	}
	return tw.Flush()
}

// listFromDB lists the account's algos from its database when no engine
// runs (read only: the file is not created when missing).
func listFromDB(w io.Writer, acct app.AlgoAccount, asJSON bool) error {
	if _, err := os.Stat(acct.DB); errors.Is(err, os.ErrNotExist) {
		if !asJSON {
			fmt.Fprintln(w, "no algos (no database yet:", acct.DB+")")
		}
		return nil
	}
	st, err := store.Open(acct.DB)
	if err != nil {
		return err
	}
	defer st.Close()
	rows, err := st.Algos(acct.Account, false)
	if err != nil {
		return err
	}
	if asJSON {
		enc := json.NewEncoder(w)
		for _, r := range rows {
			children, err := st.Children(r.ID)
			if err != nil {
				return err
			}
			if err := enc.Encode(algoJSONOfRow(r, children)); err != nil {
				return err
			}
		}
		return nil
	}
	if len(rows) == 0 {
		_, err := fmt.Fprintln(w, "no algos")
		return err
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tALGO\tSIDE\tSTATE\tFILLED\tWHY")
	for _, r := range rows {
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%s\n", r.ID, r.Line, strings.ToLower(r.Side), r.State, r.Filled, r.Reason)
	}
	return tw.Flush()
}
