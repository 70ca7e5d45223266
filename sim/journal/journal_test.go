package journal

import (
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
)

func appendN(t *testing.T, j *Journal, from, n int) {
	t.Helper()
	for i := from; i < from+n; i++ {
		seq := j.Append([]byte(fmt.Sprintf("record %d", i)))
		if err := j.Wait(seq); err != nil {
			t.Fatal(err)
		}
	}
}

func wantRecords(t *testing.T, base string, first, n int) {
	t.Helper()
	recs, dropped, err := Read(base)
	if err != nil || dropped != 0 {
		t.Fatalf("read: %v, %d bytes dropped", err, dropped)
	}
	if len(recs) != n {
		t.Fatalf("%d records, want %d", len(recs), n)
	}
	for i, r := range recs {
		if want := fmt.Sprintf("record %d", first+i); string(r.Payload) != want || r.Seq != int64(first+i) {
			t.Fatalf("record %d: seq %d %q, want %d %q", i, r.Seq, r.Payload, first+i, want)
		}
	}
}

func TestAppendWaitRead(t *testing.T) {
	base := filepath.Join(t.TempDir(), "state.json")
	j, err := Open(base, 1)
	if err != nil {
		t.Fatal(err)
	}
	appendN(t, j, 1, 10)
	wantRecords(t, base, 1, 10) // on disk before Close: Wait means written and synced
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestGroupCommit: concurrent appenders all get durable records.
func TestGroupCommit(t *testing.T) {
	base := filepath.Join(t.TempDir(), "state.json")
	j, err := Open(base, 1)
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 50 {
				if err := j.Wait(j.Append([]byte(fmt.Sprint(g, i)))); err != nil {
					t.Error(err)
				}
			}
		}()
	}
	wg.Wait()
	recs, _, _ := Read(base)
	if len(recs) != 400 {
		t.Fatalf("%d records, want 400", len(recs))
	}
	for i, r := range recs {
		if r.Seq != int64(i+1) {
			t.Fatalf("record %d has seq %d", i, r.Seq)
		}
	}
}

// TestTornRecordDropped: a crash in the middle of a write leaves part of a
// record; reading drops it (and only it), and a journal opened after it
// carries on.
func TestTornRecordDropped(t *testing.T) {
	for _, tear := range []struct {
		name string
		cut  func(b []byte) []byte
	}{
		{"header cut", func(b []byte) []byte { return b[:len(b)-len("record 5")-headerSize+3] }},
		{"payload cut", func(b []byte) []byte { return b[:len(b)-3] }},
		{"payload garbled", func(b []byte) []byte { b[len(b)-1] ^= 0xff; return b }},
	} {
		t.Run(tear.name, func(t *testing.T) {
			base := filepath.Join(t.TempDir(), "state.json")
			j, _ := Open(base, 1)
			appendN(t, j, 1, 5)
			j.Close()
			seg := segmentPath(base, 1)
			b, _ := os.ReadFile(seg)
			if err := os.WriteFile(seg, tear.cut(b), 0o600); err != nil {
				t.Fatal(err)
			}
			recs, dropped, err := Read(base)
			if err != nil || len(recs) != 4 || dropped == 0 {
				t.Fatalf("%d records, %d bytes dropped, %v; want 4 and the torn one dropped", len(recs), dropped, err)
			}
			j, err = Open(base, 5)
			if err != nil {
				t.Fatal(err)
			}
			appendN(t, j, 5, 2)
			j.Close()
			recs, _, _ = Read(base)
			if len(recs) != 6 || recs[5].Seq != 6 {
				t.Fatalf("after reopening: %d records", len(recs))
			}
		})
	}
}

// TestCheckpointDropsCoveredSegments: after a checkpoint at seq, only
// records after it remain to be read.
func TestCheckpointDropsCoveredSegments(t *testing.T) {
	base := filepath.Join(t.TempDir(), "state.json")
	j, _ := Open(base, 1)
	defer j.Close()
	appendN(t, j, 1, 5)
	if err := j.Checkpoint(3); err != nil { // records 4 and 5 are not in the snapshot yet
		t.Fatal(err)
	}
	appendN(t, j, 6, 2)
	recs, _, _ := Read(base)
	if len(recs) != 7 {
		t.Fatalf("%d records after a checkpoint at 3, want all 7 kept (4 and 5 share the first segment)", len(recs))
	}
	if err := j.Checkpoint(7); err != nil {
		t.Fatal(err)
	}
	appendN(t, j, 8, 1)
	wantRecords(t, base, 8, 1)
	if segs, _ := segments(base); len(segs) != 1 {
		t.Fatalf("segments left: %v", segs)
	}
}

// BenchmarkAppendWait is one 300-byte record made durable: a write and an
// fsync, alone (serial) and with 8 writers sharing fsyncs (group commit).
func BenchmarkAppendWait(b *testing.B) {
	payload := make([]byte, 300)
	for _, par := range []int{1, 8} {
		b.Run(fmt.Sprintf("writers-%d", par), func(b *testing.B) {
			j, err := Open(filepath.Join(b.TempDir(), "state.json"), 1)
			if err != nil {
				b.Fatal(err)
			}
			defer j.Close()
			b.SetParallelism(par)
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					if err := j.Wait(j.Append(payload)); err != nil {
						b.Fatal(err)
					}
				}
			})
		})
	}
}
