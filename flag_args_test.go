package main

import (
	"flag"
	"io"
	"reflect"
	"testing"
	"time"
)

func TestMoveFlagsFirst(t *testing.T) {
	fs := flag.NewFlagSet("replay", flag.ContinueOnError)
	fs.String("speed", "1", "")
	fs.String("from", "", "")
	fs.Bool("check", false, "")
	got := moveFlagsFirst(fs, []string{"rec.tdrec", "--speed", "4", "--check", "--from=+1m"})
	want := []string{"--speed", "4", "--check", "--from=+1m", "rec.tdrec"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("%v, want %v", got, want)
	}
}

// The boolean flags come from the flag set: one before the argument does
// not take it as its value, whichever command's flags they are.
func TestParseOneArg(t *testing.T) {
	for _, c := range []struct {
		args    []string
		arg     string
		verbose bool
		every   time.Duration
		err     string
	}{
		{args: []string{"SPOT_BTC_USDT"}, arg: "SPOT_BTC_USDT", every: time.Second},
		{args: []string{"SPOT_BTC_USDT", "-v", "--every", "2s"}, arg: "SPOT_BTC_USDT", verbose: true, every: 2 * time.Second},
		{args: []string{"-v", "--live", "SPOT_BTC_USDT"}, arg: "SPOT_BTC_USDT", verbose: true, every: time.Second},
		{args: []string{"--every=3s", "SPOT_BTC_USDT", "--staging"}, arg: "SPOT_BTC_USDT", every: 3 * time.Second},
		{args: []string{"-v"}, err: "watch: exactly one SYMBOL expected"},
		{args: []string{"A", "B"}, err: "watch: exactly one SYMBOL expected"},
		{args: []string{"A", "--nope"}, err: "flag provided but not defined: -nope"},
	} {
		fs, _ := venueFlagSet("watch")
		fs.SetOutput(io.Discard)
		verbose := fs.Bool("v", false, "")
		every := fs.Duration("every", time.Second, "")
		arg, err := parseOneArg(fs, c.args, "SYMBOL")
		if c.err != "" {
			if err == nil || err.Error() != c.err {
				t.Errorf("%q: error %v, want %q", c.args, err, c.err)
			}
			continue
		}
		if err != nil || arg != c.arg || *verbose != c.verbose || *every != c.every {
			t.Errorf("%q: %q -v %v --every %v (%v), want %q %v %v", c.args, arg, *verbose, *every, err, c.arg, c.verbose, c.every)
		}
	}
}
