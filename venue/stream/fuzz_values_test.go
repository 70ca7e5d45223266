package stream

import (
	"bytes"
	"encoding/json"
	"math/big"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"testing"

	"tradedeck/fixed"
)

// An independent reading of the same frames: encoding/json for the
// structure, math/big for the numbers. The fuzz properties below require
// the hot decoders to agree with it on every value whenever both accept
// a frame, and what they decoded to survive encode -> decode unchanged.

var numberLiteral = regexp.MustCompile(`^-?([0-9]+(\.[0-9]*)?|\.[0-9]+)([eE][+-]?[0-9]{1,3})?$`)

// member is one key of an object with its raw value, in frame order
// (duplicates kept: the decoders append repeated arrays and let the last
// scalar win).
type member struct {
	key string
	raw json.RawMessage
}

func members(raw []byte) ([]member, bool) {
	d := json.NewDecoder(bytes.NewReader(raw))
	if t, err := d.Token(); err != nil || t != json.Delim('{') {
		return nil, false
	}
	var out []member
	for d.More() {
		t, err := d.Token()
		if err != nil {
			return nil, false
		}
		k, _ := t.(string)
		var v json.RawMessage
		if err := d.Decode(&v); err != nil {
			return nil, false
		}
		out = append(out, member{k, v})
	}
	return out, true
}

// refNumber reads a number (bare, quoted, null or "") scaled by 10^dec;
// ok is false when it is not an exact int64 there (or not a number).
func refNumber(raw json.RawMessage, dec int) (int64, bool) {
	s := string(raw)
	if s == "null" || s == `""` {
		return 0, true
	}
	if len(s) > 0 && s[0] == '"' {
		if json.Unmarshal(raw, &s) != nil {
			return 0, false
		}
	}
	if len(s) > 100 || !numberLiteral.MatchString(s) {
		return 0, false
	}
	r, ok := new(big.Rat).SetString(s)
	if !ok {
		return 0, false
	}
	r.Mul(r, new(big.Rat).SetInt(new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(dec)), nil)))
	if !r.IsInt() || !r.Num().IsInt64() || r.Num().Int64() == -1<<63 {
		return 0, false
	}
	return r.Num().Int64(), true
}

// refLevels reads an array of levels, [price, qty, ...] or
// {"price", "quantity"|"size"} (last one wins).
func refLevels(raw json.RawMessage, pd, qd int) ([]Level, bool) {
	var elems []json.RawMessage
	if json.Unmarshal(raw, &elems) != nil {
		return nil, false
	}
	var out []Level
	for _, e := range elems {
		var l Level
		var pOK, qOK bool
		var arr []json.RawMessage
		if json.Unmarshal(e, &arr) == nil {
			if len(arr) < 2 {
				return nil, false
			}
			l.Price, pOK = refNumber(arr[0], pd)
			l.Qty, qOK = refNumber(arr[1], qd)
		} else {
			ms, ok := members(e)
			if !ok {
				return nil, false
			}
			pOK, qOK = true, true
			for _, m := range ms {
				switch m.key {
				case "price":
					l.Price, pOK = refNumber(m.raw, pd)
				case "quantity", "size":
					l.Qty, qOK = refNumber(m.raw, qd)
				}
				if !pOK || !qOK {
					return nil, false
				}
			}
		}
		if !pOK || !qOK || l.Price < 0 || l.Qty < 0 {
			return nil, false
		}
		out = append(out, l)
	}
	return out, true
}

func appendLevels(b []byte, ls []Level, pd, qd int) []byte {
	b = append(b, '[')
	for i, l := range ls {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `["`...)
		b = fixed.Append(b, l.Price, pd)
		b = append(b, `",`...)
		b = fixed.Append(b, l.Qty, qd)
		b = append(b, ']')
	}
	return append(b, ']')
}

func fuzzFrames(f *testing.F) {
	files, _ := filepath.Glob("testdata/*.json")
	for _, p := range files {
		b, _ := os.ReadFile(p)
		var e Envelope
		if ParseEnvelope(b, &e) == nil && e.Data != nil {
			f.Add(append([]byte(nil), e.Data...), uint8(2), uint8(4))
		}
	}
	for _, s := range []string{
		`{"asks":[[65432.1,"0.25"],["65432.2",1e-4]],"bids":[[65432.0,0.5,3]]}`,
		`{"asks":[{"price":"0.12345","quantity":"1000"}],"bids":[{"price":0.1234,"size":"5e2"}]}`,
		`{"asks":[[1,2]],"asks":[[3,4]],"bids":[]}`,
		`{"asks":[[1.005,2]],"bids":[[null,""]]}`,
		`{"symbol":"SPOT_BTC_USDT","ask":97001.00,"askSize":"0.5","bid":"97000","bidSize":1.25}`,
		`{"symbol":"PERP_ETH_USDT","price":"3456.78","size":0.125,"side":"SELL"}`,
	} {
		f.Add([]byte(s), uint8(2), uint8(4))
	}
}

// FuzzBookValues: DecodeBook's levels equal the independent reading; its
// output, written back as a frame, decodes to the same levels.
func FuzzBookValues(f *testing.F) {
	fuzzFrames(f)
	f.Fuzz(func(t *testing.T, data []byte, pd8, qd8 uint8) {
		pd, qd := int(pd8%13), int(qd8%13)
		var d BookData
		if DecodeBook(data, pd, qd, &d) != nil {
			return
		}
		if ms, ok := members(data); ok && json.Valid(data) {
			var asks, bids []Level
			refOK := true
			for _, m := range ms {
				switch m.key {
				case "asks", "bids":
					ls, ok := refLevels(m.raw, pd, qd)
					refOK = refOK && ok
					if m.key == "asks" {
						asks = append(asks, ls...)
					} else {
						bids = append(bids, ls...)
					}
				}
			}
			if refOK && (!slices.Equal(d.Asks, asks) || !slices.Equal(d.Bids, bids)) {
				t.Fatalf("%s at %d/%d decimals:\n decoded %v / %v\n big.Rat %v / %v", data, pd, qd, d.Asks, d.Bids, asks, bids)
			}
		}
		frame := append([]byte(`{"asks":`), appendLevels(nil, d.Asks, pd, qd)...)
		frame = append(append(frame, `,"bids":`...), appendLevels(nil, d.Bids, pd, qd)...)
		frame = append(frame, '}')
		var again BookData
		if err := DecodeBook(frame, pd, qd, &again); err != nil || !slices.Equal(again.Asks, d.Asks) || !slices.Equal(again.Bids, d.Bids) {
			t.Fatalf("re-encoded %s decodes to %v / %v (%v), want %v / %v", frame, again.Asks, again.Bids, err, d.Asks, d.Bids)
		}
	})
}

// FuzzBBOAndTradeValues: the scalar decoders agree with the independent
// reading (the last of repeated keys wins) and survive encode -> decode.
func FuzzBBOAndTradeValues(f *testing.F) {
	fuzzFrames(f)
	f.Fuzz(func(t *testing.T, data []byte, pd8, qd8 uint8) {
		pd, qd := int(pd8%13), int(qd8%13)
		ms, ok := members(data)
		ok = ok && json.Valid(data)
		ref := func(key string, dec int) (int64, bool) {
			var v int64
			vok := true
			for _, m := range ms {
				if m.key == key {
					v, vok = refNumber(m.raw, dec)
				}
			}
			return v, vok
		}
		var b BBO
		if DecodeBBO(data, pd, qd, &b) == nil {
			got := [4]int64{b.Ask, b.AskSize, b.Bid, b.BidSize}
			var want [4]int64
			all := ok
			for i, k := range []string{"ask", "askSize", "bid", "bidSize"} {
				dec := pd
				if i%2 == 1 {
					dec = qd
				}
				var vok bool
				want[i], vok = ref(k, dec)
				all = all && vok
			}
			if all && got != want {
				t.Fatalf("bbo %s at %d/%d: decoded %v, big.Rat %v", data, pd, qd, got, want)
			}
			frame := []byte(`{"ask":` + fixed.Format(b.Ask, pd) + `,"askSize":"` + fixed.Format(b.AskSize, qd) +
				`","bid":` + fixed.Format(b.Bid, pd) + `,"bidSize":` + fixed.Format(b.BidSize, qd) + `}`)
			var again BBO
			if err := DecodeBBO(frame, pd, qd, &again); err != nil || [4]int64{again.Ask, again.AskSize, again.Bid, again.BidSize} != got {
				t.Fatalf("re-encoded %s decodes to %+v (%v)", frame, again, err)
			}
		}
		var tr Trade
		if DecodeTrade(data, pd, qd, &tr) == nil {
			p, pok := ref("price", pd)
			q, qok := ref("size", qd)
			if ok && pok && qok && (tr.Price != p || tr.Size != q) {
				t.Fatalf("trade %s at %d/%d: decoded %d x %d, big.Rat %d x %d", data, pd, qd, tr.Price, tr.Size, p, q)
			}
			side := "BUY"
			if tr.Side == SideSell {
				side = "SELL"
			}
			frame := []byte(`{"price":"` + fixed.Format(tr.Price, pd) + `","size":` + fixed.Format(tr.Size, qd) + `,"side":"` + side + `"}`)
			var again Trade
			if err := DecodeTrade(frame, pd, qd, &again); err != nil || again.Price != tr.Price || again.Size != tr.Size || again.Side != tr.Side {
				t.Fatalf("re-encoded %s decodes to %+v (%v), want %+v", frame, again, err, tr)
			}
		}
	})
}
