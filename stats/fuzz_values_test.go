package stats

import (
	"bytes"
	"encoding/json"
	"math/big"
	"regexp"
	"strings"
	"testing"
)

var plainNumber = regexp.MustCompile(`^[0-9]+(\.[0-9]+)?([eE][+-]?[0-9]{1,2})?$`) // the grammar DecodeStat documents, non-negative

// refField reads a field the independent way: json.Number or a string
// holding a plain non-negative decimal, as an exact rational.
func refField(m map[string]json.RawMessage, key string) (*big.Rat, bool) {
	raw, ok := m[key]
	if !ok {
		return nil, false
	}
	var s string
	if json.Unmarshal(raw, &s) != nil {
		var n json.Number
		if json.Unmarshal(raw, &n) != nil {
			return nil, false
		}
		s = n.String()
	}
	if len(s) > 200 || !plainNumber.MatchString(s) {
		return nil, false
	}
	return new(big.Rat).SetString(s)
}

// fields reads a row's members in order with JSON's field matching: case
// folded, the last of repeated keys wins.
func fields(t *testing.T, raw json.RawMessage) map[string]json.RawMessage {
	d := json.NewDecoder(bytes.NewReader(raw))
	if tok, err := d.Token(); err != nil || tok != json.Delim('{') {
		t.Fatalf("row %s is not an object", raw)
	}
	m := map[string]json.RawMessage{}
	for d.More() {
		tok, err := d.Token()
		if err != nil {
			t.Fatal(err)
		}
		var v json.RawMessage
		if err := d.Decode(&v); err != nil {
			t.Fatal(err)
		}
		for _, k := range []string{"id", "timestamp", "volume_usd", "traders", "txs", "txns"} {
			if strings.EqualFold(tok.(string), k) {
				m[k] = v
			}
		}
	}
	return m
}

// FuzzStatValues: whatever DecodeStat accepts equals an independent
// reading of the same reply (encoding/json maps, math/big numbers): the
// 1e18-scaled volume to the last digit, the counts, the time from the
// timestamp; nothing is invented or dropped.
func FuzzStatValues(f *testing.F) {
	seedFiles(f, "stat_*.json")
	f.Add([]byte(`{"status":"ok","data":[{"id":"20000","timestamp":"1728000000","volume_usd":"1","traders":0,"txs":"0"}]}`))
	f.Add([]byte(`{"status":"ok","data":[{"id":20000,"timestamp":1728000000,"volume_usd":123456789012345678901234567890,"traders":"7","txns":9}]}`))
	f.Add([]byte(`{"status":"ok","data":[{"id":"20000","timestamp":"1728000000","volume_usd":"0.5","traders":"1","txs":"1","txns":"1"}]}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		s, err := DecodeStat("bsc", "1w", 200, body)
		if err != nil {
			return
		}
		var env struct{ Data []json.RawMessage }
		if json.Unmarshal(body, &env) != nil {
			t.Fatalf("DecodeStat accepted what encoding/json cannot read: %q", body)
		}
		if len(env.Data) != len(s.Rows) {
			t.Fatalf("%d rows decoded from %d", len(s.Rows), len(env.Data))
		}
		scale := new(big.Rat).SetInt(new(big.Int).Exp(big.NewInt(10), big.NewInt(18), nil))
		byID := map[string]map[string]json.RawMessage{}
		for _, raw := range env.Data {
			m := fields(t, raw)
			id, ok := refField(m, "id")
			if !ok || !id.IsInt() {
				t.Fatalf("row id %s accepted", m["id"])
			}
			byID[id.Num().String()] = m
		}
		for _, r := range s.Rows {
			m := byID[big.NewInt(r.ID).String()]
			if m == nil {
				t.Fatalf("row %d not in the reply", r.ID)
			}
			vol, ok := refField(m, "volume_usd")
			if !ok {
				t.Fatalf("row %d: volume %s accepted", r.ID, m["volume_usd"])
			}
			got, ok := new(big.Rat).SetString(r.VolumeUSD.String())
			if !ok || got.Cmp(new(big.Rat).Quo(vol, scale)) != 0 {
				t.Fatalf("row %d: volume %s decoded as %s USD", r.ID, m["volume_usd"], r.VolumeUSD)
			}
			ts, _ := refField(m, "timestamp")
			if ts == nil || !ts.IsInt() || ts.Num().Int64() != r.Time.Unix() {
				t.Fatalf("row %d: timestamp %s decoded as %v", r.ID, m["timestamp"], r.Time)
			}
			tr, _ := refField(m, "traders")
			if tr == nil || !tr.IsInt() || tr.Num().Int64() != r.Traders {
				t.Fatalf("row %d: traders %s decoded as %d", r.ID, m["traders"], r.Traders)
			}
			tx, ok := refField(m, "txns")
			if !ok {
				tx, _ = refField(m, "txs")
			}
			if tx == nil || !tx.IsInt() || tx.Num().Int64() != r.Trades {
				t.Fatalf("row %d: trades %s/%s decoded as %d", r.ID, m["txs"], m["txns"], r.Trades)
			}
		}
	})
}
