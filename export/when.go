package export

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// ParseWhen reads --since and --until: a duration back from now ("7d",
// "12h", "90m", "2w"), a date ("2026-01-31", UTC), a date and time
// ("2026-01-31T15:04", "2026-01-31 15:04:05"), or RFC 3339. A bare date
// as an end (until=true) means the end of that day.
func ParseWhen(s string, now time.Time, until bool) (time.Time, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return time.Time{}, nil
	}
	if d, ok := parseAgo(s); ok {
		return now.Add(-d), nil
	}
	if t, err := time.Parse("2006-01-02", s); err == nil {
		if until {
			t = t.AddDate(0, 0, 1)
		}
		return t, nil
	}
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05", "2006-01-02 15:04:05", "2006-01-02T15:04", "2006-01-02 15:04"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t.UTC(), nil
		}
	}
	return time.Time{}, fmt.Errorf("%q is not a date (2026-01-31), a time (2026-01-31T15:04, UTC) or a duration (7d, 12h)", s)
}

// parseAgo reads a duration with d (days) and w (weeks) besides Go's units.
func parseAgo(s string) (time.Duration, bool) {
	for suffix, unit := range map[string]time.Duration{"d": 24 * time.Hour, "w": 7 * 24 * time.Hour} {
		if n, ok := strings.CutSuffix(s, suffix); ok {
			v, err := strconv.ParseFloat(n, 64)
			if err != nil || v < 0 {
				return 0, false
			}
			return time.Duration(v * float64(unit)), true
		}
	}
	d, err := time.ParseDuration(s)
	return d, err == nil && d >= 0
}
