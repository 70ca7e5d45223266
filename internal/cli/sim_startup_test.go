package cli

import (
	"bufio"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestSimStartupChecksBinary: the real binary refuses, at start and with
// the way out in the message, to listen beyond loopback with the public
// demo keys and to keep state in a missing directory (issues 12 and 20).
func TestSimStartupChecksBinary(t *testing.T) {
	bin := tradedeckBinary(t)
	missing := filepath.Join(t.TempDir(), "no", "such", "state.json")
	for _, c := range []struct {
		args []string
		want []string
	}{
		{[]string{"sim", "--listen", "0.0.0.0:0"}, []string{"demo credentials are public", "--print-universe", "--universe"}},
		{[]string{"sim", "--state", missing}, []string{filepath.Dir(missing), "no such file or directory"}},
	} {
		cmd := exec.Command(bin, c.args...)
		done := make(chan struct{})
		var out []byte
		var err error
		go func() { out, err = cmd.CombinedOutput(); close(done) }()
		select {
		case <-done:
		case <-time.After(30 * time.Second):
			cmd.Process.Kill()
			t.Fatalf("%v started instead of refusing", c.args)
		}
		if err == nil {
			t.Fatalf("%v exited 0: %s", c.args, out)
		}
		for _, w := range c.want {
			if !strings.Contains(string(out), w) {
				t.Fatalf("%v: %q does not say %q", c.args, out, w)
			}
		}
	}
}

// TestSimBannerBinary: the text banner names the Websocket URLs as the
// config's [live] section takes them, without stream paths.
func TestSimBannerBinary(t *testing.T) {
	cmd := exec.Command(tradedeckBinary(t), "sim", "--rate", "off")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	r := bufio.NewReader(out)
	var banner strings.Builder
	for !strings.Contains(banner.String(), "Ctrl-C") {
		line, err := r.ReadString('\n')
		if err != nil {
			t.Fatalf("banner ended early: %q (%v)", banner.String(), err)
		}
		banner.WriteString(line)
	}
	b := banner.String()
	for _, label := range []string{"ws market url", "ws private url"} {
		i := strings.Index(b, label)
		if i < 0 {
			t.Fatalf("no %q in %q", label, b)
		}
		url := strings.Fields(b[i+len(label):])[0]
		if !strings.HasPrefix(url, "ws://127.0.0.1:") || strings.Count(url, "/") != 2 {
			t.Fatalf("%s is %q, want ws://host:port as [live] takes it", label, url)
		}
	}
}
