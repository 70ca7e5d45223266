package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// positionRe is a 0.01 PERP_BTC_USDT position's row in the Positions tab.
var positionRe = regexp.MustCompile(`PERP_BTC_USDT +0\.0100 +[0-9]`)

// TestReplayPaperInTmux replays the committed recording with --paper:
// the dashboard trades on a paper account, a bracket typed on the command
// line and confirmed runs on the recorded market (the entry at the
// recorded ask, the take-profit filled by the print through it), the
// dry-run report is written when the recording ends and printed on quit.
func TestReplayPaperInTmux(t *testing.T) {
	bin := tmuxTest(t)
	home := t.TempDir()
	rec, err := filepath.Abs("../replay/testdata/sim-perp-btc.tdrec")
	if err != nil {
		t.Fatal(err)
	}
	// In home (the report file lands there); the pane stays after exit to show the printed report.
	s := start(t, 160, 48, fmt.Sprintf("cd %s && env -u NO_COLOR HOME=%s XDG_CONFIG_HOME=%s XDG_RUNTIME_DIR=%s LANG=C.UTF-8 %s replay %s --paper --speed 0.25; sleep 60",
		home, home, home, home, bin, rec))
	sc := s.waitFor("the replayed book", func(sc string) bool {
		return strings.Contains(sc, " REPLAY ") && replayTime.MatchString(sc) && bookRows(sc) >= 10
	})
	if strings.Contains(sc, "READ-ONLY") {
		t.Fatalf("a --paper replay trades on its paper account:\n%s", sc)
	}
	// Paused while the bracket is typed and confirmed: the recording is
	// 20 s at this speed, and under load the typing alone outlasted it
	// (the replay ended before the bracket was added).
	s.keys("Space")
	s.waitFor("the replay paused", contains("replay paused"))
	s.keys(":")
	s.literal("bracket PERP_BTC_USDT buy 0.01 at market tp 97100 sl 96960")
	s.keys("Enter")
	s.confirm("Confirm bracket PERP_BTC_USDT")
	s.keys("Space")
	// The entry fills at the recorded book where the replay stands: in
	// one fill or in parts (a best ask of less than 0.01), so the fill
	// is read from what stays on screen, the position, or the notices.
	s.waitFor("the entry's fill", func(sc string) bool {
		return positionRe.MatchString(sc) || strings.Contains(sc, "PERP_BTC_USDT BUY 0.01 @") ||
			strings.Contains(sc, "bracket entry filled 0.01 of 0.01")
	})
	sc = s.waitFor("the report at the end", contains("REPLAY END", "dry-run report of 1 algos in rehearsal-"))
	files, _ := filepath.Glob(filepath.Join(home, "rehearsal-*.txt"))
	if len(files) != 1 {
		t.Fatalf("report files %v; screen:\n%s", files, sc)
	}
	b, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"#1 bracket PERP_BTC_USDT buy 0.01 at market tp 97100 sl 96960 on bid", "state     done: take-profit filled 0.01 at 97100",
		"entry BUY  filled 0.01 of 0.01 (100%)", "exit  SELL filled 0.01 of 0.01 (100%), avg 97100", "tp     SELL  0.01 @ 97100"} {
		if !strings.Contains(string(b), want) {
			t.Fatalf("report lacks %q:\n%s", want, b)
		}
	}
	s.keys("q")
	s.waitFor("the report printed on quit", contains("dry run ", "#1 bracket PERP_BTC_USDT", "fees in all: "))
}
