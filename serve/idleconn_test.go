package serve

import (
	"errors"
	"net"
	"os"
	"testing"
	"time"
)

func pipeTCP(t *testing.T) (server, client net.Conn) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	client, err = net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	server, err = ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { server.Close(); client.Close() })
	return server, client
}

// Traffic keeps the connection up; silence in both directions cuts it.
func TestIdleConnCutsOnlySilence(t *testing.T) {
	srv, cli := pipeTCP(t)
	c := newIdleConn(srv, 300*time.Millisecond)
	buf := make([]byte, 1)
	for i := 0; i < 4; i++ { // 4 x 150 ms of traffic outlives one idle window
		time.Sleep(150 * time.Millisecond)
		if _, err := cli.Write([]byte{'x'}); err != nil {
			t.Fatal(err)
		}
		if _, err := c.Read(buf); err != nil {
			t.Fatalf("read %d during traffic: %v", i, err)
		}
	}
	// A cleared server deadline must not switch idleness off.
	if err := c.SetDeadline(time.Time{}); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	_, err := c.Read(buf)
	if !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("silent connection not cut: %v", err)
	}
	if waited := time.Since(start); waited > 5*time.Second {
		t.Fatalf("cut after %v, want about the idle window", waited)
	}
}

// The server's own (handshake) deadline still applies when it is earlier.
func TestIdleConnKeepsAnEarlierServerDeadline(t *testing.T) {
	srv, _ := pipeTCP(t)
	c := newIdleConn(srv, time.Hour)
	if err := c.SetDeadline(time.Now().Add(100 * time.Millisecond)); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { _, err := c.Read(make([]byte, 1)); done <- err }()
	select {
	case err := <-done:
		if !errors.Is(err, os.ErrDeadlineExceeded) {
			t.Fatalf("read ended with %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the handshake deadline was ignored")
	}
}
