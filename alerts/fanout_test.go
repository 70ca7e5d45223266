package alerts

import (
	"strings"
	"sync"
	"testing"

	"tradedeck/feed"
)

// Two sessions on one shared feed: each engine sees every observation,
// the feed tracks the union of their symbols, and a session that left
// sees nothing more.
func TestFanout(t *testing.T) {
	var mu sync.Mutex
	var tracked []string
	fan := NewFanout()
	fan.SetTrack(func(s []string) { mu.Lock(); tracked = s; mu.Unlock() })
	union := func() string { mu.Lock(); defer mu.Unlock(); return strings.Join(tracked, ",") }

	join := func(lines ...string) (*rig, *Member) {
		m := fan.Join()
		r := newRigWith(t, Options{OnSymbols: m.Track})
		m.Attach(r.e)
		for _, l := range lines {
			r.add(l)
		}
		return r, m
	}
	a, am := join("SPOT_BTC_USDT above 100")
	b, bm := join("SPOT_ETH_USDT below 10", "SPOT_BTC_USDT above 50")
	if got := union(); got != "SPOT_BTC_USDT,SPOT_ETH_USDT" {
		t.Fatalf("tracked %q", got)
	}
	fan.ObserveTrade("SPOT_BTC_USDT", btc, feed.Trade{Price: px("101")})
	a.expect("a", 1, "crossed above 100")
	b.expect("b", 1, "crossed above 50")
	bm.Leave()
	if got := union(); got != "SPOT_BTC_USDT" {
		t.Fatalf("tracked after b left %q", got)
	}
	fan.ObserveTrade("SPOT_ETH_USDT", btc, feed.Trade{Price: px("9")})
	b.expect("b after it left", 0, "")
	am.Leave()
	if got := union(); got != "" {
		t.Fatalf("tracked with nobody %q", got)
	}
}
