package capture_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"tradedeck/record"
	"tradedeck/record/capture"
	"tradedeck/replay"
	"tradedeck/sim"
	"tradedeck/sim/market"
	"tradedeck/sim/simtest"
	simws "tradedeck/sim/ws"
)

func startSim(t testing.TB) *sim.Instance {
	t.Helper()
	return simtest.Start(t, sim.Options{Seed: 9, NoRateLimits: true,
		Living: sim.LivingOptions{Rate: market.RateBusy, Streams: simws.Options{UpdateInterval: 50 * time.Millisecond}}})
}

// A recorder killed at any moment leaves a file readable up to its last
// flush: copy the file while the recorder still writes (what kill -9
// leaves on disk) and read the copy.
func TestKilledRecordingIsReadable(t *testing.T) {
	inst := startSim(t)
	dir := t.TempDir()
	out := filepath.Join(dir, "live.tdrec")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	flushed := make(chan capture.Stats, 100)
	done := make(chan error, 1)
	go func() {
		_, err := capture.Run(ctx, capture.Options{Endpoints: inst.Endpoints, Credentials: inst.Credentials, Venue: "SIM",
			Symbols: []string{"SPOT_BTC_USDT"}, Out: out, FlushEvery: 50 * time.Millisecond,
			Progress: func(s capture.Stats) {
				select {
				case flushed <- s:
				default:
				}
			}})
		done <- err
	}()
	var last capture.Stats
	for deadline := time.After(20 * time.Second); last.Market < 30; {
		select {
		case last = <-flushed:
		case <-deadline:
			t.Fatalf("recorder flushed only %d frames", last.Market)
		}
	}
	snapshot, err := os.ReadFile(out) // mid-recording: the file as a kill would leave it
	if err != nil {
		t.Fatal(err)
	}
	killed := filepath.Join(dir, "killed.tdrec")
	if err := os.WriteFile(killed, snapshot, 0o644); err != nil {
		t.Fatal(err)
	}
	sum, err := replay.Summarize(killed)
	if err != nil {
		t.Fatalf("a killed recording must read up to its last flush: %v", err)
	}
	if sum.Frames < 30 || sum.REST < 3 {
		t.Fatalf("killed recording holds %d frames, %d REST replies", sum.Frames, sum.REST)
	}
	// Cut it inside its last block, as a kill during a write does.
	cut := filepath.Join(dir, "cut.tdrec")
	if err := os.WriteFile(cut, snapshot[:len(snapshot)-7], 0o644); err != nil {
		t.Fatal(err)
	}
	sum2, err := replay.Summarize(cut)
	if err != nil || sum2.Truncated == nil || sum2.Truncated.Offset == 0 || sum2.Frames >= sum.Frames || sum2.REST < 3 {
		t.Fatalf("cut recording: %v, truncated %v, %d frames of %d", err, sum2.Truncated, sum2.Frames, sum.Frames)
	}
	if !strings.Contains(sum2.Truncated.Error(), "offset") {
		t.Fatalf("truncation error %q does not name the offset", sum2.Truncated)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

// Rotation: every part starts with the REST replies a replay needs, so a
// later part replays on its own.
func TestRotatedPartsReplayAlone(t *testing.T) {
	inst := startSim(t)
	out := filepath.Join(t.TempDir(), "rot.tdrec")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	st, err := capture.Run(ctx, capture.Options{Endpoints: inst.Endpoints, Venue: "SIM", Credentials: inst.Credentials,
		Symbols: []string{"SPOT_BTC_USDT"}, Out: out, MaxBytes: 40 << 10, FlushEvery: 50 * time.Millisecond,
		Progress: func(s capture.Stats) {
			if len(s.Parts) >= 3 {
				cancel()
			}
		}})
	if err != nil {
		t.Fatal(err)
	}
	if len(st.Parts) < 3 {
		t.Fatalf("parts %v", st.Parts)
	}
	if st.Parts[1] != record.PartPath(out, 2) {
		t.Fatalf("part 2 is %s", st.Parts[1])
	}
	sum, err := replay.Summarize(st.Parts[1])
	if err != nil {
		t.Fatal(err)
	}
	if sum.Header.Part != 2 || sum.REST < 3 || sum.Frames == 0 {
		t.Fatalf("part 2: header part %d, %d REST, %d frames", sum.Header.Part, sum.REST, sum.Frames)
	}
	srv, err := replay.Open(replay.Options{Path: st.Parts[1]})
	if err != nil {
		t.Fatal(err)
	}
	if srv.Summary().Header.Venue != "SIM" {
		t.Fatal("header lost")
	}
}

func TestUnknownSymbolRefused(t *testing.T) {
	inst := startSim(t)
	_, err := capture.Run(context.Background(), capture.Options{Endpoints: inst.Endpoints, Credentials: inst.Credentials,
		Symbols: []string{"SPOT_NOPE_USDT"}, Out: filepath.Join(t.TempDir(), "x.tdrec")})
	if err == nil || !strings.Contains(err.Error(), "unknown symbols: SPOT_NOPE_USDT") {
		t.Fatalf("err %v", err)
	}
}

// BenchmarkRecordFrame is the recorder's cost per received frame: the
// copy into the block under its lock, and the block's compression and
// write amortised (flushed every 60 frames: a busy market's second). The
// frames are the committed recording's, in order.
func BenchmarkRecordFrame(b *testing.B) {
	var frames [][]byte
	_, _, err := record.Scan("../../replay/testdata/sim-perp-btc.tdrec", func(r record.Record) error {
		if r.Kind == record.Market {
			frames = append(frames, append([]byte(nil), r.Data...))
		}
		return nil
	})
	if err != nil || len(frames) == 0 {
		b.Fatal(err)
	}
	total := 0
	for _, f := range frames {
		total += len(f)
	}
	rec := capture.NewBenchRecorder(b, filepath.Join(b.TempDir(), "bench.tdrec"))
	b.ReportAllocs()
	b.SetBytes(int64(total / len(frames)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		rec.Frame(frames[i%len(frames)], int64(i))
		if i%60 == 59 {
			rec.Flush()
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(rec.Size())/float64(b.N), "disk-B/frame")
	rec.Close()
}
