// Command mutcheck completes a gremlins run (make mutate). Gremlins only
// tests mutants on lines its coverage profile marks as run, and Go's
// profile leaves out the conditions of switch cases, so many mutants in
// tested code are reported NOT COVERED. mutcheck applies each of them
// through a go build overlay (the source tree is never written), runs the
// package's tests, and prints the package's kill rate counting every
// mutant: killed / (all - not viable), where a mutant that still survives
// or times out counts as surviving.
//
//	go run ./tools/mutcheck -report .mutate/trade.json -dir trade
//
// A report ending in .log is gremlins' printed output instead, for a run
// stopped before it wrote its JSON (the mutants it did not reach are left
// out of the rate).
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"go/scanner"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"
)

// report is the part of gremlins' -o JSON that mutcheck reads.
type report struct {
	Files []fileReport `json:"files"`
}

type fileReport struct {
	Name      string     `json:"file_name"`
	Mutations []mutation `json:"mutations"`
}

type mutation struct {
	Type   string `json:"type"`
	Status string `json:"status"`
	Line   int    `json:"line"`
	Column int    `json:"column"`
}

// mutations are gremlins' default mutators (internal/engine/mappings.go).
var mutations = map[string]map[token.Token]token.Token{
	"ARITHMETIC_BASE":       {token.ADD: token.SUB, token.MUL: token.QUO, token.QUO: token.MUL, token.REM: token.MUL, token.SUB: token.ADD},
	"CONDITIONALS_BOUNDARY": {token.GEQ: token.GTR, token.GTR: token.GEQ, token.LEQ: token.LSS, token.LSS: token.LEQ},
	"CONDITIONALS_NEGATION": {token.EQL: token.NEQ, token.NEQ: token.EQL, token.GEQ: token.LSS, token.GTR: token.LEQ, token.LEQ: token.GTR, token.LSS: token.GEQ},
	"INCREMENT_DECREMENT":   {token.INC: token.DEC, token.DEC: token.INC},
	"INVERT_NEGATIVES":      {token.SUB: token.ADD},
}

func main() {
	rep := flag.String("report", "", "gremlins JSON report (unleash -o)")
	dir := flag.String("dir", "", "the directory gremlins ran on, relative to the module root")
	timeout := flag.Duration("timeout", 3*time.Minute, "per mutant test run")
	recheck := flag.Bool("recheck", false, "test gremlins' LIVED and TIMED OUT mutants again (after adding tests)")
	flag.Parse()
	if err := run(*rep, *dir, *timeout, *recheck); err != nil {
		fmt.Fprintln(os.Stderr, "mutcheck:", err)
		os.Exit(1)
	}
}

func run(repPath, dir string, timeout time.Duration, recheck bool) error {
	b, err := os.ReadFile(repPath)
	if err != nil {
		return err
	}
	var r report
	if strings.HasSuffix(repPath, ".log") {
		r = parseLog(b) // an interrupted run: what it printed so far
	} else if err := json.Unmarshal(b, &r); err != nil {
		return fmt.Errorf("%s: %w", repPath, err)
	}
	tmp, err := os.MkdirTemp("", "mutcheck")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	counts := map[string]int{}
	var lived []string
	for _, f := range r.Files {
		path := filepath.Join(dir, f.Name)
		for _, m := range f.Mutations {
			status := m.Status
			if status == "NOT COVERED" || recheck && (status == "LIVED" || status == "TIMED OUT") {
				status, err = check(path, m.Type, m.Line, m.Column, tmp, timeout)
				if err != nil {
					return err
				}
				fmt.Printf("%12s %s at %s:%d:%d (gremlins: %s)\n", status, m.Type, path, m.Line, m.Column, strings.ToLower(m.Status))
			}
			counts[status]++
			if status != "KILLED" && status != "NOT VIABLE" {
				lived = append(lived, fmt.Sprintf("%s %s at %s:%d:%d", status, m.Type, path, m.Line, m.Column))
			}
		}
	}
	sort.Strings(lived)
	for _, l := range lived {
		fmt.Println("  surviving:", l)
	}
	all := counts["KILLED"] + counts["LIVED"] + counts["TIMED OUT"] + counts["NOT COVERED"]
	rate := 100.0
	if all > 0 {
		rate = 100 * float64(counts["KILLED"]) / float64(all)
	}
	fmt.Printf("%s: killed %d of %d mutants (%.1f %%), not viable %d\n", dir, counts["KILLED"], all, rate, counts["NOT VIABLE"])
	return nil
}

// logLine is a mutant line of gremlins' output:
// "      KILLED CONDITIONALS_NEGATION at errors.go:27:14".
var logLine = regexp.MustCompile(`^\s*(KILLED|LIVED|NOT COVERED|TIMED OUT|NOT VIABLE) ([A-Z_]+) at (.+):(\d+):(\d+)\s*$`)

// parseLog reads the mutants from gremlins' output, for a run stopped
// before it wrote its JSON report.
func parseLog(b []byte) report {
	var r report
	files := map[string]int{}
	for _, l := range strings.Split(string(b), "\n") {
		m := logLine.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		i, ok := files[m[3]]
		if !ok {
			i = len(r.Files)
			files[m[3]] = i
			r.Files = append(r.Files, fileReport{Name: m[3]})
		}
		line, _ := strconv.Atoi(m[4])
		col, _ := strconv.Atoi(m[5])
		r.Files[i].Mutations = append(r.Files[i].Mutations, mutation{Type: m[2], Status: m[1], Line: line, Column: col})
	}
	return r
}

// check applies one mutation through an overlay and runs the tests of its
// package: KILLED, LIVED, TIMED OUT or NOT VIABLE (does not compile).
func check(path, typ string, line, col int, tmp string, timeout time.Duration) (string, error) {
	src, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	mutated, err := mutate(src, typ, line, col)
	if err != nil {
		return "", fmt.Errorf("%s:%d:%d: %w", path, line, col, err)
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", err
	}
	mfile := filepath.Join(tmp, "mutant.go")
	if err := os.WriteFile(mfile, mutated, 0o644); err != nil {
		return "", err
	}
	ov, _ := json.Marshal(map[string]map[string]string{"Replace": {abs: mfile}})
	ovFile := filepath.Join(tmp, "overlay.json")
	if err := os.WriteFile(ovFile, ov, 0o644); err != nil {
		return "", err
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout+30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "go", "test", "-overlay", ovFile, "-count=1", "-failfast",
		"-timeout", timeout.String(), "./"+filepath.Dir(path))
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	switch {
	case err == nil:
		return "LIVED", nil
	case ctx.Err() != nil || strings.Contains(string(out), "test timed out"):
		return "TIMED OUT", nil
	case strings.Contains(string(out), "[build failed]") || strings.Contains(string(out), "[setup failed]"):
		return "NOT VIABLE", nil
	case errors.As(err, &exit):
		return "KILLED", nil
	}
	return "", err
}

// mutate replaces the operator at line:col (1-based, bytes) by its mutant.
func mutate(src []byte, typ string, line, col int) ([]byte, error) {
	table, ok := mutations[typ]
	if !ok {
		return nil, fmt.Errorf("unknown mutator %s", typ)
	}
	fset := token.NewFileSet()
	file := fset.AddFile("", fset.Base(), len(src))
	var s scanner.Scanner
	s.Init(file, src, nil, 0)
	for {
		pos, tok, _ := s.Scan()
		if tok == token.EOF {
			return nil, errors.New("no operator at that position")
		}
		p := fset.Position(pos)
		if p.Line != line || p.Column != col {
			continue
		}
		to, ok := table[tok]
		if !ok {
			return nil, fmt.Errorf("%s does not apply to %s", typ, tok)
		}
		off := p.Offset
		out := append([]byte{}, src[:off]...)
		out = append(out, to.String()...)
		return append(out, src[off+len(tok.String()):]...), nil
	}
}
