package cli

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The command talks HTTP to an in-process simulated service on loopback.
func TestStatsCommand(t *testing.T) {
	var out bytes.Buffer
	if err := statsMain([]string{"--network", "avax", "--period", "1w", "--sources"}, &out); err != nil {
		t.Fatal(err)
	}
	text := out.String()
	for _, want := range []string{"network avax  period 1w", "VOLUME USD", "TOTAL", "volume change vs the previous 1w:", "SOURCES", "WOOFi", "(simulated)"} {
		if !strings.Contains(text, want) {
			t.Errorf("table lacks %q:\n%s", want, text)
		}
	}
	days := 0
	for _, line := range strings.Split(text, "\n") {
		if f := strings.Fields(line); len(f) == 5 && len(f[0]) == 10 && f[0][4] == '-' {
			days++
		}
	}
	if days != 7 {
		t.Errorf("%d day rows in a week:\n%s", days, text)
	}

	out.Reset()
	if err := statsMain([]string{"--network", "bsc", "--period", "1d", "--json", "--sources"}, &out); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Network string
		Hourly  bool
		Rows    []struct {
			VolumeUSD string `json:"volume_usd"`
		}
		Sources []struct{ Percentage string }
	}
	if err := json.Unmarshal(out.Bytes(), &doc); err != nil || doc.Network != "bsc" || !doc.Hourly || len(doc.Rows) != 24 || len(doc.Sources) == 0 || doc.Rows[0].VolumeUSD == "" {
		t.Fatalf("json: %v %+v", err, doc)
	}

	out.Reset()
	if err := statsMain([]string{"--period", "1m", "--csv"}, &out); err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(&out).ReadAll()
	if err != nil || len(recs) != 31 || recs[0][2] != "volume_usd" || recs[1][5] == "" {
		t.Fatalf("csv: %v %d records %v", err, len(recs), recs[:1])
	}

	for _, args := range [][]string{{"--period", "2w"}, {"--json", "--csv"}, {"--network", "solana"}, {"--live", "--config", unreachableStats(t), "--timeout", "2s"}} {
		if err := statsMain(args, &out); err == nil {
			t.Errorf("%v: no error", args)
		}
	}
}

// unreachableStats is a config whose live stats service refuses connections.
func unreachableStats(t *testing.T) string {
	p := filepath.Join(t.TempDir(), "config.toml")
	if err := os.WriteFile(p, []byte("[live]\nstats_url = \"http://127.0.0.1:1\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}
