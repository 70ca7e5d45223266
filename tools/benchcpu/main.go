// Command benchcpu is `make bench-cpu`: the CPU, frames, bytes and RSS
// of the real binary against a simulated venue running as a process of
// its own (`tradedeck sim`), for issue 28's workloads:
//
//	go run ./tools/benchcpu -bin bin/tradedeck -rounds 3
//
// The dashboard runs in a pseudo-terminal of the workload's size that
// answers Bubble Tea's synchronized-output query as a modern terminal
// does, so each frame arrives wrapped in mode 2026 and is counted by its
// opening sequence. CPU is the process's own (utime+stime from
// /proc/PID/stat), not wall time, so other load on the machine distorts
// it little. `watch` runs on a pipe; its CPU per market message uses the
// msg/s it prints itself. Loopback only; every wait is bounded.
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

func main() {
	bin := flag.String("bin", "bin/tradedeck", "tradedeck binary to measure")
	rounds := flag.Int("rounds", 3, "rounds of every workload (the table shows medians)")
	warmup := flag.Duration("warmup", 6*time.Second, "after start, before measuring (history loads, books fill)")
	window := flag.Duration("window", 20*time.Second, "measuring window")
	only := flag.String("only", "", "comma-separated workload names to run (default: all)")
	env := flag.String("env", "", "extra environment for the measured process, comma-separated NAME=value")
	stderrFile := flag.String("stderr", "", "the dashboard's stderr to this file (e.g. with -env GODEBUG=gctrace=1)")
	flag.Parse()
	dir, err := os.MkdirTemp("", "benchcpu")
	if err != nil {
		fatal(err)
	}
	defer os.RemoveAll(dir)
	unis, err := writeUniverses(dir)
	if err != nil {
		fatal(err)
	}
	var extra []string
	if *env != "" {
		extra = strings.Split(*env, ",")
	}
	var rows []row
	for _, w := range workloads(unis) {
		if *only != "" && !slices.Contains(strings.Split(*only, ","), w.name) {
			continue
		}
		var rs []result
		for i := range *rounds {
			fmt.Fprintf(os.Stderr, "benchcpu: %s, round %d...\n", w.name, i+1)
			r, err := run(*bin, filepath.Join(dir, fmt.Sprintf("%s-%d", w.name, i)), w, *warmup, *window, extra, *stderrFile)
			if err != nil {
				fatal(fmt.Errorf("%s: %w", w.name, err))
			}
			fmt.Fprintf(os.Stderr, "benchcpu:   %s\n", r)
			rs = append(rs, r)
		}
		rows = append(rows, row{w: w, r: median(rs)})
	}
	fmt.Print(table(rows, *rounds, *window))
}

func fatal(err error) {
	fmt.Fprintln(os.Stderr, "benchcpu:", err)
	os.Exit(1)
}
