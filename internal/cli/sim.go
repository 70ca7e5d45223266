package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"

	"github.com/spf13/cobra"

	"tradedeck/internal/app/proc"
	"tradedeck/sim"
	"tradedeck/sim/exchange"
	"tradedeck/venue"
)

// simBanner is the one JSON line `tradedeck sim --json` prints first: the
// venue's addresses and its demo key, under the names a config gives them.
type simBanner struct {
	venue.Endpoints
	venue.Credentials
}

// Sim is `tradedeck sim`: the simulated venue alone, on loopback.
func Sim(env Env) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "sim",
		Short: "the simulated venue alone, on loopback; prints its URLs and a demo key",
		Example: `  tradedeck sim --json
  tradedeck sim --rate busy --state sim.json
  tradedeck sim --mirror --symbols SPOT_ETH_USDT`,
		Args: noArgs,
	}
	fs := cmd.Flags()
	listen := fs.String("listen", "127.0.0.1:0", "address to listen on")
	seed := fs.Int64("seed", 1, "seed of the simulated market (same seed, same venue)")
	asJSON := fs.Bool("json", false, "print the endpoints and demo key as one JSON line first")
	strNums := fs.Bool("string-numbers", false, "send REST numbers as JSON strings, as recorded real replies do")
	state := fs.String("state", "", "persist accounts, orders and trades in this file across restarts")
	universe := fs.String("universe", "", "replace the embedded universe (tokens, symbols, demo accounts) with this JSON file")
	verbose := fs.Bool("verbose", false, "log every REST request (method, path, status, code, account, duration) to stderr")
	noLimits := fs.Bool("no-rate-limits", false, "turn the venue's REST rate limits off (load-testing a bot)")
	strict := fs.Bool("strict-params", false, "refuse unknown parameters on reads too (-1004), for testing clients; by default reads ignore them as the real venue does")
	printUniverse := fs.Bool("print-universe", false, "print the embedded universe (tokens, symbols, demo accounts) as JSON, to edit for --universe, and exit")
	noHistory := fs.Bool("no-history", false, "start without the synthetic past (candles, 24h statistics, trade tape): history begins at the first live trade")
	living := livingFlags(fs)
	mirrorOpts := mirrorFlags(fs)
	cmd.RunE = func(cmd *cobra.Command, _ []string) error {
		if *printUniverse {
			_, err := env.Stdout.Write(exchange.DefaultUniverseJSON())
			return err
		}
		return runSim(cmd.Context(), env, simFlags{listen: *listen, seed: *seed, asJSON: *asJSON, strNums: *strNums, state: *state,
			universe: *universe, verbose: *verbose, noLimits: *noLimits, strict: *strict, noHistory: *noHistory}, living, mirrorOpts)
	}
	return cmd
}

// simFlags are `tradedeck sim`'s own flags.
type simFlags struct {
	listen, state, universe                               string
	seed                                                  int64
	asJSON, strNums, verbose, noLimits, strict, noHistory bool
}

func runSim(ctx context.Context, env Env, f simFlags, living func() (sim.LivingOptions, error), mirrorOpts func() (*sim.MirrorOptions, error)) error {
	lo, err := living()
	if err != nil {
		return err
	}
	mo, err := mirrorOpts()
	if err != nil {
		return err
	}
	ctx, stop := proc.Interruptible(ctx)
	defer stop()
	level := slog.LevelInfo
	if f.verbose {
		level = slog.LevelDebug
	}
	logger := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level}))
	inst, err := sim.Start(ctx, sim.Options{
		Listen: f.listen, Seed: f.seed, StringNumbers: f.strNums, StatePath: f.state, Universe: f.universe, Logger: logger,
		NoRateLimits: f.noLimits, StrictParams: f.strict, NoHistory: f.noHistory, Living: lo, Mirror: mo,
	})
	if err != nil {
		return err
	}
	printSimBanner(env.Stdout, inst, f.asJSON)
	<-ctx.Done()
	fmt.Fprintln(os.Stderr, "tradedeck sim: shutting down")
	return inst.Close()
}

// printSimBanner shows where the venue listens and its demo key. This is
// the one place a secret is printed: it is the simulator's own demo key.
func printSimBanner(w io.Writer, inst *sim.Instance, asJSON bool) {
	e, c := inst.Endpoints, inst.Credentials
	if asJSON {
		b, _ := json.Marshal(simBanner{e, c})
		fmt.Fprintln(w, string(b))
		return
	}
	if inst.Mirror != nil {
		fmt.Fprintf(w, "tradedeck sim: paper venue (PAPER) listening, mirroring %s\n", inst.Mirror.Upstream())
	} else {
		fmt.Fprintf(w, "tradedeck sim: simulated venue (SIM) listening\n")
	}
	fmt.Fprintf(w, "  base url            %s\n", e.BaseURL)
	fmt.Fprintf(w, "  public history url  %s\n", e.PublicHistoryURL)
	// the bases, as [live] ws_market_url and ws_private_url take them: the
	// client appends the stream path and application id itself
	fmt.Fprintf(w, "  ws market url       %s\n", e.WSMarketURL)
	fmt.Fprintf(w, "  ws private url      %s\n", e.WSPrivateURL)
	fmt.Fprintf(w, "  stats url           %s\n", e.StatsURL)
	fmt.Fprintf(w, "  demo api key        %s\n", c.APIKey)
	fmt.Fprintf(w, "  demo api secret     %s\n", c.APISecret)
	fmt.Fprintf(w, "  demo application id %s\n", c.ApplicationID)
	if s := inst.SubCredentials; s.APIKey != "" {
		fmt.Fprintf(w, "  subaccount key      %s  secret %s  application id %s\n", s.APIKey, s.APISecret, s.ApplicationID)
	}
	fmt.Fprintf(w, "Ctrl-C stops it.\n")
}
