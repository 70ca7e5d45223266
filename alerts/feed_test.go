package alerts_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"

	"tradedeck/alerts"
	"tradedeck/feed"
	"tradedeck/sim"
	"tradedeck/sim/simtest"
	"tradedeck/venue"
)

// scriptedMarket is a market stream that acknowledges subscriptions and,
// once the tracked symbol's trades are subscribed, pushes a burst of
// trades back to back: the whole burst lands inside one frame.
func scriptedMarket(t *testing.T, symbol string, prices []string) *httptest.Server {
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, err := websocket.Accept(w, r, nil)
		if err != nil {
			return
		}
		defer func() { _ = c.CloseNow() }() // the test is over either way
		ctx := r.Context()
		for {
			_, msg, err := c.Read(ctx)
			if err != nil {
				return
			}
			var req struct{ ID, Event, Topic string }
			if json.Unmarshal(msg, &req) != nil || req.Event != "subscribe" {
				continue
			}
			ack := fmt.Sprintf(`{"id":%q,"event":"subscribe","success":true,"ts":%d}`, req.ID, time.Now().UnixMilli())
			if c.Write(ctx, websocket.MessageText, []byte(ack)) != nil {
				return
			}
			if req.Topic != symbol+"@trade" {
				continue
			}
			for _, p := range prices {
				f := fmt.Sprintf(`{"topic":"%s@trade","ts":%d,"data":{"symbol":%q,"price":%s,"size":1,"side":"BUY"}}`,
					symbol, time.Now().UnixMilli(), symbol, p)
				if c.Write(ctx, websocket.MessageText, []byte(f)) != nil {
					return
				}
			}
		}
	}))
}

// counter counts the trades the feed hands its observer, next to the
// engine, so the test knows when the whole burst went through.
type counter struct {
	*alerts.Engine
	mu     sync.Mutex
	trades int
	done   chan struct{}
	want   int
}

func (c *counter) ObserveTrade(symbol string, sc feed.Scale, tr feed.Trade) {
	c.Engine.ObserveTrade(symbol, sc, tr)
	c.mu.Lock()
	c.trades++
	if c.trades == c.want {
		close(c.done)
	}
	c.mu.Unlock()
}

// A real feed on a real socket: the price crosses the level and comes
// back three times inside one burst (well under one frame), and the last
// trade is below the level, which is all a frame would show. The alert
// fires exactly once.
func TestFeedCrossInsideOneFrameFiresOnce(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	inst := simtest.Start(t, sim.Options{Seed: 1, NoRateLimits: true})
	const sym = "SPOT_WOO_USDT"
	prices := []string{"0.5", "1.5", "0.5", "1.5", "0.5", "1.5", "0.5"}
	ws := scriptedMarket(t, sym, prices)
	defer ws.Close()

	fired := make(chan alerts.Fired, 16)
	e, err := alerts.NewEngine(alerts.Options{OnFire: func(f alerts.Fired) { fired <- f }})
	if err != nil {
		t.Fatal(err)
	}
	a, _ := alerts.Parse([]string{sym, "above", "1"}, nil)
	if _, err := e.Add(a); err != nil {
		t.Fatal(err)
	}
	obs := &counter{Engine: e, done: make(chan struct{}), want: len(prices)}
	ep := inst.Endpoints
	ep.WSMarketURL = strings.Replace(ws.URL, "http", "ws", 1)
	f := feed.New(feed.Config{Endpoints: ep, REST: venue.NewClient(ep, venue.Credentials{ApplicationID: "app"}),
		Observer: obs, NoAllTickers: true, FrameInterval: time.Second})
	f.Track(e.Symbols())
	go func() { _ = f.Run(ctx) }()
	go func() {
		for range f.Updates() {
		}
	}()
	select {
	case <-obs.done:
	case <-ctx.Done():
		t.Fatalf("the feed never handed the %d trades to its observer", len(prices))
	}
	select {
	case x := <-fired:
		if !strings.HasPrefix(x.Message, sym+" last 1.5") || !strings.HasSuffix(x.Message, "crossed above 1") {
			t.Fatalf("fired: %q", x.Message)
		}
	default:
		t.Fatal("the cross inside one frame did not fire")
	}
	select {
	case x := <-fired:
		t.Fatalf("fired twice: %+v", x)
	default:
	}
}
