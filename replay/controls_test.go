package replay_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"os"
	"runtime"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"tradedeck/replay"
	"tradedeck/venue"
	"tradedeck/venue/stream"
)

// rawClient is a bare stream client: it subscribes to every recorded
// topic so each delivered frame reaches it.
type rawClient struct {
	t      *testing.T
	conn   *websocket.Conn
	queued [][]byte // pushes read while waiting for acknowledgements
}

// play opens a recording and serves it until the test ends; ctx ends
// with the test.
func play(t *testing.T, o replay.Options) (*replay.Server, context.Context) {
	t.Helper()
	srv, err := replay.Open(o)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	go srv.Run(ctx)
	return srv, ctx
}

func dialAll(t *testing.T, srv *replay.Server) *rawClient {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	conn, _, err := websocket.Dial(ctx, srv.Endpoints.MarketStreamURL("x"), nil) //nolint:bodyclose // coder/websocket closes the handshake response's body itself
	if err != nil {
		t.Fatal(err)
	}
	conn.SetReadLimit(16 << 20)
	c := &rawClient{t: t, conn: conn}
	var topics []string
	for tp := range srv.Summary().Topics {
		topics = append(topics, tp)
	}
	sort.Strings(topics)
	for i, tp := range topics {
		if err := conn.Write(ctx, websocket.MessageText, stream.AppendSubscribe(nil, "s"+string(rune('a'+i%26)), tp)); err != nil {
			t.Fatal(err)
		}
	}
	// Every subscription is acknowledged.
	for acked := 0; acked < len(topics); {
		f := c.read(5 * time.Second)
		var env stream.Envelope
		if stream.ParseEnvelope(f, &env) == nil && string(env.Event) == "subscribe" && env.Success {
			acked++
		} else if env.IsPush() {
			c.queued = append(c.queued, f)
		}
	}
	return c
}

// read returns the next frame, failing after d (a bound on a hang).
func (c *rawClient) read(d time.Duration) []byte {
	c.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	_, b, err := c.conn.Read(ctx)
	if err != nil {
		c.t.Fatalf("read: %v", err)
	}
	return b
}

func (c *rawClient) push(d time.Duration) stream.Envelope {
	c.t.Helper()
	for {
		var env stream.Envelope
		var f []byte
		if len(c.queued) > 0 {
			f, c.queued = c.queued[0], c.queued[1:]
		} else {
			f = c.read(d)
		}
		if stream.ParseEnvelope(f, &env) == nil && env.IsPush() {
			return env
		}
	}
}

func TestPauseStepSpeedJump(t *testing.T) {
	srv, _ := play(t, replay.Options{Path: fixture, Paused: true, Speed: 1, Settle: time.Millisecond})
	c := dialAll(t, srv)
	sum := srv.Summary()

	// Paused: each step delivers exactly one frame, in recorded order, and
	// the replay clock stands at its receive time.
	var lastTS int64
	for i := 0; i < 5; i++ {
		srv.Step()
		env := c.push(5 * time.Second)
		if env.TS < lastTS {
			t.Fatalf("step %d went back in time: ts %d after %d", i, env.TS, lastTS)
		}
		lastTS = env.TS
	}
	st := srv.Status()
	if !st.Paused || !st.Started || st.Now.Before(st.First) || st.Now.After(st.First.Add(2*time.Second)) {
		t.Fatalf("status after 5 steps: %+v", st)
	}
	frozen := srv.Now()
	if srv.Stats().Frames != 5 || !srv.Now().Equal(frozen) {
		t.Fatalf("paused replay moved: %d frames, clock %v then %v", srv.Stats().Frames, frozen, srv.Now())
	}

	// Jump: the stream connection is closed (the feed resyncs on
	// reconnect) and playback resumes at the target.
	target := time.Unix(0, sum.First).Add(3 * time.Second)
	srv.Jump(target)
	ctxR, cancelR := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancelR()
	for {
		if _, _, err := c.conn.Read(ctxR); err != nil {
			if websocket.CloseStatus(err) != websocket.StatusServiceRestart && !errors.Is(err, io.EOF) {
				t.Fatalf("after a jump the stream ends with %v", err)
			}
			break
		}
	}
	srv.SetSpeed(replay.Max)
	srv.SetPaused(false)
	c = dialAll(t, srv)
	first := c.push(5 * time.Second)
	if first.TS < target.UnixMilli()-1000 {
		t.Fatalf("first frame after the jump has ts %d, target %d", first.TS, target.UnixMilli())
	}
	select {
	case <-srv.Done():
	case <-time.After(20 * time.Second):
		t.Fatal("max speed never reached the end")
	}
	if st := srv.Status(); !st.Ended || !st.Now.Equal(st.Last) {
		t.Fatalf("at the end: %+v", st)
	}
}

// The REST side: the order book comes from the newest full book at the
// position; trading is refused; unknown requests say what is missing.
func TestRESTAtPosition(t *testing.T) {
	srv, ctx := play(t, replay.Options{Path: fixture, Paused: true})
	c := venue.NewClient(srv.Endpoints, venue.Credentials{})
	rules, err := c.SymbolRules(ctx)
	if err != nil || len(rules) == 0 {
		t.Fatalf("rules %d, %v", len(rules), err)
	}
	ob, err := c.OrderBook(ctx, "PERP_BTC_USDT", 100)
	if err != nil || len(ob.Asks) == 0 || len(ob.Bids) == 0 || !ob.Asks[0].Price.GreaterThan(ob.Bids[0].Price) {
		t.Fatalf("book %+v, %v", ob, err)
	}
	resp, err := http.Post(srv.Endpoints.BaseURL+"/v1/order", "application/x-www-form-urlencoded", strings.NewReader("symbol=PERP_BTC_USDT"))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden || !strings.Contains(string(body), "trading is disabled in a replay") {
		t.Fatalf("order: %d %s", resp.StatusCode, body)
	}
	_, err = c.FundingRates(ctx)
	if err == nil || !strings.Contains(err.Error(), "not in the recording") {
		t.Fatalf("an unrecorded request: %v", err)
	}
}

func TestOpenRefusesBadFiles(t *testing.T) {
	if _, err := replay.Open(replay.Options{Path: "testdata/nope.tdrec"}); err == nil {
		t.Fatal("a missing file opened")
	}
	if _, err := replay.Open(replay.Options{Path: "replay_test.go"}); err == nil || !strings.Contains(err.Error(), "offset 0: not a tradedeck recording") {
		t.Fatalf("not a recording: %v", err)
	}
	if _, err := replay.Open(replay.Options{Path: fixture, From: time.Unix(1, 0)}); err == nil || !strings.Contains(err.Error(), "outside the recording") {
		t.Fatalf("--from outside: %v", err)
	}
}

func TestCheckReport(t *testing.T) {
	rep, err := replay.Check(context.Background(), fixture)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Symbols) != 1 || rep.Symbols[0].Symbol != "PERP_BTC_USDT" || rep.Symbols[0].Gaps != 0 || rep.Symbols[0].TS != rep.Summary.LastBookTS["PERP_BTC_USDT"] {
		t.Fatalf("check: %+v", rep.Symbols)
	}
	var b strings.Builder
	rep.Print(&b)
	for _, want := range []string{"span ", "end       complete", "PERP_BTC_USDT@orderbookupdate", "book live", "gaps 0, resyncs 0"} {
		if !strings.Contains(b.String(), want) {
			t.Fatalf("report lacks %q:\n%s", want, b.String())
		}
	}
}

// BenchmarkReplayMax is the replay's speed at --speed max through a feed,
// in recorded frames per second.
func BenchmarkReplayMax(b *testing.B) {
	var frames uint64
	var elapsed time.Duration
	for i := 0; i < b.N; i++ {
		rep, err := replay.Check(context.Background(), fixture)
		if err != nil {
			b.Fatal(err)
		}
		frames += rep.Frames
		elapsed += rep.Elapsed
	}
	b.ReportMetric(float64(frames)/elapsed.Seconds(), "frames/s")
}

// BenchmarkSummarize is the cost of reading a recording through (what
// Open and every jump pay), in file bytes per second.
func BenchmarkSummarize(b *testing.B) {
	st, err := os.Stat(fixture)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(st.Size())
	for i := 0; i < b.N; i++ {
		if _, err := replay.Summarize(fixture); err != nil {
			b.Fatal(err)
		}
	}
}

// A client that floods requests without reading the replies is dropped
// instead of queueing replies without bound.
func TestFloodingClientDropped(t *testing.T) {
	srv, ctx := play(t, replay.Options{Path: fixture, Paused: true})
	conn, _, err := websocket.Dial(ctx, srv.Endpoints.MarketStreamURL("x"), nil) //nolint:bodyclose // coder/websocket closes the handshake response's body itself
	if err != nil {
		t.Fatal(err)
	}
	// Never read: the pongs pile up until the server gives up on us, and
	// meanwhile nothing in the server grows with them.
	base := runtime.NumGoroutine()
	ping := stream.AppendPing(nil)
	deadline := time.Now().Add(20 * time.Second)
	for i := 0; time.Now().Before(deadline); i++ {
		wctx, wcancel := context.WithTimeout(ctx, 5*time.Second)
		err := conn.Write(wctx, websocket.MessageText, ping)
		wcancel()
		if err != nil {
			return // dropped
		}
		if n := runtime.NumGoroutine(); i%1000 == 0 && n > base+100 {
			t.Fatalf("%d goroutines after %d unread requests (%d before)", n, i, base)
		}
	}
	t.Fatal("a client flooding requests without reading was still served after 20 s")
}
