package ui

import (
	"sort"
	"strings"
)

// match is a ranked candidate of the fuzzy finder.
type match struct {
	text  string
	score int
}

// rank orders candidates by how well query matches them as a
// subsequence (case-insensitive): consecutive letters, matches at the
// start of a word (after '_', '-', '/', ' ') and an exact word score
// higher; shorter candidates break ties. Non-matching ones are dropped.
// An empty query keeps the input order.
func rank(query string, candidates []string) []match {
	q := strings.ToLower(strings.TrimSpace(query))
	out := make([]match, 0, len(candidates))
	for _, c := range candidates {
		if q == "" {
			out = append(out, match{text: c})
			continue
		}
		if s, ok := score(q, strings.ToLower(c)); ok {
			out = append(out, match{text: c, score: s})
		}
	}
	if q != "" {
		sort.SliceStable(out, func(i, j int) bool {
			if out[i].score != out[j].score {
				return out[i].score > out[j].score
			}
			return len(out[i].text) < len(out[j].text)
		})
	}
	return out
}

func score(q, c string) (int, bool) {
	// Best subsequence match over every start of the first letter, so
	// "eth" scores on "_ETH_" rather than on the E of "PERP".
	best, found := 0, false
	for start := 0; start < len(c); start++ {
		if c[start] != q[0] {
			continue
		}
		if s, ok := scoreFrom(q, c, start); ok && (!found || s > best) {
			best, found = s, true
		}
	}
	if !found {
		return 0, false
	}
	s := best
	// A whole word equal to the query ranks first (btc -> *_BTC_*).
	for _, w := range strings.FieldsFunc(c, func(r rune) bool { return r < 128 && isSep(byte(r)) }) {
		if w == q {
			s += 20
			break
		}
	}
	if strings.HasPrefix(c, q) {
		s += 3
	}
	return s, true
}

// scoreFrom matches q greedily in c from start.
func scoreFrom(q, c string, start int) (int, bool) {
	s := 0
	ci := start
	prev := -2
	for qi := 0; qi < len(q); qi++ {
		found := -1
		for ; ci < len(c); ci++ {
			if c[ci] == q[qi] {
				found = ci
				ci++
				break
			}
		}
		if found < 0 {
			return 0, false
		}
		s++
		if found == prev+1 {
			s += 5 // consecutive
		}
		if found == 0 || isSep(c[found-1]) {
			s += 8 // start of a word
		}
		prev = found
	}
	return s, true
}

func isSep(b byte) bool { return b == '_' || b == '-' || b == '/' || b == ' ' || b == '@' }
