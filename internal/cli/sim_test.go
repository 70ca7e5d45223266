package cli

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"tradedeck/sim"
)

func TestSimBannerJSONIsOneObjectLine(t *testing.T) {
	inst, err := sim.Start(context.Background(), sim.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer inst.Close()
	var out bytes.Buffer
	printSimBanner(&out, inst, true)
	line, _ := bufio.NewReader(&out).ReadString('\n')
	var m map[string]string
	if err := json.Unmarshal([]byte(line), &m); err != nil {
		t.Fatalf("first line %q: %v", line, err)
	}
	want := []string{"base_url", "public_history_url", "ws_market_url", "ws_private_url", "stats_url", "api_key", "api_secret", "application_id"}
	if len(m) != len(want) {
		t.Fatalf("keys %v", m)
	}
	for _, k := range want {
		if m[k] == "" {
			t.Fatalf("%s missing in %q", k, line)
		}
	}
	if m["base_url"] != inst.Endpoints.BaseURL || m["api_secret"] != inst.Credentials.APISecret {
		t.Fatalf("banner %v", m)
	}
	out.Reset()
	printSimBanner(&out, inst, false)
	if !strings.Contains(out.String(), inst.Endpoints.BaseURL) || !strings.Contains(out.String(), inst.Credentials.APIKey) {
		t.Fatalf("text banner %q", out.String())
	}
	// the Websocket URLs are printed as [live] takes them: bases, no stream path
	for _, u := range []string{inst.Endpoints.WSMarketURL, inst.Endpoints.WSPrivateURL} {
		if !strings.Contains(out.String(), u+"\n") {
			t.Fatalf("text banner lacks %s on its own: %q", u, out.String())
		}
	}
	if strings.Contains(out.String(), "/ws/stream/") || strings.Contains(out.String(), "/ws/private/") {
		t.Fatalf("text banner has stream paths: %q", out.String())
	}
}
