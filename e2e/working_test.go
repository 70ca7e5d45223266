package e2e

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"
)

// Issue 26's screens on the real binary and its embedded simulator, at
// the roomy 160x48 and the smallest 80x24: each working kind typed on
// the ':' line, its confirmation drawn with what a trader checks, sent,
// its progress in the Algos tab, then cancelled (a TWAP paused and
// resumed first), every step behind its confirmation.

var (
	midRe = regexp.MustCompile(`mid ([0-9]+\.[0-9]+)`)
	// the 25th rung of the ladder (the engine puts it on the tick grid)
	lastRungRe = regexp.MustCompile(`25  [0-9]+\.[0-9] x 0\.0100 = [0-9]+\.[0-9]{2}`)
)

// workScreen is one dashboard at one size.
type workScreen struct {
	*tmux
	w, h int
	mid  decimal.Decimal
}

func startWorkScreen(t *testing.T, bin string, w, h int) *workScreen {
	s := startBinary(t, w, h, t.TempDir(), bin, "--seed 11 --symbol PERP_BTC_USDT")
	sc := s.waitFor("the BTC book and the private stream", func(sc string) bool {
		return strings.Contains(sc, "Book PERP_BTC_USDT") && strings.Contains(sc, "private • live") && midRe.MatchString(sc)
	})
	return &workScreen{tmux: s, w: w, h: h, mid: decimal.RequireFromString(midRe.FindStringSubmatch(sc)[1])}
}

// price is the mid times f, on the 0.1 tick.
func (s *workScreen) price(f string) string {
	return s.mid.Mul(decimal.RequireFromString(f)).StringFixed(1)
}

// command types a ':' line and runs it.
func (s *workScreen) command(line string) {
	s.t.Helper()
	s.keys(":")
	s.waitFor("the command line", func(sc string) bool { return strings.HasPrefix(lastLine(sc), " :") })
	s.literal(line)
	s.keys("Enter")
}

// algosTab shows the Algos tab with the newest unfinished algo selected
// (zoomed at 80x24, where the account pane is six rows).
func (s *workScreen) algosTab() string {
	s.t.Helper()
	s.showAlgosTab()
	s.keys("g")
	if s.w < 100 {
		s.keys("z")
		return s.waitFor("the zoomed Algos tab", contains("engine running here", "Triggers · progress"))
	}
	return s.screen()
}

// leaveTab unzooms and goes back to the grid.
func (s *workScreen) leaveTab() {
	if s.w < 100 {
		s.keys("z")
	}
	s.keys("Escape")
	time.Sleep(300 * time.Millisecond)
}

// cancelSelected cancels the selected algo behind its confirmation and
// waits for id's row to say cancelled.
func (s *workScreen) cancelSelected(id int, kind string) {
	s.t.Helper()
	s.keys("c")
	s.waitFor("the cancel confirmation", inDialog(fmt.Sprintf("Cancel algo #%d", id), "nothing new is placed", "what filled stays filled"))
	s.confirm(fmt.Sprintf("Cancel algo #%d", id))
	s.waitFor(kind+" cancelled", func(sc string) bool {
		row := workRow(sc, id)
		return strings.Contains(row, kind) && strings.Contains(row, "cancelled")
	})
}

// dialogText is the text inside the box titled title, its lines joined
// by spaces (a narrow screen wraps a fact over two lines); "" when the
// box is not on screen.
func dialogText(sc, title string) string {
	lines := strings.Split(sc, "\n")
	for r, l := range lines {
		i := strings.Index(l, "╭─ "+title)
		if i < 0 {
			continue
		}
		c0 := len([]rune(l[:i]))
		var out []string
		for _, l := range lines[r+1:] {
			rs := []rune(l)
			if len(rs) <= c0 || rs[c0] != '│' {
				break
			}
			inner := string(rs[c0+1:])
			if j := strings.Index(inner, "│"); j >= 0 {
				inner = inner[:j]
			}
			if t := strings.TrimSpace(inner); t != "" {
				out = append(out, t)
			}
		}
		return strings.Join(out, " ")
	}
	return ""
}

// inDialog is a waitFor condition: the box titled title says every part.
func inDialog(title string, parts ...string) func(string) bool {
	return func(sc string) bool {
		text := dialogText(sc, title)
		return text != "" && contains(parts...)(text)
	}
}

// workRow is the Algos tab's line of algo #id (its columns padded, not
// the detail under the list: "#1 chase PERP_BTC_USDT buy ...").
func workRow(sc string, id int) string {
	re := regexp.MustCompile(fmt.Sprintf(`#%d {2,}[a-z]+ {2,}PERP_BTC_USDT `, id))
	for _, l := range strings.Split(sc, "\n") {
		if re.MatchString(l) {
			return l
		}
	}
	return ""
}

func TestWorkingOrdersInTmux(t *testing.T) {
	bin := tmuxTest(t)
	for _, size := range [][2]int{{160, 48}, {80, 24}} {
		t.Run(fmt.Sprintf("%dx%d", size[0], size[1]), func(t *testing.T) {
			s := startWorkScreen(t, bin, size[0], size[1])
			t0 := time.Now()
			step := func(what string) { t.Logf("%6.2fs %s", time.Since(t0).Seconds(), what) }

			// 1. A chase: its leash resolved and its distance shown
			// before sending, its peg in the Algos tab, cancelled.
			leash := s.price("1.01") // a BUY chases up to it
			// 2000 ticks (200.0) behind the bid: it rests, it does not fill.
			s.command("chase PERP_BTC_USDT buy 0.01 offset 2000 leash " + leash)
			s.waitFor("the chase's confirmation", inDialog("Confirm chase PERP_BTC_USDT", "BUY 0.0100 PERP_BTC_USDT",
				"rests 2000 tick(s) behind the best bid",
				"leash "+leash, "above arrival", "first order: LIMIT", "[y] start chasing (BUY)"))
			s.confirm("Confirm chase PERP_BTC_USDT")
			s.algosTab()
			s.waitFor("the chase working with its peg", func(sc string) bool {
				row := workRow(sc, 1)
				return strings.Contains(row, "chase") && strings.Contains(row, "working") && strings.Contains(row, "peg ")
			})
			step("chase working")
			s.cancelSelected(1, "chase")
			s.leaveTab()
			step("chase cancelled")

			// 2. A scale of 25 rungs 1-2% under the market: every rung in
			// the confirmation (scrolled at 80x24: y waits until each was
			// shown), 25 open in the Algos tab, cancelled.
			from, to := s.price("0.99"), s.price("0.98")
			s.command("scale PERP_BTC_USDT buy 0.25 from " + from + " to " + to + " count 25")
			sc := s.waitFor("the scale's confirmation", inDialog("Confirm scale PERP_BTC_USDT", "25 LIMIT orders from "+from+" to "+to,
				"total 0.2500 BTC, notional", "1  "+from+" x 0.0100 = "))
			if strings.Contains(sc, "of 25 · ↑↓") { // scrolled: y waits for the rest
				time.Sleep(500 * time.Millisecond)
				s.keys("y")
				s.waitFor("the hint to scroll", inDialog("Confirm scale PERP_BTC_USDT", "shown: scroll through the rest"))
				for i := 0; i < 10 && !lastRungRe.MatchString(s.screen()); i++ {
					s.keys("PageDown")
					time.Sleep(150 * time.Millisecond)
				}
			}
			s.waitFor("the last rung", lastRungRe.MatchString)
			s.confirm("Confirm scale PERP_BTC_USDT")
			s.algosTab()
			s.waitFor("the scale's 25 rungs open (its row, or at 80 columns the detail)", func(sc string) bool {
				return strings.Contains(workRow(sc, 2), "rungs 25 open, 0 filled of 25") ||
					strings.Contains(workRow(sc, 2), "working") && strings.Contains(sc, "25 rungs: 25 open, 0 filled")
			})
			step("scale working, 25 rungs open")
			s.cancelSelected(2, "scale")
			s.leaveTab()
			step("scale cancelled")

			// 3. A TWAP bounded 1% over the market: slices, size,
			// interval, end, bound and catch-up before sending; its slices
			// in the Algos tab; paused, resumed, cancelled.
			bound := s.price("1.01")
			s.command("twap PERP_BTC_USDT buy 0.04 over 2m slices 4 limit " + bound)
			s.waitFor("the TWAP's confirmation", inDialog("Confirm twap PERP_BTC_USDT", "4 slices of 0.0100 BTC, one every 30s",
				"ends about", "bound "+bound, "after a stall or restart", "[y] start the BUY TWAP"))
			s.confirm("Confirm twap PERP_BTC_USDT")
			s.algosTab()
			s.waitFor("the TWAP's first slice", func(sc string) bool {
				row := workRow(sc, 3)
				return strings.Contains(row, "twap") && (strings.Contains(row, "slices 1/4") || strings.Contains(sc, "slices 1 done of 4"))
			})
			step("twap working, first slice done")
			s.keys("p")
			s.confirm("Confirm: pause algo #3")
			s.waitFor("the TWAP paused", func(sc string) bool { return strings.Contains(workRow(sc, 3), "paused") })
			s.waitFor("p offered to resume", contains("p resume"))
			s.keys("p")
			s.confirm("Confirm: resume algo #3")
			s.waitFor("the TWAP working again", func(sc string) bool { return strings.Contains(workRow(sc, 3), "working") })
			step("twap paused and resumed")
			s.cancelSelected(3, "twap")
			step("twap cancelled")
		})
	}
}
