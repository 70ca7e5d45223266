package export

import (
	"context"
	"fmt"
	"strings"
	"time"

	"tradedeck/venue"
)

// Progress is told after every page: the page number, rows written so
// far, and the venue's total when it says (else -1).
type Progress func(kind Kind, page, rows int, total int64)

// maxPages bounds a runaway listing (a venue that always says "more").
const maxPages = 100_000

// Run pages through the venue's listing of q.Kind and writes every row to
// w as it arrives (memory stays one page). It returns the rows written.
func Run(ctx context.Context, c *venue.Client, q Query, w Writer, progress Progress) (int, error) {
	src, ok := sources[q.Kind]
	if !ok {
		return 0, fmt.Errorf("export: unknown kind %q (one of %s)", q.Kind, kindList())
	}
	if q.Kind.Snapshot() && (!q.Since.IsZero() || !q.Until.IsZero()) {
		return 0, fmt.Errorf("export: %s are a snapshot of now: --since and --until do not apply", q.Kind)
	}
	if !q.Kind.Snapshot() && q.Until.IsZero() {
		// A fixed end: fills arriving during a long export must not shift
		// the pages under it.
		q.Until = time.Now()
	}
	if !q.Since.IsZero() && q.Until.Before(q.Since) {
		return 0, fmt.Errorf("export: --until %s is before --since %s", FormatTime(q.Until).Text, FormatTime(q.Since).Text)
	}
	if err := w.Begin(src.columns); err != nil {
		return 0, err
	}
	written := 0
	for p := 1; p <= maxPages; p++ {
		pg, err := src.fetch(ctx, c, q, p)
		if err != nil {
			return written, fmt.Errorf("export %s, page %d: %w", q.Kind, p, err)
		}
		for _, r := range pg.rows {
			if err := w.Row(r); err != nil {
				return written, err
			}
			written++
		}
		total := int64(-1)
		if pg.meta.Total != nil {
			total = int64(*pg.meta.Total)
		}
		if progress != nil {
			progress(q.Kind, p, written, total)
		}
		if !pg.hasMeta || pg.n == 0 || !pg.meta.HasNext(pg.n) {
			break
		}
	}
	return written, w.End()
}

func kindList() string {
	s := make([]string, len(Kinds))
	for i, k := range Kinds {
		s[i] = string(k)
	}
	return strings.Join(s, ", ")
}

// ParseKind reads a kind name.
func ParseKind(s string) (Kind, error) {
	k := Kind(strings.ToLower(s))
	if _, ok := sources[k]; !ok {
		return "", fmt.Errorf("export: unknown kind %q (one of %s)", s, kindList())
	}
	return k, nil
}
