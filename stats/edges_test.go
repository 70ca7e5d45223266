package stats

import (
	"testing"

	"github.com/shopspring/decimal"
)

// Sources with the same volume rank by name; an escaped digit and an
// exponent with a plus sign read as the numbers they spell.
func TestDecodeEdges(t *testing.T) {
	src, err := DecodeSourceStat(200, []byte(`{"status":"ok","data":[`+
		`{"id":"1","name":"b","volume_usd":"1000000000000000000","txs":1,"percentage":"25"},`+
		`{"id":"2","name":"c","volume_usd":"2000000000000000000","txs":1,"percentage":"50"},`+
		`{"id":"3","name":"a","volume_usd":"1000000000000000000","txs":1,"percentage":"25"}]}`))
	if err != nil || len(src) != 3 || src[0].Name != "c" || src[1].Name != "a" || src[2].Name != "b" {
		t.Fatalf("ranking %+v %v", src, err)
	}
	s, err := DecodeStat("bsc", "1w", 200, []byte(`{"status":"ok","data":[`+
		`{"id":"20410","timestamp":"1763424000","volume_usd":"12\u0033","traders":"1e+2","txs":"4"}]}`))
	if err != nil || !s.Rows[0].VolumeUSD.Equal(decimal.New(123, -18)) || s.Rows[0].Traders != 100 {
		t.Fatalf("%+v %v", s.Rows, err)
	}
	if got := trimFloat(1.23456); got != "1.23" {
		t.Fatalf("trimFloat(1.23456) = %q", got)
	}
}
