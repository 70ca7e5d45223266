package e2e

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"tradedeck/e2e/bintest"
	"tradedeck/venue"
)

// TestDashboardSoak runs the real dashboard in tmux (160x48) against a
// separate `tradedeck sim --rate busy` with the fault flags on (dropped
// connections, skipped and reordered updates, delayed frames, REST 429 and
// 5xx) for TRADEDECK_SOAK_DURATION (make soak SOAK=1h), while the test
// trades on the same account through REST. Every two minutes it pauses
// trading and checks: the process is alive, the screen is drawn (no
// panic), the book comes back live, and the Open orders count equals the
// venue's. RSS is sampled every check and must stay flat. --stall is left
// out: it freezes every stream for good, which is a test of staleness
// display (feed tests), not of a long run.
func TestDashboardSoak(t *testing.T) {
	total := soakDuration(t)
	needTmux(t)
	bin := buildBinary(t)
	// Every fault flag but --stall.
	r := startLiveRun(t, bin, liveSetup{w: 160, h: 48, simArgs: []string{"--seed", "5", "--rate", "busy",
		"--drop-every", "45s", "--skip-update-every", "60", "--delay", "5ms", "--reorder-every", "40",
		"--rest-429", "0.03", "--rest-5xx", "0.03"}},
		func(sc string) bool { return strings.Contains(sc, "spread") && bookRows(sc) >= 10 })
	s, pid := r.s, r.pid
	tr := &soakTrader{rest: r.sim.Client, rng: rand.New(rand.NewPCG(3, 4)), cid: 5000}
	var rss []int64
	end := time.Now().Add(total)
	for check := 1; time.Now().Before(end); check++ {
		for next := time.Now().Add(2 * time.Minute); time.Now().Before(next) && time.Now().Before(end); {
			tr.step(context.Background())
			time.Sleep(time.Second) // the trader's pace, not a synchronisation
		}
		kb := rssKiB(t, pid)
		rss = append(rss, kb)
		// Resting orders may still fill while we look: compare with the
		// venue's count as it is at each look.
		want := 0
		sc := s.waitFor(fmt.Sprintf("the venue's open orders count and a live book (check %d)", check), func(sc string) bool {
			want = tr.openOrders(t)
			return shownOpenOrders(sc) == want && strings.Contains(sc, "spread") && bookRows(sc) >= 10
		})
		if strings.Contains(sc, "panic") || strings.Contains(sc, "goroutine ") {
			t.Fatalf("the dashboard crashed:\n%s", sc)
		}
		t.Logf("check %d: RSS %.1f MiB, open orders %d; status: %s", check, float64(kb)/1024, want, statusLine(sc))
	}
	if len(rss) >= 4 {
		warm := rss[len(rss)/4]
		if last := rss[len(rss)-1]; last > warm+warm/2+8<<10 {
			t.Errorf("RSS grew from %d KiB to %d KiB: %v", warm, last, rss)
		}
	}
}

// soakDuration skips a soak unless TRADEDECK_SOAK=1 and returns how long
// it runs: TRADEDECK_SOAK_DURATION (make soak SOAK=1h), default 5 minutes.
func soakDuration(t *testing.T) time.Duration {
	t.Helper()
	if os.Getenv("TRADEDECK_SOAK") != "1" {
		t.Skip("TRADEDECK_SOAK=1 runs the soak")
	}
	s := os.Getenv("TRADEDECK_SOAK_DURATION")
	if s == "" {
		return 5 * time.Minute
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		t.Fatalf("TRADEDECK_SOAK_DURATION=%q: %v", s, err)
	}
	return d
}

var openOrdersTab = regexp.MustCompile(`Open orders(?: (\d+))? `)

// shownOpenOrders reads the count on the account pane's Open orders tab
// (no number when there are none); -1 if the tab is not on screen.
func shownOpenOrders(sc string) int { return screenInt(openOrdersTab, sc) }

// screenInt is the number re's first group reads off the screen (0 when
// the group is empty), -1 when re does not match.
func screenInt(re *regexp.Regexp, sc string) int {
	m := re.FindStringSubmatch(sc)
	if m == nil {
		return -1
	}
	n, _ := strconv.Atoi(m[1])
	return n
}

func rssKiB(t *testing.T, pid int) int64 {
	kb, _, err := bintest.Memory(pid)
	if err != nil {
		t.Fatalf("the dashboard process is gone: %v", err)
	}
	return kb
}

func statusLine(sc string) string {
	lines := strings.Split(strings.TrimRight(sc, "\n"), "\n")
	if len(lines) < 2 {
		return ""
	}
	return strings.TrimSpace(lines[len(lines)-2])
}

// soakTrader rests, crosses and cancels small orders on PERP_BTC_USDT.
type soakTrader struct {
	rest *venue.Client
	rng  *rand.Rand
	cid  int64
	rule *venue.SymbolRule
}

const soakSymbol = "PERP_BTC_USDT"

func (tr *soakTrader) step(ctx context.Context) {
	if tr.rule == nil {
		r, err := tr.rest.SymbolRule(ctx, soakSymbol)
		if err != nil {
			return // a 429 or 5xx from the faults: next step
		}
		tr.rule = &r
	}
	ob, err := tr.rest.OrderBook(ctx, soakSymbol, 5)
	if err != nil || len(ob.Asks) == 0 || len(ob.Bids) == 0 {
		return
	}
	tick := tr.rule.QuoteTick
	side, price := venue.Side("BUY"), ob.Bids[0].Price.Sub(tick.Mul(decimal.NewFromInt(int64(100+tr.rng.IntN(400)))))
	switch tr.rng.IntN(4) {
	case 0:
		side, price = "SELL", ob.Asks[0].Price.Add(tick.Mul(decimal.NewFromInt(int64(100+tr.rng.IntN(400)))))
	case 1: // crosses: fills
		side, price = "BUY", ob.Asks[0].Price.Add(tick.Mul(decimal.NewFromInt(20)))
	}
	tr.cid++
	qty := tr.rule.BaseMin.Mul(decimal.NewFromInt(int64(1 + tr.rng.IntN(5))))
	_, _ = tr.rest.SendOrder(ctx, venue.OrderRequest{Symbol: soakSymbol, ClientOrderID: tr.cid, Type: "LIMIT", Side: side, Price: price, Quantity: qty})
	if tr.rng.IntN(3) == 0 {
		if open, _, err := tr.rest.ListOrders(ctx, venue.OrderFilter{Symbol: soakSymbol, Status: venue.StatusIncomplete}); err == nil && len(open) > 0 {
			_ = tr.rest.CancelOrder(ctx, soakSymbol, int64(open[tr.rng.IntN(len(open))].OrderID))
		}
	}
}

// openOrders is the venue's count of the account's open orders (every
// symbol), retried through the injected 429s and 5xx.
func (tr *soakTrader) openOrders(t *testing.T) int {
	for try := 0; try < 50; try++ {
		n, complete := 0, true
		for page := 1; ; page++ {
			rows, meta, err := tr.rest.ListOrders(context.Background(), venue.OrderFilter{Status: venue.StatusIncomplete, Page: page})
			if err != nil {
				complete = false
				break
			}
			n += len(rows)
			if len(rows) == 0 || len(rows) < int(meta.RecordsPerPage) {
				break
			}
		}
		if complete {
			return n
		}
		time.Sleep(200 * time.Millisecond) // back off after an injected fault
	}
	t.Fatal("could not list the venue's open orders through the injected faults")
	return 0
}
