package config

import (
	"fmt"
	"slices"
	"strings"

	"tradedeck/venue"
)

// Focuses are the panes [layout] focus may name (the dashboard's grid).
var Focuses = []string{"book", "chart", "trades", "watchlist", "account"}

// check refuses values nothing can use, saying what is valid, so a typo
// fails at start instead of leaving an empty or stuck dashboard; symbols
// are upper-cased (the venue's are), as `watch` and `:symbol` accept them.
// Whether a symbol exists is the venue's to say (checked once it is
// reachable). Errors name the key, never the value.
func (c *Config) check(path string) error {
	bad := func(key, valid string) error {
		return fmt.Errorf("config %s: key %s: %s", path, key, valid)
	}
	if !venue.ValidInterval(c.Interval) {
		return bad("interval", "not a candle interval: one of "+strings.Join(venue.Intervals, ", "))
	}
	if c.Layout.Focus != "" && !slices.Contains(Focuses, c.Layout.Focus) {
		return bad("layout.focus", "not a pane: one of "+strings.Join(Focuses, ", "))
	}
	if c.FPS < 1 || c.FPS > 240 {
		return bad("fps", "frames per second, 1 to 240")
	}
	c.Symbol = strings.ToUpper(strings.TrimSpace(c.Symbol))
	seen := map[string]bool{}
	for i, s := range c.Watchlist {
		s = strings.ToUpper(strings.TrimSpace(s))
		if s == "" {
			return bad("watchlist", fmt.Sprintf("entry %d is empty", i+1))
		}
		if seen[s] {
			return bad("watchlist", fmt.Sprintf("entry %d repeats an earlier symbol", i+1))
		}
		seen[s] = true
		c.Watchlist[i] = s
	}
	return nil
}
