package proc

import (
	"runtime/metrics"
	"testing"
)

// The limit stays at memLimit for the dashboard's usual heap, follows a
// heap that really holds more with room to grow by as much, and stops at
// memLimitMax.
func TestLimitFollowsTheLiveHeap(t *testing.T) {
	for _, c := range []struct {
		live uint64
		want int64
	}{
		{0, memLimit},
		{5 << 20, memLimit},
		{6 << 20, memLimit},
		{20 << 20, 43 << 20},
		{200 << 20, memLimitMax},
	} {
		if got := limitFor(c.live); got != c.want {
			t.Errorf("live %d MiB: limit %d MiB, want %d MiB", c.live>>20, got>>20, c.want>>20)
		}
	}
}

// The metric the limit reads exists in this Go (a missing one reads as
// KindBad and zero: the limit would never follow).
func TestLiveHeapMetricExists(t *testing.T) {
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		t.Fatalf("%s: kind %v", s[0].Name, s[0].Value.Kind())
	}
}
