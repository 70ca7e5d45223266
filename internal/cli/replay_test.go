package cli

import (
	"testing"
	"time"

	"tradedeck/internal/app"
)

func TestParseReplayTime(t *testing.T) {
	first := time.Date(2026, 11, 24, 19, 1, 10, 362e6, time.UTC)
	for in, want := range map[string]time.Time{
		"+90s":                      first.Add(90 * time.Second),
		"19:05":                     time.Date(2026, 11, 24, 19, 5, 0, 0, time.UTC),
		"19:05:03.250":              time.Date(2026, 11, 24, 19, 5, 3, 250e6, time.UTC),
		"2026-11-24T20:05:00+01:00": time.Date(2026, 11, 24, 19, 5, 0, 0, time.UTC),
	} {
		got, err := parseReplayTime(in, first)
		if err != nil || !got.Equal(want) {
			t.Errorf("%s: %v %v, want %v", in, got, err, want)
		}
	}
	for _, bad := range []string{"soon", "+x", "25:00"} {
		if _, err := parseReplayTime(bad, first); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

func TestParseSpeedAndSize(t *testing.T) {
	for in, want := range map[string]float64{"max": 0, "MAX": 0, "1": 1, "0.5": 0.5, "8x": 8} {
		if got, err := app.ParseSpeed(in); err != nil || got != want {
			t.Errorf("speed %s: %v %v", in, got, err)
		}
	}
	for _, bad := range []string{"0", "-2", "fast", "1e9"} {
		if _, err := app.ParseSpeed(bad); err == nil {
			t.Errorf("speed %q accepted", bad)
		}
	}
	for in, want := range map[string]int64{"0": 0, "1GB": 1 << 30, "500MB": 500 << 20, "64kb": 64 << 10, "1048576": 1 << 20} {
		if got, err := parseSize(in); err != nil || got != want {
			t.Errorf("size %s: %v %v", in, got, err)
		}
	}
	if _, err := parseSize("-1MB"); err == nil {
		t.Error("negative size accepted")
	}
}
