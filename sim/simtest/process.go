package simtest

import (
	"bufio"
	"encoding/json"
	"os/exec"
	"testing"
	"tradedeck/internal/testkit"
)

// StartProcess starts `bin sim --json args...` as a process of its own,
// killed when the test ends, and returns it with its JSON banner (the
// venue's addresses and the demo keys).
func StartProcess(t testing.TB, bin string, args ...string) (*exec.Cmd, map[string]string) {
	t.Helper()
	cmd := exec.Command(bin, append([]string{"sim", "--json"}, args...)...)
	line, err := bufio.NewReader(testkit.StartReading(t, cmd)).ReadString('\n')
	if err != nil {
		t.Fatalf("sim banner: %v", err)
	}
	var banner map[string]string
	if err := json.Unmarshal([]byte(line), &banner); err != nil {
		t.Fatalf("sim banner %q: %v", line, err)
	}
	return cmd, banner
}
