package capture

import (
	"testing"

	"tradedeck/record"
)

// BenchRecorder exposes the recorder's per-frame path to benchmarks.
type BenchRecorder struct{ rc *Recorder }

func NewBenchRecorder(tb testing.TB, path string) *BenchRecorder {
	rc := &Recorder{opts: Options{}, prelude: map[string]record.Record{}}
	f, err := record.Create(record.FileOptions{Path: path})
	if err != nil {
		tb.Fatal(err)
	}
	rc.file = f
	return &BenchRecorder{rc: rc}
}

func (b *BenchRecorder) Frame(frame []byte, t int64) {
	b.rc.add(record.Record{Kind: record.Market, Time: t, Data: frame})
}

func (b *BenchRecorder) Flush() { _ = b.rc.flush() }
func (b *BenchRecorder) Close() { _ = b.rc.file.Close() }

func (b *BenchRecorder) Size() int64 { return b.rc.file.Size() }
