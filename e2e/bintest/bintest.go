// Package bintest runs the real tradedeck binary for the tests that drive
// it: it builds the binary, and starts its simulated venue (`tradedeck sim
// --json`) as a process of its own, reached by the program under test as
// a live venue.
package bintest

import (
	"bufio"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"tradedeck/venue"
)

// Build builds the tradedeck binary of the module at dir (the calling
// test's path to the module root) into a temporary directory of the test,
// static as make build does; with the profiles (-tags profile) when
// TRADEDECK_MEASURE_PROFILES asks a measurement for them. The build
// cache makes a rebuild a link step.
func Build(t testing.TB, dir string) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "tradedeck")
	args := []string{"build", "-o", bin}
	if os.Getenv("TRADEDECK_MEASURE_PROFILES") != "" {
		args = append(args, "-tags", "profile")
	}
	cmd := exec.Command("go", append(args, dir)...)
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// Banner is the JSON line `tradedeck sim --json` prints first: the venue's
// addresses and its demo key, under the names a config gives them.
type Banner struct {
	venue.Endpoints
	venue.Credentials
}

// Sim is `tradedeck sim` running as a child process.
type Sim struct {
	Cmd    *exec.Cmd
	Banner Banner
	Client *venue.Client // REST with the demo key
}

// StartSim starts `bin sim --json args...`, killed when the test ends, and
// reads its banner; without one the test fails with what the process said.
func StartSim(t testing.TB, bin string, args ...string) *Sim {
	t.Helper()
	cmd := exec.Command(bin, append([]string{"sim", "--json"}, args...)...)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		t.Fatalf("no banner: %v\n%s", err, stderr.String())
	}
	s := &Sim{Cmd: cmd}
	if err := json.Unmarshal([]byte(line), &s.Banner); err != nil {
		t.Fatalf("banner %q: %v", line, err)
	}
	s.Client = venue.NewClient(s.Banner.Endpoints, s.Banner.Credentials)
	return s
}

// Kill9 ends the process as a crash would: no shutdown, no final save.
func (s *Sim) Kill9(t testing.TB) {
	t.Helper()
	if err := s.Cmd.Process.Kill(); err != nil { // SIGKILL
		t.Fatal(err)
	}
	_ = s.Cmd.Wait()
}
