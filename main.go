// Command tradedeck is a terminal trading desk: a live dashboard of a crypto
// venue with order entry, and a simulated venue that speaks the same API.
//
//	tradedeck                 dashboard on the embedded simulated venue
//	tradedeck sim             the simulated venue alone, on loopback
//	tradedeck serve           the dashboard over SSH (read-only viewers unless --trade)
//	tradedeck watch SYMBOL    headless feed: book top, trades, health lines
//	tradedeck stats           swap statistics printed once
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"sort"
	"strings"
	"syscall"
)

// subcommand is one `tradedeck NAME ...` entry point. Each lives in its own
// cmd_NAME.go file and registers itself, so commands stay independent.
type subcommand struct {
	summary string
	run     func(args []string) error
}

var subcommands = map[string]subcommand{}

func register(name, summary string, run func(args []string) error) {
	subcommands[name] = subcommand{summary: summary, run: run}
}

// dashboardName is the command run when the first argument is a flag or
// absent: the dashboard itself.
const dashboardName = "dashboard"

func main() {
	args := os.Args[1:]
	name := dashboardName
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		name, args = args[0], args[1:]
	}
	if name == "help" {
		usage()
		return
	}
	if name == dashboardName && len(args) > 0 && isHelp(args[0]) {
		usage() // the commands first; the dashboard's flags follow
		fmt.Fprintln(os.Stderr, "\nflags of the dashboard (tradedeck [flags]):")
	}
	cmd, ok := subcommands[name]
	if !ok {
		fmt.Fprintf(os.Stderr, "tradedeck: unknown command %q\n\n", name)
		usage()
		os.Exit(2)
	}
	if err := cmd.run(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return
		}
		fmt.Fprintln(os.Stderr, "tradedeck:", err)
		os.Exit(1)
	}
}

func isHelp(arg string) bool { return arg == "-h" || arg == "-help" || arg == "--help" }

func usage() {
	fmt.Fprintln(os.Stderr, "usage: tradedeck [command] [flags]\n\ncommands:")
	names := make([]string, 0, len(subcommands))
	for n := range subcommands {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(os.Stderr, "  %-10s %s\n", n, subcommands[n].summary)
	}
	fmt.Fprintln(os.Stderr, "\nRun `tradedeck COMMAND -h` for the flags of one command.")
}

// interruptContext is the context a subcommand runs in: ctrl-c or SIGTERM
// ends it, so the command closes what it opened and keeps what it holds.
func interruptContext() (context.Context, context.CancelFunc) {
	return signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
}
