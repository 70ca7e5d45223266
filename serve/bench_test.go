package serve

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"charm.land/log/v2"
	gossh "golang.org/x/crypto/ssh"

	"tradedeck/serve/servetest"
)

// BenchmarkKeyAuth is one public-key check against an authorized_keys
// file of 100 keys, the last one matching (the file is read every time).
func BenchmarkKeyAuth(b *testing.B) {
	var keys []servetest.Key
	for range 100 {
		keys = append(keys, servetest.NewKey(b))
	}
	path := servetest.AuthorizedKeys(b, keys...)
	want := keys[len(keys)-1].Signer.PublicKey()
	b.ReportAllocs()
	for b.Loop() {
		if _, ok, err := authorized(path, want); !ok || err != nil {
			b.Fatal("refused", err)
		}
	}
}

// BenchmarkSessionLifecycle is a whole viewer visit on loopback: SSH
// handshake, public-key auth, PTY, first frame of a small program, q,
// session end (client and server costs together).
func BenchmarkSessionLifecycle(b *testing.B) {
	user := servetest.NewKey(b)
	dir := b.TempDir()
	ak := filepath.Join(dir, "ak")
	if err := os.WriteFile(ak, gossh.MarshalAuthorizedKey(user.Signer.PublicKey()), 0o600); err != nil {
		b.Fatal(err)
	}
	srv, err := New(Config{
		Listen: "127.0.0.1:0", HostKeyPEM: servetest.NewKey(b).PEM, AuthorizedKeys: ak, Logger: log.New(io.Discard),
		App: func(_ context.Context, t Terminal) (*Session, error) { return &Session{Model: echoModel{t: t}}, nil },
	})
	if err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Run(ctx) }()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			b.Errorf("server: %v", err)
		}
	}()
	b.ReportAllocs()
	for b.Loop() {
		c, err := servetest.Dial(srv.Addr().String(), user)
		if err != nil {
			b.Fatal(err)
		}
		tm := servetest.Open(b, c, "xterm", 80, 24, nil)
		tm.WaitFor(b, 10*time.Second, "ready")
		tm.Type(b, "q")
		if err := tm.WaitEnd(b, 10*time.Second); err != nil {
			b.Fatal(err)
		}
		c.Close()
	}
}
