package ws

import (
	"context"
	"errors"
	"strconv"
	"testing"
	"time"

	"github.com/coder/websocket"
)

func TestSubscribeAcksAndErrors(t *testing.T) {
	v := startVenue(t, fastOptions())
	cl := v.market(t)

	ack := subscribe(cl, "c1", "SPOT_BTC_USDT@orderbookupdate")
	if ack["event"] != "subscribe" || ack["success"] != true {
		t.Fatalf("ack %v", ack)
	}
	requireNumber(t, ack, "ts")

	// a numeric id is echoed as a string
	cl.send(`{"id":42,"event":"subscribe","topic":"SPOT_ETH_USDT@trade"}`)
	if m := cl.Next(5*time.Second, "ack 42", replyTo("42")); m["success"] != true {
		t.Fatalf("numeric id: %v", m)
	}

	cases := []struct{ topic, want string }{
		{"SPOT_X_USDC@orderbook", "invalid symbol SPOT_X_USDC"},
		{"SPOT_BTC_USDT@nonsense", "invalid topic SPOT_BTC_USDT@nonsense"},
		{"SPOT_BTC_USDT@kline_2m", "invalid topic SPOT_BTC_USDT@kline_2m"},
		{"SPOT_BTC_USDT@openinterest", "invalid topic SPOT_BTC_USDT@openinterest"},
		{"nonsense", "invalid topic nonsense"},
		{"executionreport", "topic executionreport is on the private stream"},
		{"", "topic is required"},
	}
	for i, c := range cases {
		id := "e" + strconv.Itoa(i)
		m := subscribe(cl, id, c.topic)
		if m["success"] != false || m["errorMsg"] != c.want || m["event"] != "subscribe" {
			t.Errorf("%q: got %v, want errorMsg %q", c.topic, m, c.want)
		}
		requireNumber(t, m, "ts")
	}

	cl.send(`{"id":"u1","event":"unsubscribe","topic":"SPOT_BTC_USDT@orderbookupdate"}`)
	if m := cl.Next(5*time.Second, "unsubscribe reply", replyTo("u1")); m["success"] != true || m["data"] != "SPOT_BTC_USDT@orderbookupdate" {
		t.Fatalf("unsubscribe: %v", m)
	}

	cl.send(`{"id":"b1","event":"dance"}`)
	if m := cl.Next(5*time.Second, "unknown event reply", replyTo("b1")); m["success"] != false || m["errorMsg"] != "unknown event dance" {
		t.Fatalf("unknown event: %v", m)
	}
	cl.send(`{not json`)
	if m := cl.Next(5*time.Second, "malformed reply", func(m map[string]any) bool { return m["success"] == false }); m["errorMsg"] == "" {
		t.Fatalf("malformed: %v", m)
	}
	// still alive and serving after bad input
	cl.send(`{"event":"ping"}`)
	cl.Next(5*time.Second, "pong", func(m map[string]any) bool { return m["event"] == "pong" })
}

func TestRequestOrderbook(t *testing.T) {
	v := startVenue(t, fastOptions())
	cl := v.market(t)
	cl.send(`{"id":"r1","event":"request","params":{"type":"orderbook","symbol":"SPOT_BTC_USDT"}}`)
	m := cl.Next(5*time.Second, "request reply", replyTo("r1"))
	if m["event"] != "request" || m["success"] != true {
		t.Fatalf("reply %v", m)
	}
	data := m["data"].(map[string]any)
	requireNumber(t, data, "ts")
	book, err := v.ex.Depth("SPOT_BTC_USDT", 100)
	if err != nil {
		t.Fatal(err)
	}
	asks := data["asks"].([]any)
	bids := data["bids"].([]any)
	if len(asks) != len(book.Asks) || len(bids) != len(book.Bids) || len(asks) == 0 {
		t.Fatalf("levels: got %d/%d, book has %d/%d", len(asks), len(bids), len(book.Asks), len(book.Bids))
	}
	for i, l := range asks {
		pq := l.([]any)
		if pq[0].(interface{ String() string }).String() != book.Asks[i].Price.String() || pq[1].(interface{ String() string }).String() != book.Asks[i].Quantity.String() {
			t.Fatalf("ask %d: %v vs %v", i, pq, book.Asks[i])
		}
	}
	// the book time moves on with every capture; the reply's cannot be newer than a later read
	if ts := num64(t, data["ts"]); ts > book.Ts || ts < book.Ts-5000 || data["symbol"] != "SPOT_BTC_USDT" {
		t.Fatalf("ts/symbol: %v vs %d", data, book.Ts)
	}

	cl.send(`{"id":"r2","event":"request","params":{"type":"orderbook","symbol":"SPOT_NOPE_USDT"}}`)
	if m := cl.Next(5*time.Second, "bad request reply", replyTo("r2")); m["errorMsg"] != "invalid symbol SPOT_NOPE_USDT" {
		t.Fatalf("bad symbol: %v", m)
	}
	cl.send(`{"id":"r3","event":"request","params":{"type":"trades","symbol":"SPOT_BTC_USDT"}}`)
	if m := cl.Next(5*time.Second, "bad type reply", replyTo("r3")); m["success"] != false {
		t.Fatalf("bad type: %v", m)
	}
}

func TestPingPong(t *testing.T) {
	opts := fastOptions()
	opts.PingInterval = 10 * time.Millisecond
	v := startVenue(t, opts)

	// A client ping is answered with pong and ts.
	cl := v.market(t)
	cl.send(`{"event":"ping"}`)
	pong := cl.Next(5*time.Second, "pong", func(m map[string]any) bool { return m["event"] == "pong" })
	requireNumber(t, pong, "ts")

	// A client that answers the server's pings stays: it answers in the background until asked
	// to prove it is still served.
	answering := v.market(t)
	alive := make(chan error, 1)
	go func() {
		for m := range answering.In {
			switch {
			case m.Err != nil:
				alive <- m.Err
				return
			case m.M["event"] == "ping":
				ctxSend(answering, `{"event":"pong"}`)
			case m.M["id"] == "alive2":
				alive <- nil
				return
			}
		}
	}()

	// A client that only pings on its own (never answering) stays too.
	selfPinger := v.market(t)
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		tk := time.NewTicker(20 * time.Millisecond) // one ping per two server pings
		defer tk.Stop()
		for {
			select {
			case <-stop:
				return
			case <-tk.C:
				ctxSend(selfPinger, `{"event":"ping"}`)
			}
		}
	}()

	// A silent client is dropped after 10 unanswered pings.
	silent := v.market(t)
	pings := 0
	var err error
	for m := range silent.In {
		if m.Err != nil {
			err = m.Err
			break
		}
		if m.M["event"] == "ping" {
			pings++
		}
	}
	var ce websocket.CloseError
	if !errors.As(err, &ce) || ce.Reason != reasonNoPong || pings != 10 {
		t.Fatalf("silent client: closed by %v after %d pings, want %q after 10", err, pings, reasonNoPong)
	}
	if v.srv.Stats().PongDrops < 1 {
		t.Fatal("pong drop not counted")
	}
	// Wait well past another 10 pings: the self-pinger and the answering client are still served.
	time.Sleep(300 * time.Millisecond)
	selfPinger.send(`{"id":"alive","event":"subscribe","topic":"tickers"}`)
	selfPinger.Next(5*time.Second, "self-pinger still served", replyTo("alive"))
	close(stop)
	<-done
	ctxSend(answering, `{"id":"alive2","event":"subscribe","topic":"tickers"}`)
	select {
	case err := <-alive:
		if err != nil {
			t.Fatalf("answering client dropped: %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("answering client: no reply")
	}
}

func ctxSend(cl *client, s string) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	_ = cl.Conn.Write(ctx, websocket.MessageText, []byte(s))
}

func TestBookFramesAreExactNumbers(t *testing.T) {
	// fixed.Append writes the book's integers without float rounding
	if got := string(appendLevels(nil, []level{{Price: 9700012, Qty: 1}}, marketInfo{pd: 2, qd: 5})); got != "[[97000.12,0.00001]]" {
		t.Fatalf("levels %s", got)
	}
}
