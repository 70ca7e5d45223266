package app

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"time"

	"tradedeck/venue"
)

// checkSymbols refuses, at start, a symbol the venue does not list (the
// focus or a watchlist entry, named by what) instead of a dashboard or
// watch waiting forever for data that never comes; the error suggests
// symbols containing what was typed. A venue that cannot be reached is
// not an error here: the feed reports it and keeps retrying.
func CheckSymbols(ctx context.Context, c *venue.Client, what string, symbols ...string) error {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	rules, err := c.SymbolRules(ctx)
	var ae *venue.APIError
	var ne net.Error
	if err != nil && (errors.As(err, &ae) || !errors.As(err, &ne)) && ctx.Err() == nil {
		return fmt.Errorf("%s: the venue's symbol list: %w", what, err)
	}
	if err != nil || len(rules) == 0 {
		return nil // unreachable: the feed says so
	}
	known := make(map[string]bool, len(rules))
	for _, r := range rules {
		known[r.Symbol] = true
	}
	for _, s := range symbols {
		if s == "" || known[s] {
			continue
		}
		return fmt.Errorf("%s: the venue has no symbol %q; %s", what, s, suggest(rules, s))
	}
	return nil
}

// suggest names up to 6 listed symbols containing s's parts (ETH ->
// SPOT_ETH_USDT, PERP_ETH_USDT), else the first few.
func suggest(rules []venue.SymbolRule, s string) string {
	var near, all []string
	for _, r := range rules {
		all = append(all, r.Symbol)
		for _, part := range strings.FieldsFunc(s, func(c rune) bool { return c == '_' }) {
			if len(part) >= 2 && part != "SPOT" && part != "PERP" && part != "USDT" && strings.Contains(r.Symbol, part) {
				near = append(near, r.Symbol)
				break
			}
		}
	}
	if len(near) > 0 {
		return "did you mean " + strings.Join(near[:min(6, len(near))], ", ") + "?"
	}
	return fmt.Sprintf("it lists %d, e.g. %s", len(all), strings.Join(all[:min(6, len(all))], ", "))
}
