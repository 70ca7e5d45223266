package app

import (
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"tradedeck/replay"
)

func TestReplayBar(t *testing.T) {
	first := time.Date(2026, 11, 24, 19, 0, 0, 0, time.UTC)
	st := replay.Status{Now: first.Add(30 * time.Second), First: first, Last: first.Add(60 * time.Second), Speed: 4, Started: true}
	wide := ansi.Strip(replayBar(st, 160, true))
	for _, want := range []string{"REPLAY PLAY 2026-11-24 19:00:30.000 UTC", "4x", "30s/1m0s", "space pause"} {
		if !strings.Contains(wide, want) {
			t.Fatalf("bar %q lacks %q", wide, want)
		}
	}
	if i := strings.Index(wide, "["); i < 0 || !strings.Contains(wide[i:], "#-") {
		t.Fatalf("progress at half: %q", wide)
	}
	st.Paused, st.Speed = true, 0
	narrow := ansi.Strip(replayBar(st, 50, false))
	if ansi.StringWidth(narrow) > 50 || !strings.HasPrefix(narrow, " REPLAY PAUSE") {
		t.Fatalf("narrow bar %q (%d cells)", narrow, ansi.StringWidth(narrow))
	}
	st.Ended = true
	if s := ansi.Strip(replayBar(st, 160, false)); !strings.Contains(s, "REPLAY END") || !strings.Contains(s, "max") {
		t.Fatalf("ended bar %q", s)
	}
}
