package e2e

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// startSim starts `tradedeck sim --json` with args as a process of its
// own, killed when the test ends, and returns it with its JSON banner (the
// addresses and the demo keys).
func startSim(t *testing.T, bin string, args ...string) (*exec.Cmd, map[string]string) {
	t.Helper()
	cmd := exec.Command(bin, append([]string{"sim", "--json"}, args...)...)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatalf("sim banner: %v", err)
	}
	var banner map[string]string
	if err := json.Unmarshal([]byte(line), &banner); err != nil {
		t.Fatalf("sim banner %q: %v", line, err)
	}
	return cmd, banner
}

// liveConfig writes dir/config.toml: the settings in top, then the sim of
// banner as the [live] venue; it returns the file's path.
func liveConfig(t *testing.T, dir, top string, banner map[string]string) string {
	t.Helper()
	doc := top + fmt.Sprintf("[live]\nbase_url = %q\npublic_history_url = %q\nws_market_url = %q\nws_private_url = %q\nstats_url = %q\n",
		banner["base_url"], banner["public_history_url"], banner["ws_market_url"], banner["ws_private_url"], banner["stats_url"])
	path := filepath.Join(dir, "config.toml")
	if err := os.WriteFile(path, []byte(doc), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// liveKeys is the environment (for env) giving the binary the sim's keys.
func liveKeys(banner map[string]string) string {
	return fmt.Sprintf("TRADEDECK_API_KEY=%s TRADEDECK_API_SECRET=%s TRADEDECK_APPLICATION_ID=%s",
		banner["api_key"], banner["api_secret"], banner["application_id"])
}
