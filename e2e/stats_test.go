package e2e

import (
	"regexp"
	"strings"
	"testing"
)

var (
	// A volume axis tick: "$25M┤", "$250K┤", "$1.5B┤".
	volumeTick = regexp.MustCompile(`\$\d+(\.\d+)?[KMB]┤`)
	// A date label under a daily chart, an hour label under an hourly one.
	dayLabel  = regexp.MustCompile(`(Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) \d{2}`)
	hourLabel = regexp.MustCompile(`\b\d{2}:00\b`)
)

// statsChart holds when the stats page shows network and period selected,
// a volume chart with at least two K/M/B ticks, and axis labels of the
// period's kind.
func statsChart(network, period string, labels *regexp.Regexp) func(string) bool {
	return func(sc string) bool {
		return strings.Contains(sc, "Swap stats "+network+" "+period) &&
			strings.Contains(sc, "["+network+"]") && strings.Contains(sc, "["+period+"]") &&
			strings.Contains(sc, "fetched ") &&
			len(volumeTick.FindAllString(sc, -1)) >= 2 &&
			len(labels.FindAllString(sc, -1)) >= 3
	}
}

// The swap statistics page of the real binary: open it, switch network and
// period with the keys, and read the chart's labels.
func TestStatsInTmux(t *testing.T) {
	bin := tmuxTest(t)
	s := startBinary(t, 160, 48, t.TempDir(), bin, "--seed 7")
	s.waitFor("the dashboard", contains("Book PERP_BTC_USDT", "spread"))

	s.keys("S")
	s.waitFor("bsc 1w with daily labels", statsChart("bsc", "1w", dayLabel))

	s.keys("n")
	sc := s.waitFor("avax 1w", statsChart("avax", "1w", dayLabel))
	if !strings.Contains(sc, "Sources by volume, avax 1w") {
		t.Fatalf("the sources split does not follow the network:\n%s", sc)
	}

	s.keys("]")
	s.waitFor("avax 1m", statsChart("avax", "1m", dayLabel))

	// 1d is hourly: hour labels under the chart.
	s.keys("[", "[")
	sc = s.waitFor("avax 1d with hour labels", statsChart("avax", "1d", hourLabel))
	if !strings.Contains(sc, "per hour") {
		t.Fatalf("1d should chart hourly volume:\n%s", sc)
	}

	s.keys("Escape")
	s.waitFor("the grid again", contains("Book PERP_BTC_USDT", "Trades PERP_BTC_USDT"))
}
