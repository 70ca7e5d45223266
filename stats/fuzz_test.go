package stats

import (
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
	"time"

	"tradedeck/sim/swapstats"
)

// seedFiles adds the testdata files matching pattern to f's corpus.
func seedFiles(f *testing.F, pattern string) {
	files, _ := filepath.Glob(filepath.Join("testdata", pattern))
	for _, name := range files {
		b, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
}

// Malformed replies produce errors, never panics, and whatever decodes
// keeps the invariants the charts rely on.
func FuzzDecode(f *testing.F) {
	seedFiles(f, "*.json")
	f.Add([]byte(`{"status":"ok","data":[{"id":"1","timestamp":"3600","volume_usd":"1e99","traders":"1","txs":"1"}]}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		for _, p := range []string{"1d", "1w"} {
			s, err := DecodeStat("bsc", p, 200, body)
			if err != nil {
				continue
			}
			for i, r := range s.Rows {
				if r.VolumeUSD.IsNegative() || r.Traders < 0 || r.Trades < 0 || (i > 0 && !r.Time.After(s.Rows[i-1].Time)) {
					t.Fatalf("bad row %d: %+v", i, r)
				}
			}
			_ = s.Totals()
			_ = s.Buckets(37)
		}
		if src, err := DecodeSourceStat(200, body); err == nil {
			for _, x := range src {
				if x.VolumeUSD.IsNegative() || x.Trades < 0 || x.Name == "" {
					t.Fatalf("bad source %+v", x)
				}
			}
		}
	})
}

func BenchmarkDecodeStatAll(b *testing.B) {
	body := simBody(b, "/stat?network=bsc&period=all")
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := DecodeStat("bsc", "all", 200, body); err != nil {
			b.Fatal(err)
		}
	}
}

func simBody(b *testing.B, path string) []byte {
	s := swapstats.New(42, func() time.Time { return simNow })
	rec := httptest.NewRecorder()
	s.Handler().ServeHTTP(rec, httptest.NewRequest("GET", path, nil))
	return rec.Body.Bytes()
}
