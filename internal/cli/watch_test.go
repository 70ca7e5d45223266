package cli

import (
	"context"
	"regexp"
	"strings"
	"testing"
	"time"

	"tradedeck/feed"
)

// syncBuffer is an io.Writer the test reads while watchLoop writes.
type syncBuffer struct {
	lines chan string
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	for _, l := range strings.Split(strings.TrimRight(string(p), "\n"), "\n") {
		b.lines <- l
	}
	return len(p), nil
}

var ageRe = regexp.MustCompile(` age (\S+)`)

// The book's age on a line is as of the line, not as of the Update that
// brought the book: watch's hub hands out a few Updates per line, and a
// line printed 200 ms after its book arrived must not say the book is 5
// ms old.
func TestWatchLineAgesTheBookToThePrint(t *testing.T) {
	updates := make(chan feed.Update, 1)
	out := &syncBuffer{lines: make(chan string, 16)}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	updates <- feed.Update{Books: map[string]*feed.Book{"SPOT_ETH_USDT": {Symbol: "SPOT_ETH_USDT", State: feed.Live, Age: 5 * time.Millisecond}}}
	go func() { done <- watchLoop(ctx, out, updates, "SPOT_ETH_USDT", 200*time.Millisecond, nil) }()
	select {
	case l := <-out.lines:
		m := ageRe.FindStringSubmatch(l)
		if m == nil {
			t.Fatalf("no age on the line %q", l)
		}
		age, err := time.ParseDuration(m[1])
		if err != nil {
			t.Fatalf("age %q: %v", m[1], err)
		}
		if age < 150*time.Millisecond {
			t.Fatalf("line printed ~200 ms after the book arrived 5 ms old says age %s:\n%s", age, l)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("no line in 5 s")
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

// watch asks its hub for a few Updates per printed line, never more than
// the headless rate.
func TestWatchFrameRateFollowsThePrintInterval(t *testing.T) {
	for _, c := range []struct {
		every time.Duration
		fps   int
	}{
		{time.Second, 2}, // 4 Updates a second
		{500 * time.Millisecond, 4},
		{5 * time.Second, 1},
		{100 * time.Millisecond, 10}, // the headless rate at most
		{0, 10},
	} {
		if got := watchFPS(c.every); got != c.fps {
			t.Errorf("every %s: fps %d, want %d", c.every, got, c.fps)
		}
	}
}

// watch against the embedded simulator prints a line per interval with
// the book, the trades and both streams live.
func TestWatchPrintsTheLiveMarket(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the simulated venue")
	}
	out, errs, code := run(t, "watch", "PERP_BTC_USDT", "--watch", "SPOT_ETH_USDT", "--every", "300ms", "--duration", "4s")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var live []string
	for _, l := range strings.Split(out, "\n") {
		if strings.Contains(l, "PERP_BTC_USDT live age") && strings.Contains(l, " bid ") && strings.Contains(l, "| market live") {
			live = append(live, l)
		}
	}
	if len(live) < 3 {
		t.Fatalf("%d lines with a live book and market stream in 4 s at 300 ms, want several:\n%s", len(live), out)
	}
	m := ageRe.FindStringSubmatch(live[len(live)-1])
	if age, err := time.ParseDuration(m[1]); err != nil || age > 2*time.Second {
		t.Fatalf("last line's book age %q (%v): the busy simulated book is not seconds old:\n%s", m[1], err, live[len(live)-1])
	}
}
