package sim_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/coder/websocket"

	"tradedeck/sim"
	"tradedeck/sim/faults"
	"tradedeck/sim/ws"
)

func fastSim(t testing.TB, rate float64) *sim.Instance {
	return startSim(t, sim.Options{Seed: 9, Living: sim.LivingOptions{
		Rate:     rate,
		NoMarket: rate == 0,
		Streams:  ws.Options{UpdateInterval: 20 * time.Millisecond, StatsInterval: 50 * time.Millisecond},
	}})
}

func TestFaultDropConnections(t *testing.T) {
	inst := fastSim(t, 20)
	url := inst.Endpoints.MarketStreamURL(inst.Credentials.ApplicationID)
	a, b := dialWS(t, url), dialWS(t, url)
	a.subscribe("1", "tickers")
	b.subscribe("1", "tickers")
	if n := inst.Faults.DropNow(); n != 2 {
		t.Fatalf("dropped %d connections, want 2", n)
	}
	for _, c := range []*wsClient{a, b} {
		for f := range c.In {
			if f.Err != nil {
				var ce websocket.CloseError
				if !errors.As(f.Err, &ce) || ce.Code != websocket.StatusGoingAway {
					t.Fatalf("want a going-away close, got %v", f.Err)
				}
				break
			}
		}
	}
	// Periodic drops: each new connection is dropped again within the period.
	inst.Faults.Set(faults.Config{DropEvery: 50 * time.Millisecond})
	for range 3 {
		c := dialWS(t, url)
		for f := range c.In {
			if f.Err != nil {
				break
			}
		}
	}
	inst.Faults.Set(faults.Config{})
	if d := inst.Faults.Counts().Drops; d < 5 {
		t.Fatalf("drops counted %d, want >= 5", d)
	}
}

// waitStalled waits until n more frames than before were withheld: the
// stream's writer has passed the stall, so nothing it wrote earlier is
// still on its way out of it.
func waitStalled(t *testing.T, inst *sim.Instance, before, n int64) int64 {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		got := inst.Faults.Counts().StalledFrames
		if got >= before+n {
			return got
		}
		if time.Now().After(deadline) {
			t.Fatalf("only %d frames withheld in 10s, want %d", got-before, n)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// settle returns once every frame the server wrote before now has been
// read into cl.In: a Websocket ping's pong travels behind them on the
// same connection, and the reader queues a frame before it reads on.
func (cl *wsClient) settle() {
	cl.T.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := cl.Conn.Ping(ctx); err != nil {
		cl.T.Fatalf("ping: %v", err)
	}
}

func (cl *wsClient) drain() {
	for len(cl.In) > 0 {
		<-cl.In
	}
}

// expectSilence fails when the server wrote anything before now: it
// settles the connection and finds no frame read.
func (cl *wsClient) expectSilence(what string) {
	cl.T.Helper()
	cl.settle()
	select {
	case f := <-cl.In:
		cl.T.Fatalf("%s sent %v %v", what, f.M, f.Err)
	default:
	}
}

// A stalled stream sends nothing. Deterministic: after the writer
// withheld frames, a ping round trip flushes whatever it wrote before;
// once it withheld more, another round trip proves none of them came.
func TestFaultStall(t *testing.T) {
	inst := fastSim(t, 50)
	const topic = "SPOT_BTC_USDT@orderbookupdate"
	cl := dialWS(t, inst.Endpoints.MarketStreamURL(inst.Credentials.ApplicationID))
	cl.subscribe("1", topic)
	cl.next("an update", func(m map[string]any) bool { return m["topic"] == topic })

	before := inst.Faults.Counts().StalledFrames
	inst.Faults.Set(faults.Config{Stall: true})
	n := waitStalled(t, inst, before, 1)
	cl.settle()
	cl.drain()
	waitStalled(t, inst, n, 3)
	cl.expectSilence("stalled stream")
	inst.Faults.Set(faults.Config{})
	cl.next("updates again after the stall", func(m map[string]any) bool { return m["topic"] == topic })

	// Stalling the market stream only: the private stream keeps pushing.
	pc := authPrivate(t, inst, inst.Credentials)
	pc.subscribe("p", "positioninfo")
	before = inst.Faults.Counts().StalledFrames
	inst.Faults.Set(faults.Config{StallMarket: true})
	n = waitStalled(t, inst, before, 1)
	cl.settle()
	cl.drain()
	pc.next("positioninfo during a market stall", func(m map[string]any) bool { return m["topic"] == "positioninfo" })
	pc.next("positioninfo during a market stall", func(m map[string]any) bool { return m["topic"] == "positioninfo" })
	waitStalled(t, inst, n, 3)
	cl.expectSilence("stalled market stream")
	inst.Faults.Set(faults.Config{})
}

func TestFaultRESTErrors(t *testing.T) {
	inst := fastSim(t, 0)
	get := func() (int, map[string]any) {
		resp, err := http.Get(inst.Endpoints.BaseURL + "/v1/public/info")
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var m map[string]any
		d := json.NewDecoder(resp.Body)
		d.UseNumber()
		if err := d.Decode(&m); err != nil {
			t.Fatal(err)
		}
		return resp.StatusCode, m
	}
	inst.Faults.Set(faults.Config{REST429: 1})
	if code, m := get(); code != 429 || numStr(m["code"]) != "-1003" || m["success"] != false {
		t.Fatalf("429: %d %v", code, m)
	}
	// Websocket handshakes are not REST calls: they still succeed.
	dialWS(t, inst.Endpoints.MarketStreamURL(inst.Credentials.ApplicationID)).subscribe("1", "tickers")
	inst.Faults.Set(faults.Config{REST5xx: 1})
	if code, m := get(); code != 500 || numStr(m["code"]) != "-1000" {
		t.Fatalf("5xx: %d %v", code, m)
	}
	inst.Faults.Set(faults.Config{REST429: 0.25, REST5xx: 0.25})
	counts := map[int]int{}
	for range 200 {
		code, _ := get()
		counts[code]++
	}
	if counts[200] < 60 || counts[429] < 20 || counts[500] < 20 || counts[200]+counts[429]+counts[500] != 200 {
		t.Fatalf("mix of 200 answers: %v", counts)
	}
	c := inst.Faults.Counts()
	if c.REST429 != int64(counts[429])+1 || c.REST5xx != int64(counts[500])+1 {
		t.Fatalf("counts %+v vs seen %v", c, counts)
	}
	inst.Faults.Set(faults.Config{})
	if code, _ := get(); code != 200 {
		t.Fatalf("after faults: %d", code)
	}
}

func TestFaultDelayAndReorder(t *testing.T) {
	inst := fastSim(t, 50)
	const topic = "SPOT_ETH_USDT@orderbookupdate"
	cl := dialWS(t, inst.Endpoints.MarketStreamURL(inst.Credentials.ApplicationID))
	cl.subscribe("1", topic)

	// Once the writer has delayed a frame, everything it wrote before is
	// out; a ping round trip brings it in, and it is thrown away.
	const delay = 80 * time.Millisecond
	before := inst.Faults.Counts().DelayedFrames
	inst.Faults.Set(faults.Config{Delay: delay})
	deadline := time.Now().Add(10 * time.Second)
	for inst.Faults.Counts().DelayedFrames == before {
		if time.Now().After(deadline) {
			t.Fatal("no frame delayed in 10s")
		}
		time.Sleep(5 * time.Millisecond)
	}
	cl.settle()
	cl.drain()
	for range 5 {
		f := cl.next("delayed update", func(m map[string]any) bool { return m["topic"] == topic })
		late := time.Since(time.UnixMilli(num(t, f["ts"])))
		if late < delay-5*time.Millisecond {
			t.Fatalf("frame arrived %v after its ts, delay is %v", late, delay)
		}
	}
	if inst.Faults.Counts().DelayedFrames == 0 {
		t.Fatal("delays not counted")
	}

	inst.Faults.Set(faults.Config{ReorderEvery: 3})
	backwards := 0
	var last int64
	for range 30 {
		f := cl.next("update", func(m map[string]any) bool { return m["topic"] == topic })
		ts := num(t, f["ts"])
		if ts < last {
			backwards++
		}
		last = ts
	}
	inst.Faults.Set(faults.Config{})
	if backwards < 5 || inst.Faults.Counts().Reordered < int64(backwards) {
		t.Fatalf("%d frames out of order, %d swaps counted", backwards, inst.Faults.Counts().Reordered)
	}
}
