package cli

import (
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"tradedeck/internal/app"
	"tradedeck/replay"
)

// Replay is `tradedeck replay FILE`: the dashboard from a recording.
func Replay(env Env) *cobra.Command {
	var (
		rf          app.ReplayOptions
		df          = app.Options{Keys: env.Keys}
		speed, from string
	)
	cmd := &cobra.Command{
		Use:   "replay FILE",
		Short: "replay a recording in the dashboard (--check: read it through the feed and report; --rehearse: run algos on it on paper)",
		Example: `  tradedeck replay rec.tdrec --speed 4 --from +90s
  tradedeck replay rec.tdrec --check
  tradedeck replay rec.tdrec --paper --speed 2
  tradedeck replay rec.tdrec --position PERP_BTC_USDT=0.05 --rehearse "stop PERP_BTC_USDT 95000"
  tradedeck replay rec.tdrec --rehearse "bracket PERP_BTC_USDT buy 0.01 at market tp 98000 sl 96000" --json
  tradedeck replay rec.tdrec --rehearse "twap PERP_BTC_USDT buy 0.06 over 1m slices 6" --rehearse "chase PERP_BTC_USDT buy 0.2 offset 300"`,
		Args: exactlyOne("FILE"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := replayOptions(&rf, args[0], speed, from); err != nil {
				return err
			}
			if (len(rf.Positions) > 0 || rf.JSON) && len(rf.Rehearse) == 0 && !rf.Paper {
				return fmt.Errorf("replay: --position goes with --rehearse, --json with --rehearse or --paper")
			}
			if len(rf.Positions) > 0 && len(rf.Rehearse) == 0 {
				return fmt.Errorf("replay: --position opens a paper position for --rehearse, which is missing")
			}
			return app.RunReplay(cmd.Context(), rf, df)
		},
	}
	fs := cmd.Flags()
	fs.StringVar(&speed, "speed", "1", "playback speed: a factor (0.5, 1, 10) or max")
	fs.StringVar(&from, "from", "", "start at this recorded time (RFC 3339, 15:04:05 on the recording's first day, or an offset such as +90s)")
	fs.BoolVar(&rf.Check, "check", false, "read the whole file through the feed at max speed and print what it found")
	fs.StringArrayVar(&rf.Rehearse, "rehearse", nil, "run this algo (the :stop/:tp/:oco/:trail/:bracket/:chase/:scale/:twap grammar) on the recording on paper, no screen, its timers on recorded time, and print the dry-run report (repeat for more; --from: when they are added)")
	fs.StringArrayVar(&rf.Positions, "position", nil, "with --rehearse: open this paper position first, SYMBOL=QTY (negative: short), at the recorded book")
	fs.BoolVar(&rf.JSON, "json", false, "the dry-run report as JSON (--rehearse, or --paper when the dashboard closes)")
	fs.BoolVar(&rf.Paper, "paper", false, "trade on a paper account against the recorded market: orders and algos (:stop, :bracket, the Algos tab); the dry-run report when the recording ends and on quit")
	fs.StringVar(&df.Config, "config", "", "config file (theme, keys, layout)")
	fs.StringVar(&df.Symbol, "symbol", "", "symbol focused at start (default the recording's first)")
	fs.StringVar(&df.Theme, "theme", "", "colour theme")
	fs.IntVar(&df.FPS, "fps", 0, "frames per second cap")
	fs.BoolVar(&df.ASCII, "ascii", false, "draw with ASCII only")
	return cmd
}

// replayOptions reads the recording's path, --speed and --from (which
// needs the recording's first time) into rf.
func replayOptions(rf *app.ReplayOptions, path, speed, from string) error {
	rf.Path = path
	s, err := app.ParseSpeed(speed)
	if err != nil {
		return err
	}
	rf.Speed = s
	if from != "" {
		sum, err := replay.Summarize(rf.Path)
		if err != nil {
			return err
		}
		if rf.From, err = parseReplayTime(from, time.Unix(0, sum.First).UTC()); err != nil {
			return err
		}
	}
	return nil
}

// parseReplayTime reads --from: an RFC 3339 time, a clock time on the
// recording's first day, or +DURATION from its start.
func parseReplayTime(s string, first time.Time) (time.Time, error) {
	if d, ok := strings.CutPrefix(s, "+"); ok {
		dur, err := time.ParseDuration(d)
		if err != nil {
			return time.Time{}, fmt.Errorf("replay: --from %q: %w", s, err)
		}
		return first.Add(dur), nil
	}
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return t, nil
	}
	for _, layout := range []string{"15:04:05.000", "15:04:05", "15:04"} {
		if t, err := time.Parse(layout, s); err == nil {
			y, m, d := first.Date()
			return time.Date(y, m, d, t.Hour(), t.Minute(), t.Second(), t.Nanosecond(), time.UTC), nil
		}
	}
	return time.Time{}, fmt.Errorf("replay: --from %q: want RFC 3339, HH:MM:SS (UTC) or +DURATION", s)
}
