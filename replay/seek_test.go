package replay_test

import (
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"tradedeck/record"
	"tradedeck/replay"
)

// synthetic writes a minute of one symbol: a trade every 100 ms and a
// full book push every second, one block a second.
func synthetic(t *testing.T) (string, time.Time) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "minute.tdrec")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	w, err := record.NewWriter(f, record.Header{Venue: "SIM", Symbols: []string{"SPOT_X_USDT"}})
	if err != nil {
		t.Fatal(err)
	}
	start := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	w.Append(record.Record{Kind: record.REST, Time: start.UnixNano() - 1, Key: []byte("GET /v1/public/info"), Data: []byte(`{"success":true,"rows":[]}`)})
	for i := 0; i < 600; i++ {
		at := start.Add(time.Duration(i) * 100 * time.Millisecond)
		ms := at.UnixMilli()
		w.Append(record.Record{Kind: record.Market, Time: at.UnixNano(),
			Data: fmt.Appendf(nil, `{"topic":"SPOT_X_USDT@trade","ts":%d,"data":{"symbol":"SPOT_X_USDT","price":%d,"size":1,"side":"BUY"}}`, ms, i)})
		if i%10 == 0 {
			w.Append(record.Record{Kind: record.Market, Time: at.UnixNano(),
				Data: fmt.Appendf(nil, `{"topic":"SPOT_X_USDT@orderbook","ts":%d,"data":{"symbol":"SPOT_X_USDT","asks":[["%d.5","2"]],"bids":[["%d","3"]]}}`, ms, i, i)})
			if err := w.Flush(); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return path, start
}

// --from far into a recording starts there with the state of that moment:
// the first frame sent is the first at the target, and the REST book is
// the last full book pushed before it.
func TestFromSeeksByBlock(t *testing.T) {
	path, start := synthetic(t)
	from := start.Add(45*time.Second + 50*time.Millisecond)
	srv, _ := play(t, replay.Options{Path: path, From: from, Paused: true, Settle: time.Millisecond})
	if n := len(srv.Summary().Blocks); n < 60 {
		t.Fatalf("%d blocks indexed", n)
	}
	resp, err := http.Get(srv.Endpoints.BaseURL + "/v1/public/orderbook/SPOT_X_USDT?max_level=100")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	want := fmt.Sprintf(`{"success":true,"asks":[{"price":"450.5","quantity":"2"}],"bids":[{"price":"450","quantity":"3"}],"timestamp":%d}`, start.Add(45*time.Second).UnixMilli())
	if string(body) != want {
		t.Fatalf("book at the target:\n%s\nwant\n%s", body, want)
	}
	c := dialAll(t, srv)
	srv.Step()
	env := c.push(5 * time.Second)
	if env.TS != start.Add(45*time.Second+100*time.Millisecond).UnixMilli() || !strings.Contains(string(env.Topic), "@trade") {
		t.Fatalf("first frame after --from: %s ts %d", env.Topic, env.TS)
	}
}
