package alerts

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The hook tests run this test binary as the hook program: TestMain turns
// it into one when TRADEDECK_TEST_HOOK says what to do.
func TestMain(m *testing.M) {
	switch os.Getenv("TRADEDECK_TEST_HOOK") {
	case "env":
		out := ""
		for _, k := range []string{EnvSymbol, EnvKind, EnvValue, EnvMessage} {
			out += k + "=" + os.Getenv(k) + "\n"
		}
		_ = os.WriteFile(os.Getenv("TRADEDECK_TEST_OUT"), []byte(out), 0o600)
		os.Exit(0)
	case "hang":
		_ = os.WriteFile(os.Getenv("TRADEDECK_TEST_OUT"), []byte(strconv.Itoa(os.Getpid())), 0o600)
		select {}
	case "fail":
		fmt.Fprintln(os.Stderr, "no route to the pager")
		os.Exit(3)
	}
	os.Exit(m.Run())
}

func hookCommand(t *testing.T, mode string) (cmd []string, out string) {
	out = filepath.Join(t.TempDir(), "hook.out")
	t.Setenv("TRADEDECK_TEST_HOOK", mode)
	t.Setenv("TRADEDECK_TEST_OUT", out)
	return []string{os.Args[0], "-test.run=^$"}, out
}

var sample = Fired{Alert: 1, Symbol: "SPOT_BTC_USDT", Kind: KindPrice, Value: "100.50",
	Message: "SPOT_BTC_USDT last 100.50 crossed above 100; $(rm -rf /) `x`"}

// The hook gets the alert in its environment, verbatim: no shell reads it.
func TestHookEnvironment(t *testing.T) {
	cmd, out := hookCommand(t, "env")
	if err := RunHook(context.Background(), cmd, 10*time.Second, sample); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(out)
	want := "TRADEDECK_ALERT_SYMBOL=SPOT_BTC_USDT\nTRADEDECK_ALERT_KIND=price\nTRADEDECK_ALERT_VALUE=100.50\n" +
		"TRADEDECK_ALERT_MESSAGE=" + sample.Message + "\n"
	if string(got) != want {
		t.Fatalf("hook environment:\n%s\nwant:\n%s", got, want)
	}
}

// A hook that hangs is killed at its timeout and the failure reported;
// the deliverer goes on with the next alert.
func TestHangingHookKilledAtTimeout(t *testing.T) {
	cmd, out := hookCommand(t, "hang")
	d := NewDeliverer(Channels{Notice: true, Command: cmd, Timeout: 2 * time.Second})
	ctx := t.Context()
	go d.Run(ctx)
	start := time.Now()
	d.Deliver(sample)
	if n := next(t, d); n.Level != NoteAlert || !n.Show || n.Fired == nil || n.Text != sample.Message {
		t.Fatalf("first note: %+v", n)
	}
	n := next(t, d)
	if n.Level != NoteError || !n.Show || !strings.Contains(n.Text, "timed out after 2s and was killed") {
		t.Fatalf("timeout note: %+v", n)
	}
	if el := time.Since(start); el > 15*time.Second {
		t.Fatalf("the timeout took %s", el)
	}
	pid, err := strconv.Atoi(readFile(t, out))
	if err != nil {
		t.Fatal(err)
	}
	if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
		t.Fatalf("hook process %d still exists after the timeout: %v", pid, err)
	}
}

func TestFailingHookReported(t *testing.T) {
	cmd, _ := hookCommand(t, "fail")
	err := RunHook(context.Background(), cmd, 10*time.Second, sample)
	if err == nil || !strings.Contains(err.Error(), "exit status 3: no route to the pager") {
		t.Fatalf("failing hook: %v", err)
	}
	err = RunHook(context.Background(), []string{"/nonexistent/hook"}, time.Second, sample)
	if err == nil || !strings.Contains(err.Error(), "/nonexistent/hook") {
		t.Fatalf("missing hook: %v", err)
	}
}

// Delivering never blocks, even with nobody reading and a busy hook.
func TestDeliverNeverBlocks(t *testing.T) {
	cmd, _ := hookCommand(t, "hang")
	d := NewDeliverer(Channels{Notice: true, Bell: true, Command: cmd, Timeout: time.Minute})
	done := make(chan struct{})
	go func() {
		for i := 0; i < 1000; i++ {
			d.Deliver(sample)
		}
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("Deliver blocked")
	}
	if d.Dropped() == 0 {
		t.Fatal("1000 notes into a queue of 256 with no reader: nothing counted as dropped")
	}
}

func TestChannelsOff(t *testing.T) {
	d := NewDeliverer(Channels{})
	d.Deliver(sample)
	select {
	case n := <-d.Notes():
		t.Fatalf("a note with every channel off: %+v", n)
	default:
	}
	d = NewDeliverer(Channels{Bell: true})
	d.Deliver(sample)
	if n := next(t, d); n.Show || n.Terminal != "\a" {
		t.Fatalf("bell only: %+v", n)
	}
}

func TestDesktopSequence(t *testing.T) {
	body := "BTC; up\x1b]52;c;evil\x07"
	if got := DesktopSequence("777", false, "tradedeck", body); got != "\x1b]777;notify;tradedeck;BTC; up ]52;c;evil \x07" {
		t.Fatalf("osc 777: %q", got)
	}
	if got := DesktopSequence("9", false, "t", "hi"); got != "\x1b]9;t: hi\x07" {
		t.Fatalf("osc 9: %q", got)
	}
	if got := DesktopSequence("9", true, "t", "hi"); got != "\x1bPtmux;\x1b\x1b]9;t: hi\x07\x1b\\" {
		t.Fatalf("osc 9 in tmux: %q", got)
	}
	if got := DesktopSequence("both", false, "t", "hi"); got != "\x1b]9;t: hi\x07\x1b]777;notify;t;hi\x07" {
		t.Fatalf("both: %q", got)
	}
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	if AutoOSC(env(map[string]string{"TERM_PROGRAM": "iTerm.app"})) != "9" || AutoOSC(env(map[string]string{"TERM": "foot"})) != "777" {
		t.Fatal("AutoOSC")
	}
	if !InTmux(env(map[string]string{"TMUX": "/tmp/x,1,0"})) || !InTmux(env(map[string]string{"TERM": "tmux-256color"})) || InTmux(env(nil)) {
		t.Fatal("InTmux")
	}
}

func next(t *testing.T, d *Deliverer) Note {
	t.Helper()
	select {
	case n := <-d.Notes():
		return n
	case <-time.After(10 * time.Second):
		t.Fatal("no note")
	}
	return Note{}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("the hook did not write %s before it was killed: %v", path, err)
	}
	return string(b)
}
