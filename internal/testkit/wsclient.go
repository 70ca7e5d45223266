package testkit

import (
	"bytes"
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/coder/websocket"
)

// WSFrame is one frame a WSClient read: its bytes and its JSON object
// (numbers kept as json.Number), or the error that ended the connection.
type WSFrame struct {
	Raw []byte
	M   map[string]any
	Err error
}

// WSClient is a real Websocket client whose frames arrive decoded on In,
// in order; In closes after the frame that carries the ending error.
type WSClient struct {
	T    testing.TB
	Conn *websocket.Conn
	In   chan WSFrame
}

// DialWS connects to url for the rest of the test.
func DialWS(t testing.TB, url string) *WSClient {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	c, _, err := websocket.Dial(ctx, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	c.SetReadLimit(1 << 24)
	cl := &WSClient{T: t, Conn: c, In: make(chan WSFrame, 1<<16)}
	go func() {
		defer close(cl.In)
		for {
			_, b, err := c.Read(context.Background())
			if err != nil {
				cl.In <- WSFrame{Err: err}
				return
			}
			d := json.NewDecoder(bytes.NewReader(b))
			d.UseNumber()
			var m map[string]any
			if err := d.Decode(&m); err != nil {
				cl.In <- WSFrame{Raw: b, Err: err}
				return
			}
			cl.In <- WSFrame{Raw: b, M: m}
		}
	}()
	t.Cleanup(func() { _ = c.CloseNow() })
	return cl
}

// Write sends b as a text frame.
func (cl *WSClient) Write(b []byte) {
	cl.T.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := cl.Conn.Write(ctx, websocket.MessageText, b); err != nil {
		cl.T.Fatalf("write: %v", err)
	}
}

// Next returns the next frame matching pred, skipping the others; it fails
// the test when the connection ends or none comes within timeout.
func (cl *WSClient) Next(timeout time.Duration, what string, pred func(map[string]any) bool) map[string]any {
	cl.T.Helper()
	deadline := time.After(timeout)
	for {
		select {
		case f, ok := <-cl.In:
			if !ok || f.Err != nil {
				cl.T.Fatalf("waiting for %s: connection ended: %v", what, f.Err)
			}
			if pred(f.M) {
				return f.M
			}
		case <-deadline:
			cl.T.Fatalf("no %s within %v", what, timeout)
		}
	}
}
