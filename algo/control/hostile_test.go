package control

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"tradedeck/algo"
)

// rawConn is a peer speaking bytes, not the protocol.
func rawConn(t *testing.T, path string) (net.Conn, *bufio.Reader) {
	t.Helper()
	c, err := net.Dial("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	_ = c.SetDeadline(time.Now().Add(10 * time.Second))
	r := bufio.NewReaderSize(c, 1<<20)
	return c, r
}

func readResponse(t *testing.T, r *bufio.Reader) Response {
	t.Helper()
	line, err := r.ReadBytes('\n')
	if err != nil {
		t.Fatalf("no answer: %v", err)
	}
	var resp Response
	if err := json.Unmarshal(line, &resp); err != nil {
		t.Fatalf("answer %q: %v", line, err)
	}
	return resp
}

// Garbage and unknown requests get an error each and the connection goes
// on; a line longer than MaxRequest ends it; the server serves the next
// view; nothing on the wire carries the account's key or secret.
func TestHostilePeer(t *testing.T) {
	e, inst := realEngine(t)
	p := serveOn(t, e, ServerConfig{Info: Info{Holder: Holder{PID: os.Getpid()}, Account: inst.Endpoints.BaseURL}})
	c, r := rawConn(t, p.Socket)
	var seen strings.Builder
	for _, line := range []string{"garbage\n", "{\"id\":1,\"op\":\n", "\x00\xff\xfe\n", `{"id":2,"op":"launch"}` + "\n",
		`{"id":3,"op":"add"}` + "\n", `{"id":4,"op":"amend","algo":1}` + "\n", `{"id":5,"op":"add","line":"stop X"}` + "\n"} {
		if _, err := io.WriteString(c, line); err != nil {
			t.Fatal(err)
		}
		resp := readResponse(t, r)
		b, _ := json.Marshal(resp)
		seen.Write(b)
		if resp.Error == "" || resp.Code != "bad_request" {
			t.Fatalf("%q: answer %+v, want a bad_request error", line, resp)
		}
	}
	// Still serving this connection.
	if _, err := io.WriteString(c, `{"id":9,"op":"hello"}`+"\n"); err != nil {
		t.Fatal(err)
	}
	resp := readResponse(t, r)
	if resp.ID != 9 || resp.Error != "" {
		t.Fatalf("hello after garbage: %+v", resp)
	}
	seen.Write(resp.Data)
	if _, err := io.WriteString(c, `{"id":10,"op":"snapshot"}`+"\n"); err != nil {
		t.Fatal(err)
	}
	seen.Write(readResponse(t, r).Data)

	// A huge line: answered once, then hung up.
	huge := `{"id":11,"op":"add","line":"` + strings.Repeat("A", 2*MaxRequest) + "\"}\n"
	go func() { _, _ = io.WriteString(c, huge) }()
	resp = readResponse(t, r)
	if resp.Code != "bad_request" || !strings.Contains(resp.Error, "longer than") {
		t.Fatalf("huge line: %+v", resp)
	}
	if _, err := r.ReadBytes('\n'); err == nil {
		t.Fatal("the connection stayed open after a huge line")
	}

	// The next view is served.
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	cl, err := Dial(ctx, p.Socket, "next")
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	_, err = cl.AddLine("stop SPOT_BTC_USDT 10000000", algoConfirm())
	seen.WriteString(err.Error())
	for _, secret := range []string{inst.Credentials.APISecret, inst.Credentials.APIKey} {
		if strings.Contains(seen.String(), secret) {
			t.Fatalf("the wire carried a key or secret: %s", seen.String())
		}
	}
}

// A peer of another user is refused at the door with the reason, by the
// uid the kernel gives (SO_PEERCRED).
func TestOtherUserIsRefused(t *testing.T) {
	e, _ := realEngine(t)
	other := os.Getuid() + 1
	p := serveOn(t, e, ServerConfig{UID: &other})
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_, err := Dial(ctx, p.Socket, "intruder")
	if !errors.Is(err, ErrGone) || !strings.Contains(err.Error(), "only the engine's own user may connect") {
		t.Fatalf("dial as another user: %v", err)
	}
}

// envDial makes the test binary a client that dials the socket and prints
// what happened (run as another user by TestRealOtherUserIsRefused).
const envDial = "TRADEDECK_CONTROL_TEST_DIAL"

func TestMain(m *testing.M) {
	if path := os.Getenv(envDial); path != "" {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		c, err := Dial(ctx, path, "other user")
		if err != nil {
			fmt.Println("refused:", err)
			os.Exit(0)
		}
		c.Close()
		fmt.Println("connected")
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// With root's powers the test runs a real process of another user
// (nobody) against a socket it can reach: the engine refuses it.
func TestRealOtherUserIsRefused(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("needs root to run a process as another user")
	}
	e, _ := realEngine(t)
	p := serveOn(t, e, ServerConfig{})
	// Open the way for this test only: the engines directory is 0700 and
	// the socket 0600, which would stop the other user before the check.
	if err := os.Chmod(filepath.Dir(p.Socket), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(p.Socket, 0o777); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(filepath.Dir(filepath.Dir(p.Socket)), 0o755); err != nil {
		t.Fatal(err)
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir, err := os.MkdirTemp("", "ctlbin")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "control.test")
	b, err := os.ReadFile(self)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bin, b, 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin)
	cmd.Env = []string{envDial + "=" + p.Socket}
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the other user's process: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "refused:") || !strings.Contains(string(out), "only the engine's own user may connect") {
		t.Fatalf("the other user's process said %q", out)
	}
}

func algoConfirm() algo.Confirm { return algo.Confirm{} }
