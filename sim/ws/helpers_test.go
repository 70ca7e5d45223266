package ws

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"tradedeck/internal/testkit"
	"tradedeck/sim/exchange"
	"tradedeck/sim/faults"
)

// Demo account of the embedded universe.
const (
	demoKey    = "DemoMainKey0000000000A=="
	demoSecret = "DEMOSECRETMAIN00000000000000"
	demoApp    = "8935820a-6600-4c2c-9bc3-f017d89aa173"
	subApp     = "0f3c1a9e-2b7d-4e61-9a85-5c2d7e8b1f40"
)

type testVenue struct {
	ex     *exchange.Exchange
	srv    *Server
	url    string // ws://127.0.0.1:P
	faults *faults.Injector
}

// fastOptions shortens every cadence so tests see many pushes quickly.
func fastOptions() Options {
	return Options{
		PingInterval:   time.Hour,
		UpdateInterval: 20 * time.Millisecond,
		BBOInterval:    5 * time.Millisecond,
		StatsInterval:  50 * time.Millisecond,
	}
}

// startVenue runs an exchange and the stream server on a real loopback listener.
func startVenue(t testing.TB, opts Options) *testVenue {
	t.Helper()
	ex, err := exchange.New(exchange.Options{Seed: 7})
	if err != nil {
		t.Fatal(err)
	}
	return serveVenue(t, ex, opts)
}

// serveVenue runs the stream server of ex on a real loopback listener.
func serveVenue(t testing.TB, ex *exchange.Exchange, opts Options) *testVenue {
	t.Helper()
	if opts.Faults == nil {
		opts.Faults = faults.New(1)
	}
	srv := New(ex, opts)
	mux := http.NewServeMux()
	srv.Register(mux)
	hs := httptest.NewServer(mux)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { srv.Run(ctx); close(done) }()
	t.Cleanup(func() {
		cancel()
		<-done
		hs.Close()
	})
	return &testVenue{ex: ex, srv: srv, url: "ws" + strings.TrimPrefix(hs.URL, "http"), faults: opts.Faults}
}

// client is a Websocket client of the test venue.
type client struct{ *testkit.WSClient }

func (v *testVenue) dial(t testing.TB, path string) *client {
	t.Helper()
	return &client{testkit.DialWS(t, v.url+path)}
}

func (v *testVenue) market(t testing.TB) *client  { return v.dial(t, MarketPath+demoApp) }
func (v *testVenue) private(t testing.TB) *client { return v.dial(t, PrivatePath+demoApp) }

func (cl *client) send(v any) {
	cl.T.Helper()
	var b []byte
	switch v := v.(type) {
	case string:
		b = []byte(v)
	default:
		var err error
		if b, err = json.Marshal(v); err != nil {
			cl.T.Fatal(err)
		}
	}
	cl.Write(b)
}

func topicIs(topic string) func(map[string]any) bool {
	return func(m map[string]any) bool { return m["topic"] == topic }
}

func replyTo(id string) func(map[string]any) bool {
	return func(m map[string]any) bool { return m["id"] == id }
}

func subscribe(cl *client, id, topic string) map[string]any {
	cl.T.Helper()
	cl.send(map[string]string{"id": id, "event": "subscribe", "topic": topic})
	return cl.Next(5*time.Second, "reply to "+id, replyTo(id))
}

// requireNumber fails unless m[key] is a JSON number.
func requireNumber(t testing.TB, m map[string]any, keys ...string) {
	t.Helper()
	for _, k := range keys {
		if _, ok := m[k].(json.Number); !ok {
			t.Fatalf("%s: want a JSON number, got %T %v in %v", k, m[k], m[k], m)
		}
	}
}

func num64(t testing.TB, v any) int64 {
	t.Helper()
	n, ok := v.(json.Number)
	if !ok {
		t.Fatalf("want a number, got %T %v", v, v)
	}
	i, err := n.Int64()
	if err != nil {
		t.Fatal(err)
	}
	return i
}
