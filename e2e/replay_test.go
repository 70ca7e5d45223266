package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// bookSide is the book pane's text (the rows with prices), to see it move.
func bookSide(sc string) string {
	var b strings.Builder
	for _, l := range strings.Split(sc, "\n") {
		parts := strings.Split(l, "│")
		if len(parts) < 5 {
			continue
		}
		f := strings.Fields(strings.TrimPrefix(parts[3], "•"))
		if len(f) == 3 && isNum(f[0]) && isNum(f[1]) && isNum(f[2]) {
			b.WriteString(strings.Join(f, " "))
			b.WriteByte('\n')
		}
	}
	return b.String()
}

var replayTime = regexp.MustCompile(`REPLAY (PLAY|PAUSE|END|WAIT) (\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3}) UTC`)

// TestReplayInTmux records the embedded simulated venue with the real
// binary, then replays the file in the dashboard: the REPLAY banner, a
// moving book, pause and step, and no trading.
func TestReplayInTmux(t *testing.T) {
	bin := tmuxTest(t)
	home := t.TempDir()
	rec := filepath.Join(home, "sim.tdrec")
	out, err := exec.Command(bin, "record", "--symbols", "PERP_BTC_USDT", "--duration", "8s", "--out", rec).CombinedOutput()
	if err != nil || !strings.Contains(string(out), "record: done:") {
		t.Fatalf("record: %v\n%s", err, out)
	}
	s := startBinary(t, 160, 48, home, bin, "replay", rec, "--speed 1")

	sc := s.waitFor("the replayed book", func(sc string) bool {
		return strings.Contains(sc, " REPLAY ") && replayTime.MatchString(sc) && bookRows(sc) >= 10
	})
	if !strings.Contains(sc, "READ-ONLY") {
		t.Fatalf("a replay must not trade:\n%s", sc)
	}
	first := bookSide(sc)
	s.waitFor("the book to move", func(sc string) bool {
		b := bookSide(sc)
		return b != "" && b != first
	})

	// Pause: the replay clock stops; a step moves it forward.
	s.keys("Space")
	sc = s.waitFor("the pause", contains("REPLAY PAUSE"))
	paused := replayTime.FindStringSubmatch(sc)[2]
	for i := 0; i < 3; i++ {
		s.keys("o")
	}
	s.waitFor("a step", func(sc string) bool {
		m := replayTime.FindStringSubmatch(sc)
		return m != nil && m[1] == "PAUSE" && m[2] > paused
	})

	// :export writes the account tab in view (Balances) and says where.
	csvPath := filepath.Join(home, "balances.csv")
	s.keys("5", "]", "]", "]", "]")
	s.waitFor("the balances tab", contains("Token", "Holding"))
	s.keys(":")
	s.literal("export " + csvPath)
	s.keys("Enter")
	s.waitFor("the export notice", contains("exported", " balances to "+filepath.Dir(csvPath)))
	if b, err := os.ReadFile(csvPath); err != nil || !strings.HasPrefix(string(b), "token,holding,frozen") || !strings.Contains(string(b), "\nUSDT,") {
		t.Fatalf("exported balances: %v\n%s", err, b)
	}

	// Trading keys do nothing in a replay: no order form opens.
	s.keys("b")
	s.keys("Space", "}", "}", "}")
	s.waitFor("the end of the recording", contains("REPLAY END"))
	if sc := s.screen(); strings.Contains(sc, "Confirm") || strings.Contains(sc, "Limit price") {
		t.Fatalf("an order form opened in a replay:\n%s", sc)
	}
	s.keys("q")
}
