// Package deps holds the test of the module's dependency rules (README
// "Layout"): which of tradedeck's packages each package may import.
package deps

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// rules: a package (exactly, or "x/..." for x and everything under it; the
// longest match decides) may import only the tradedeck packages listed
// (same notation). Test files are not checked: tests may start the
// simulator, but always talk to it over sockets. A package no rule names
// fails the test, so a new package gets its place on purpose.
var rules = []struct {
	pkg string
	may []string
}{
	// the foundation: nothing of ours
	{"fixed", nil}, {"xdg", nil}, {"theme", nil}, {"loopback", nil}, {"record", nil},
	{"internal/testkit", nil}, {"internal/forks", nil}, {"internal/app/proc", nil}, {"internal/deps", nil},
	// the venue's API, then the live data on it
	{"venue/...", []string{"fixed", "venue/..."}},
	{"feed/...", []string{"feed/...", "venue/...", "fixed"}},
	// the desk and the data around it: no screen, no simulator, no process wiring
	{"trade", []string{"venue"}},
	{"moves", []string{"trade", "venue"}},
	{"desk", []string{"feed", "trade", "venue"}},
	{"alerts", []string{"feed", "fixed", "xdg"}},
	{"stats", []string{"fixed"}},
	{"export", []string{"feed", "venue"}},
	// the protective-orders engine, its database, and the socket its views use
	{"algo", []string{"algo/store", "desk", "feed", "fixed", "trade", "venue"}},
	{"algo/store", nil},
	{"algo/control", []string{"algo"}},
	{"algo/report", []string{"algo", "trade"}},
	{"config", []string{"venue", "xdg"}},
	{"record/...", []string{"record", "feed/ws", "venue/...", "fixed"}},
	{"replay", []string{"feed", "record", "venue/..."}},
	// the engine rehearsed on a recording, on the simulator's exchange (paper)
	{"replay/rehearse", []string{"algo", "algo/...", "feed", "fixed", "record", "sim/exchange", "sim/mirror", "sim/rest", "trade", "venue/..."}},
	// the screen: panes below ui; neither opens a venue nor knows the config
	{"panes/...", []string{"algo", "panes/...", "feed", "fixed", "venue", "theme", "trade", "alerts", "stats", "internal/testkit"}},
	{"ui", []string{"algo", "panes/...", "feed", "desk", "moves", "trade", "alerts", "export", "theme", "venue", "fixed"}},
	// the simulated venue speaks the venue's API and nothing else of ours
	{"sim/...", []string{"sim/...", "venue", "fixed", "loopback"}},
	{"serve", []string{"loopback", "xdg"}},
	{"serve/loadgen", []string{"venue"}},
	{"serve/servetest", []string{"internal/testkit"}},
	// the composition root (the only importer of ui) and the commands on it
	{"internal/app", []string{"internal/app/proc", "algo/...", "xdg", "alerts", "config", "desk", "feed/...", "panes/common", "panes/stats",
		"replay", "replay/rehearse", "serve", "sim", "stats", "theme", "ui", "venue"}},
	{"internal/cli", []string{"internal/app/...", "algo/...", "alerts", "config", "export", "feed", "fixed", "panes/common",
		"record/capture", "replay", "serve", "sim/...", "stats", "venue"}},
	{"", []string{"internal/cli", "panes/common"}}, // main: the command list, and keymap.go
	{"e2e/...", []string{"config", "venue"}},
	{"tools/...", []string{"serve/loadgen", "sim", "sim/market", "sim/exchange", "e2e/bintest", "config", "venue"}},
}

const module = "tradedeck"

type pkg struct {
	ImportPath string
	Imports    []string
	Dir        string
	GoFiles    []string
}

// packages are the module's packages and their imports (go list).
func packages(t *testing.T) []pkg {
	out, err := exec.Command("go", "list", "-json=ImportPath,Imports,Dir,GoFiles", module+"/...").Output()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			t.Fatalf("go list: %v\n%s", err, ee.Stderr)
		}
		t.Fatal(err)
	}
	var pkgs []pkg
	dec := json.NewDecoder(strings.NewReader(string(out)))
	for {
		var p pkg
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		// Read by the test, so that go test's cache of its result
		// ends when one of them changes (go list's reads are not seen).
		for _, f := range p.GoFiles {
			if _, err := os.ReadFile(filepath.Join(p.Dir, f)); err != nil {
				t.Fatal(err)
			}
		}
		pkgs = append(pkgs, p)
	}
	return pkgs
}

// rel is path inside the module ("" for the root), and whether it is ours.
func rel(path string) (string, bool) {
	if path == module {
		return "", true
	}
	r, ok := strings.CutPrefix(path, module+"/")
	return r, ok
}

// matches reports whether p is named by pattern, and how specifically.
func matches(pattern, p string) (int, bool) {
	if base, ok := strings.CutSuffix(pattern, "/..."); ok {
		return len(base), p == base || strings.HasPrefix(p, base+"/")
	}
	return len(pattern) + 1, p == pattern // an exact name beats x/... of the same x
}

// allowed is the rule for p (its pattern and list), if one names it.
func allowed(p string) (pattern string, may []string, found bool) {
	best := -1
	for _, r := range rules {
		if n, ok := matches(r.pkg, p); ok && n > best {
			best, pattern, may, found = n, r.pkg, r.may, true
		}
	}
	return pattern, may, found
}

// check is every import against the rules: one message per broken rule.
func check(pkgs []pkg) []string {
	var bad []string
	for _, p := range pkgs {
		from, _ := rel(p.ImportPath)
		if strings.HasPrefix(from, "third_party/") {
			continue
		}
		pattern, may, ok := allowed(from)
		if !ok {
			bad = append(bad, fmt.Sprintf("%s: no dependency rule names this package (internal/deps/deps_test.go)", p.ImportPath))
			continue
		}
		for _, imp := range p.Imports {
			to, ours := rel(imp)
			if !ours || to == from {
				continue
			}
			if !slices.ContainsFunc(may, func(m string) bool { _, ok := matches(m, to); return ok }) {
				bad = append(bad, fmt.Sprintf("%s imports %s: against the rule that %s may import only %v (README \"Layout\")", p.ImportPath, imp, ruleName(pattern), may))
			}
		}
	}
	return bad
}

func ruleName(p string) string {
	if p == "" {
		return module
	}
	return p
}

func TestDependencyRules(t *testing.T) {
	pkgs := packages(t)
	if len(pkgs) < 40 {
		t.Fatalf("go list found %d packages: not the module", len(pkgs))
	}
	for _, msg := range check(pkgs) {
		t.Error(msg)
	}
}

// The check itself: an import against a rule, and a package no rule
// names, are each reported by name.
func TestCheckReportsBrokenRules(t *testing.T) {
	got := check([]pkg{
		{ImportPath: "tradedeck/config", Imports: []string{"fmt", "tradedeck/venue", "tradedeck/panes/common"}},
		{ImportPath: "tradedeck/sim/rest", Imports: []string{"tradedeck/sim/exchange", "tradedeck/feed"}},
		{ImportPath: "tradedeck/newthing", Imports: nil},
		{ImportPath: "tradedeck/ui", Imports: []string{"tradedeck/panes/book", "tradedeck/desk"}},
	})
	want := []string{
		`tradedeck/config imports tradedeck/panes/common: against the rule that config may`,
		`tradedeck/sim/rest imports tradedeck/feed: against the rule that sim/... may`,
		`tradedeck/newthing: no dependency rule names this package`,
	}
	if len(got) != len(want) {
		t.Fatalf("got %d messages, want %d:\n%s", len(got), len(want), strings.Join(got, "\n"))
	}
	for i, w := range want {
		if !strings.HasPrefix(got[i], w) {
			t.Errorf("message %d: %q, want it to start %q", i, got[i], w)
		}
	}
}
