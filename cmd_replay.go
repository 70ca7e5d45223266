package main

import (
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"tradedeck/replay"
)

func init() {
	register("replay", "replay a recording in the dashboard (--check: read it through the feed and report)", runReplay)
}

// replayFlags are the options of `tradedeck replay`.
type replayFlags struct {
	speed float64
	from  time.Time
	check bool
	path  string
}

func parseReplayFlags(args []string) (replayFlags, dashboardFlags, error) {
	var rf replayFlags
	var df dashboardFlags
	fs := flag.NewFlagSet("replay", flag.ContinueOnError)
	speed := fs.String("speed", "1", "playback speed: a factor (0.5, 1, 10) or max")
	from := fs.String("from", "", "start at this recorded time (RFC 3339, 15:04:05 on the recording's first day, or an offset such as +90s)")
	fs.BoolVar(&rf.check, "check", false, "read the whole file through the feed at max speed and print what it found")
	fs.StringVar(&df.config, "config", "", "config file (theme, keys, layout)")
	fs.StringVar(&df.symbol, "symbol", "", "symbol focused at start (default the recording's first)")
	fs.StringVar(&df.theme, "theme", "", "colour theme")
	fs.IntVar(&df.fps, "fps", 0, "frames per second cap")
	fs.BoolVar(&df.ascii, "ascii", false, "draw with ASCII only")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: tradedeck replay FILE [--speed N|max] [--from TIME] [--check]")
		fs.PrintDefaults()
	}
	path, err := parseOneArg(fs, args, "FILE")
	if err != nil {
		return rf, df, err
	}
	rf.path = path
	s, err := parseSpeed(*speed)
	if err != nil {
		return rf, df, err
	}
	rf.speed = s
	if *from != "" {
		sum, err := replay.Summarize(rf.path)
		if err != nil {
			return rf, df, err
		}
		if rf.from, err = parseReplayTime(*from, time.Unix(0, sum.First).UTC()); err != nil {
			return rf, df, err
		}
	}
	return rf, df, nil
}

func parseSpeed(s string) (float64, error) {
	if strings.EqualFold(s, "max") {
		return replay.Max, nil
	}
	f, err := strconv.ParseFloat(strings.TrimSuffix(strings.ToLower(s), "x"), 64)
	if err != nil || f <= 0 || f > 10000 {
		return 0, fmt.Errorf("replay: --speed %q: want a factor between 0 and 10000, or max", s)
	}
	return f, nil
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

func runReplay(args []string) error {
	rf, df, err := parseReplayFlags(args)
	if err != nil {
		return err
	}
	ctx, stop := interruptContext()
	defer stop()
	if rf.check {
		rep, err := replay.Check(ctx, rf.path)
		if err != nil {
			return err
		}
		rep.Print(os.Stdout)
		return nil
	}
	return runReplayDashboard(ctx, rf, df)
}
