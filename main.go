// Command tradedeck is a terminal trading desk: a live dashboard of a crypto
// venue with order entry, and a simulated venue that speaks the same API.
// main lists the commands; each is one file of internal/cli, and
// internal/app wires the venue, feed, desk, alerts and screen of the
// process it runs. `tradedeck --help` describes them all.
package main

import (
	"context"
	"os"

	"tradedeck/internal/cli"
)

// commands are tradedeck's subcommands, in the order help lists them; the
// dashboard (cli.Dashboard) runs when none is named.
var commands = []cli.Command{
	cli.Sim,    // the simulated venue alone, on loopback
	cli.Serve,  // the dashboard over SSH
	cli.Watch,  // headless feed, one line a second
	cli.Desk,   // the desk engine (protective and working orders) and the alerts, no screen
	cli.Algo,   // protective and working orders: add, list, cancel (through the engine)
	cli.Alerts, // alerts without a screen; add, list, rm
	cli.Stats,  // swap statistics printed once
	cli.Export, // account data out of the venue
	cli.Record, // stream frames to a file
	cli.Replay, // the dashboard from a recording
}

func main() {
	env := cli.Env{Keys: defaultKeyMap}
	os.Exit(cli.Main(context.Background(), env, os.Args[1:], cli.Dashboard, commands...))
}
