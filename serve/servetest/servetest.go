// Package servetest is an SSH client for tests of `tradedeck serve`: a
// real golang.org/x/crypto/ssh connection with a PTY, whose screen output
// is collected so tests can wait for text to appear.
package servetest

import (
	"crypto/ed25519"
	"crypto/rand"
	"encoding/pem"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"
	gossh "golang.org/x/crypto/ssh"

	"tradedeck/internal/testkit"
)

// Key is a fresh ed25519 key pair.
type Key struct {
	Signer gossh.Signer
	PEM    []byte // OpenSSH private key, usable as a host key
}

// NewKey generates a key.
func NewKey(t testing.TB) Key {
	t.Helper()
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	s, err := gossh.NewSignerFromKey(priv)
	if err != nil {
		t.Fatal(err)
	}
	block, err := gossh.MarshalPrivateKey(priv, "test")
	if err != nil {
		t.Fatal(err)
	}
	return Key{Signer: s, PEM: pem.EncodeToMemory(block)}
}

// AuthorizedKeys writes an authorized_keys file holding keys into a
// temporary directory and returns its path.
func AuthorizedKeys(t testing.TB, keys ...Key) string {
	t.Helper()
	var b []byte
	b = append(b, "# test keys\n\n"...)
	for _, k := range keys {
		b = append(b, gossh.MarshalAuthorizedKey(k.Signer.PublicKey())...)
	}
	p := filepath.Join(t.TempDir(), "authorized_keys")
	if err := os.WriteFile(p, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// AuthorizedKeysFile writes lines (see Line) as an authorized_keys file
// into a temporary directory and returns its path.
func AuthorizedKeysFile(t testing.TB, lines ...string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "authorized_keys")
	if err := os.WriteFile(p, []byte(strings.Join(lines, "")), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// Line is k's authorized_keys line with options in front ("" for none),
// e.g. Line(k, "tradedeck-role=trader").
func Line(k Key, options string) string {
	line := string(gossh.MarshalAuthorizedKey(k.Signer.PublicKey()))
	if options != "" {
		line = options + " " + line
	}
	return line
}

// Dial connects and authenticates with key (any host key is accepted:
// the tests check the host key separately).
func Dial(addr string, key Key) (*gossh.Client, error) {
	return gossh.Dial("tcp", addr, &gossh.ClientConfig{
		User:            "trader",
		Auth:            []gossh.AuthMethod{gossh.PublicKeys(key.Signer)},
		HostKeyCallback: gossh.InsecureIgnoreHostKey(), //nolint:gosec // test client
		Timeout:         10 * time.Second,
	})
}

// Term is a shell session on a PTY whose output is collected.
type Term struct {
	Session *gossh.Session
	out     *testkit.SyncBuffer
	stdin   interface{ Write([]byte) (int, error) }
	done    chan error
}

// Open starts a shell on a PTY of the given TERM and size; env is sent
// with setenv requests (the server may ignore what it does not allow).
func Open(t testing.TB, c *gossh.Client, term string, w, h int, env map[string]string) *Term {
	t.Helper()
	s, err := c.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range env {
		if err := s.Setenv(k, v); err != nil {
			t.Fatalf("setenv %s: %v", k, err)
		}
	}
	if err := s.RequestPty(term, h, w, gossh.TerminalModes{}); err != nil {
		t.Fatal(err)
	}
	out := &testkit.SyncBuffer{}
	s.Stdout, s.Stderr = out, out
	in, err := s.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Shell(); err != nil {
		t.Fatal(err)
	}
	tm := &Term{Session: s, out: out, stdin: in, done: make(chan error, 1)}
	go func() { tm.done <- s.Wait() }()
	return tm
}

// Type sends keystrokes.
func (tm *Term) Type(t testing.TB, s string) {
	t.Helper()
	if _, err := tm.stdin.Write([]byte(s)); err != nil {
		t.Fatal(err)
	}
}

// Text is everything received so far with escape sequences removed.
func (tm *Term) Text() string { return ansi.Strip(tm.out.String()) }

// Raw is everything received so far, escape sequences included.
func (tm *Term) Raw() string { return tm.out.String() }

// WaitFor waits until every want has appeared in the output.
func (tm *Term) WaitFor(t testing.TB, timeout time.Duration, want ...string) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		s := tm.Text()
		missing := ""
		for _, w := range want {
			if !strings.Contains(s, w) {
				missing = w
				break
			}
		}
		if missing == "" {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%q never appeared; output (last 2000 chars):\n%s", missing, tail(s, 2000))
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// WaitEnd waits for the session to end and returns its exit error (nil:
// exit status 0).
func (tm *Term) WaitEnd(t testing.TB, timeout time.Duration) error {
	t.Helper()
	select {
	case err := <-tm.done:
		return err
	case <-time.After(timeout):
		t.Fatalf("session did not end; output:\n%s", tail(tm.Text(), 2000))
		return nil
	}
}

func tail(s string, n int) string {
	if len(s) > n {
		return s[len(s)-n:]
	}
	return s
}
