package main

import (
	"encoding/json"
	"os"
	"path/filepath"

	"tradedeck/sim/exchange"
)

// workload is one measured setup: the simulator's flags, and either the
// dashboard at a size (keys typed once it is up) or `watch`.
type workload struct {
	name      string
	what      string
	simArgs   []string
	w, h      int
	watchlist []string // nil: the config's default
	keys      string   // typed after the warm-up, before measuring
	flags     []string // the dashboard's own flags
	watch     []string // `watch` with these arguments instead of the dashboard
}

// workloads are issue 28's: the default universe busy and calm at two
// sizes; no market change at all with the help open (the screen's only
// change is the clock); 100 symbols busy on the watchlist (the all-symbol
// bbos/tickers topics); `watch` of one symbol and three watched, busy.
func workloads(u universes) []workload {
	return []workload{
		{name: "busy-200x60", what: "busy market, 200x60", simArgs: []string{"--rate", "busy"}, w: 200, h: 60},
		{name: "busy-200x60-fps20", what: "busy market, 200x60, --fps 20", simArgs: []string{"--rate", "busy"}, w: 200, h: 60,
			flags: []string{"--fps", "20"}},
		{name: "busy-160x48", what: "busy, 160x48", simArgs: []string{"--rate", "busy"}, w: 160, h: 48},
		{name: "calm-200x60", what: "calm, 200x60", simArgs: []string{"--rate", "calm"}, w: 200, h: 60},
		{name: "calm-160x48", what: "calm, 160x48", simArgs: []string{"--rate", "calm"}, w: 160, h: 48},
		{name: "idle-help", what: "no market change (sim --rate off), help open, 200x60", simArgs: []string{"--rate", "off"}, w: 200, h: 60, keys: "?"},
		{name: "busy100-200x60", what: "100 symbols busy on the watchlist, 200x60", simArgs: []string{"--rate", "busy", "--universe", u.hundred},
			w: 200, h: 60, watchlist: u.hundredSyms},
		{name: "watch-busy", what: "`watch`, 1 symbol + 3 watched, busy", simArgs: []string{"--rate", "busy"},
			watch: []string{"PERP_BTC_USDT", "--watch", "SPOT_BTC_USDT,SPOT_ETH_USDT,PERP_ETH_USDT"}},
	}
}

type universes struct {
	hundred     string
	hundredSyms []string
}

// writeUniverses writes the simulator's default universe with 50 more
// base tokens, each listed spot and perpetual (as e2e's memory
// measurement does).
func writeUniverses(dir string) (universes, error) {
	u, err := exchange.DefaultUniverse()
	if err != nil {
		return universes{}, err
	}
	syms, err := u.AddListings(50)
	if err != nil {
		return universes{}, err
	}
	b, err := json.Marshal(u)
	if err != nil {
		return universes{}, err
	}
	p := filepath.Join(dir, "universe100.json")
	return universes{hundred: p, hundredSyms: syms}, os.WriteFile(p, b, 0o644)
}
