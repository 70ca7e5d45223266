package ws

import (
	"context"
	"net/http"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
)

// TestConnectionsBoundedPerAddress: past MaxConnsPerIP a client address is
// refused with 429 before the upgrade, and a closed connection frees its slot.
func TestConnectionsBoundedPerAddress(t *testing.T) {
	opts := fastOptions()
	opts.MaxConnsPerIP = 3
	v := startVenue(t, opts)
	var held []*client
	for range 3 {
		held = append(held, v.market(t))
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_, resp, err := websocket.Dial(ctx, v.url+MarketPath+demoApp, nil) //nolint:bodyclose // coder/websocket closes the handshake response body itself
	if err == nil || resp == nil || resp.StatusCode != http.StatusTooManyRequests {
		t.Fatalf("fourth connection from one address: err %v, response %v; want 429", err, resp)
	}
	held[0].Conn.Close(websocket.StatusNormalClosure, "")
	deadline := time.Now().Add(10 * time.Second)
	for {
		c, _, err := websocket.Dial(ctx, v.url+MarketPath+demoApp, nil) //nolint:bodyclose // coder/websocket closes the handshake response body itself
		if err == nil {
			_ = c.CloseNow() // only the handshake mattered
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("slot not freed after a close: %v", err)
		}
		runtime.Gosched()
	}
}

// TestHostileSubscriptionsHoldNothing: topics of unknown symbols, huge
// topics and application ids are refused and leave the hub as it was.
func TestHostileSubscriptionsHoldNothing(t *testing.T) {
	v := startVenue(t, fastOptions())
	cl := v.market(t)
	for i := range 200 {
		topic := "SPOT_" + strings.Repeat("X", 1000+i) + "_USDT@trade"
		if r := subscribe(cl, "s"+strconv.Itoa(i), topic); r["success"] != false {
			t.Fatalf("subscription to %.40s... accepted: %v", topic, r)
		}
	}
	if r := subscribe(cl, "ok", "SPOT_BTC_USDT@trade"); r["success"] != true {
		t.Fatalf("listed topic refused: %v", r)
	}
	v.srv.hub.mu.RLock()
	n := len(v.srv.hub.subs)
	v.srv.hub.mu.RUnlock()
	if n != 1 {
		t.Fatalf("hub holds %d keys after 200 refused subscriptions, want 1", n)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_, resp, err := websocket.Dial(ctx, v.url+MarketPath+strings.Repeat("a", 1000), nil) //nolint:bodyclose // coder/websocket closes the handshake response body itself
	if err == nil || resp == nil || resp.StatusCode != http.StatusNotFound {
		t.Fatalf("1000-character application id: err %v, response %v; want 404", err, resp)
	}
}
