package sim_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"tradedeck/internal/testkit"
	"tradedeck/sim"
	"tradedeck/sim/simtest"
	"tradedeck/venue"
)

// startSim runs the whole venue on loopback for the test's life.
func startSim(t testing.TB, opts sim.Options) *sim.Instance {
	t.Helper()
	opts.NoRateLimits = true
	return simtest.Start(t, opts)
}

// wsClient is a real Websocket client of the venue's streams.
type wsClient struct{ *testkit.WSClient }

func dialWS(t testing.TB, url string) *wsClient {
	t.Helper()
	return &wsClient{testkit.DialWS(t, url)}
}

func (cl *wsClient) send(s string) {
	cl.T.Helper()
	cl.Write([]byte(s))
}

// next returns the next frame matching pred, within 10 s.
func (cl *wsClient) next(what string, pred func(map[string]any) bool) map[string]any {
	cl.T.Helper()
	return cl.Next(10*time.Second, what, pred)
}

// each hands every frame that arrives within d to handle, in order.
func (cl *wsClient) each(d time.Duration, handle func(map[string]any)) {
	cl.T.Helper()
	end := time.After(d)
	for {
		select {
		case fm := <-cl.In:
			if fm.Err != nil {
				cl.T.Fatal(fm.Err)
			}
			handle(fm.M)
		case <-end:
			return
		}
	}
}

func (cl *wsClient) subscribe(id, topic string) {
	cl.T.Helper()
	cl.send(`{"id":"` + id + `","event":"subscribe","topic":"` + topic + `"}`)
	if m := cl.next("ack "+id, func(m map[string]any) bool { return m["id"] == id }); m["success"] != true {
		cl.T.Fatalf("subscribe %s: %v", topic, m)
	}
}

// authPrivate opens the private stream and authenticates it with creds.
func authPrivate(t testing.TB, inst *sim.Instance, creds venue.Credentials) *wsClient {
	t.Helper()
	cl := dialWS(t, inst.Endpoints.PrivateStreamURL(creds.ApplicationID))
	ts := time.Now().UnixMilli()
	cl.send(`{"id":"auth1","event":"auth","params":{"apikey":"` + creds.APIKey + `","sign":"` + venue.SignWS(creds.APISecret, ts) + `","timestamp":"` + strconv.FormatInt(ts, 10) + `"}}`)
	if m := cl.next("auth reply", func(m map[string]any) bool { return m["id"] == "auth1" }); m["success"] != true {
		t.Fatalf("auth: %v", m)
	}
	return cl
}

// signedREST sends a signed REST call and decodes the reply (numbers kept as json.Number).
func signedREST(t testing.TB, inst *sim.Instance, creds venue.Credentials, method, path string, params url.Values) (int, map[string]any) {
	t.Helper()
	canonical := venue.CanonicalParams(params)
	ts := time.Now().UnixMilli()
	target := inst.Endpoints.BaseURL + path
	var body io.Reader
	if method == http.MethodGet {
		if canonical != "" {
			target += "?" + canonical
		}
	} else {
		body = strings.NewReader(canonical)
	}
	req, err := http.NewRequest(method, target, body)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set(venue.HeaderKey, creds.APIKey)
	req.Header.Set(venue.HeaderTimestamp, strconv.FormatInt(ts, 10))
	req.Header.Set(venue.HeaderSignature, venue.Sign(creds.APISecret, canonical, ts))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	d := json.NewDecoder(resp.Body)
	d.UseNumber()
	var m map[string]any
	if err := d.Decode(&m); err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	return resp.StatusCode, m
}

func numStr(v any) string {
	switch v := v.(type) {
	case json.Number:
		return v.String()
	case string:
		return v
	}
	return ""
}
