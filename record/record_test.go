package record

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"
)

func sampleRecords(n int) []Record {
	out := make([]Record, n)
	for i := range out {
		out[i] = Record{Kind: Market, Time: int64(1_700_000_000_000_000_000 + i*1_000_000),
			Data: fmt.Appendf(nil, `{"topic":"SPOT_BTC_USDT@orderbookupdate","ts":%d,"data":{"asks":[["6%d.5",1.2]]}}`, 1_700_000_000_000+i, i)}
		if i%7 == 0 {
			out[i] = Record{Kind: REST, Time: out[i].Time, Key: []byte("GET /v1/public/info"), Data: []byte(`{"success":true,"rows":[]}`)}
		}
	}
	return out
}

// writeFile writes recs in blocks of per records and returns the bytes.
func writeFile(t testing.TB, recs []Record, per int) []byte {
	var buf bytes.Buffer
	w, err := NewWriter(&buf, Header{Venue: "SIM", Symbols: []string{"SPOT_BTC_USDT"}})
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range recs {
		w.Append(r)
		if (i+1)%per == 0 {
			if err := w.Flush(); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func readAll(b []byte) ([]Record, error) {
	rd, err := NewReader(bytes.NewReader(b))
	if err != nil {
		return nil, err
	}
	defer rd.Close()
	var out []Record
	for {
		r, err := rd.Next()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		out = append(out, r.Clone())
	}
}

func TestRoundTrip(t *testing.T) {
	recs := sampleRecords(100)
	b := writeFile(t, recs, 13)
	got, err := readAll(b)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(recs) {
		t.Fatalf("read %d records, wrote %d", len(got), len(recs))
	}
	for i := range recs {
		if got[i].Kind != recs[i].Kind || got[i].Time != recs[i].Time || !bytes.Equal(got[i].Key, recs[i].Key) || !bytes.Equal(got[i].Data, recs[i].Data) {
			t.Fatalf("record %d: got %+v want %+v", i, got[i], recs[i])
		}
	}
	rd, _ := NewReader(bytes.NewReader(b))
	if h := rd.Header(); h.Format != Version || h.Venue != "SIM" || h.Symbols[0] != "SPOT_BTC_USDT" {
		t.Fatalf("header %+v", h)
	}
}

// A file cut anywhere (a kill mid-write) yields every record of the
// complete blocks before the cut, then a Truncated error naming the
// offset of the block that was cut.
func TestTruncatedAnywhere(t *testing.T) {
	recs := sampleRecords(40)
	b := writeFile(t, recs, 10)
	// Block boundaries: where each block starts.
	var starts []int64
	rd, _ := NewReader(bytes.NewReader(b))
	for {
		if _, err := rd.Next(); err != nil {
			break
		}
		if len(starts) == 0 || starts[len(starts)-1] != rd.BlockOffset() {
			starts = append(starts, rd.BlockOffset())
		}
	}
	if len(starts) != 4 {
		t.Fatalf("%d blocks, want 4", len(starts))
	}
	for cut := 0; cut < len(b); cut++ {
		got, err := readAll(b[:cut])
		var fe *FormatError
		if !errors.As(err, &fe) {
			if cut >= int(starts[0]) && isBoundary(starts, int64(cut)) {
				continue // a cut exactly between blocks is a clean, shorter file
			}
			t.Fatalf("cut at %d: err %v, want a FormatError", cut, err)
		}
		complete := 0
		for i, s := range starts {
			if int64(cut) >= s+blockEnd(starts, i, int64(len(b)))-s {
				complete = i + 1
			}
		}
		if len(got) != complete*10 {
			t.Fatalf("cut at %d: %d records before the error, want %d (%v)", cut, len(got), complete*10, err)
		}
		if cut >= int(starts[0]) && (!fe.Truncated || fe.Offset != starts[complete]) {
			t.Fatalf("cut at %d: %v (truncated %v), want truncation at offset %d", cut, fe, fe.Truncated, starts[complete])
		}
	}
}

func isBoundary(starts []int64, cut int64) bool {
	for _, s := range starts {
		if s == cut {
			return true
		}
	}
	return false
}

func blockEnd(starts []int64, i int, size int64) int64 {
	if i+1 < len(starts) {
		return starts[i+1]
	}
	return size
}

// Every flipped byte is either harmless or reported with its offset;
// never a panic, never silently different data inside a block.
func TestCorruptedByte(t *testing.T) {
	recs := sampleRecords(30)
	b := writeFile(t, recs, 10)
	for i := 0; i < len(b); i++ {
		c := append([]byte(nil), b...)
		c[i] ^= 0x41
		got, err := readAll(c)
		if err == nil {
			// Only the header JSON can absorb a flip (a changed letter
			// in a string); records must be intact.
			if len(got) != len(recs) {
				t.Fatalf("flip at %d: %d records and no error", i, len(got))
			}
			continue
		}
		var fe *FormatError
		if !errors.As(err, &fe) {
			t.Fatalf("flip at %d: %v is not a FormatError", i, err)
		}
		// A flip in the header's length field surfaces at the JSON it
		// misplaces; anywhere else the error starts at or before it.
		if fe.Offset > int64(i) && i >= fileHeadLen {
			t.Fatalf("flip at %d reported at offset %d (after it)", i, fe.Offset)
		}
	}
}

func TestNotARecording(t *testing.T) {
	_, err := readAll([]byte("hello, world: not a recording at all"))
	if err == nil || err.Error() != "recording: offset 0: not a tradedeck recording (bad magic)" {
		t.Fatalf("err %v", err)
	}
	_, err = readAll(nil)
	var fe *FormatError
	if !errors.As(err, &fe) || !fe.Truncated || fe.Offset != 0 {
		t.Fatalf("empty file: %v", err)
	}
}

func TestRotation(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "rec.tdrec")
	prelude := Record{Kind: REST, Time: 1, Key: []byte("GET /v1/public/info"), Data: []byte(`{"success":true}`)}
	rf, err := Create(FileOptions{Path: path, MaxBytes: 2000, Header: Header{Venue: "SIM"},
		Prelude: func() []Record { return []Record{prelude} }})
	if err != nil {
		t.Fatal(err)
	}
	recs := sampleRecords(300)
	for i, r := range recs {
		rf.Append(r)
		if i%20 == 19 {
			if err := rf.Flush(); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := rf.Close(); err != nil {
		t.Fatal(err)
	}
	paths := rf.Paths()
	if len(paths) < 2 {
		t.Fatalf("no rotation: %v", paths)
	}
	if paths[1] != filepath.Join(dir, "rec.2.tdrec") {
		t.Fatalf("second part %s", paths[1])
	}
	total := 0
	for n, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		got, err := readAll(b)
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		if got[0].Kind != REST || string(got[0].Key) != "GET /v1/public/info" {
			t.Fatalf("part %d does not start with the prelude: %+v", n+1, got[0])
		}
		rd, _ := NewReader(bytes.NewReader(b))
		if rd.Header().Part != n+1 {
			t.Fatalf("part %d header says part %d", n+1, rd.Header().Part)
		}
		total += len(got) - 1
		if n < len(paths)-1 && int64(len(b)) > 2000+4000 {
			t.Fatalf("part %d is %d bytes, cap 2000 (+ one block)", n+1, len(b))
		}
	}
	if total != len(recs) {
		t.Fatalf("%d records over the parts, wrote %d", total, len(recs))
	}
}

func FuzzReader(f *testing.F) {
	f.Add(writeFile(f, sampleRecords(20), 7))
	f.Add([]byte(fileMagic))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, b []byte) {
		rd, err := NewReader(bytes.NewReader(b))
		if err != nil {
			var fe *FormatError
			if !errors.As(err, &fe) {
				t.Fatalf("header error %v is not a FormatError", err)
			}
			return
		}
		defer rd.Close()
		for i := 0; ; i++ {
			_, err := rd.Next()
			if errors.Is(err, io.EOF) {
				return
			}
			if err != nil {
				var fe *FormatError
				if !errors.As(err, &fe) || fe.Offset < 0 || fe.Offset > int64(len(b)) {
					t.Fatalf("error %v: not a FormatError within the file", err)
				}
				if _, again := rd.Next(); again == nil {
					t.Fatal("reader went on after an error")
				}
				return
			}
		}
	})
}

func BenchmarkAppend(b *testing.B) {
	rec := sampleRecords(2)[1]
	w, _ := NewWriter(io.Discard, Header{})
	b.ReportAllocs()
	b.SetBytes(int64(len(rec.Data)))
	for i := 0; i < b.N; i++ {
		w.Append(rec)
		if w.Buffered() > 256<<10 {
			_ = w.Flush()
		}
	}
}
