package depth

import (
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"tradedeck/feed"
	"tradedeck/panes/common"
	"tradedeck/panes/panetest"
	"tradedeck/theme"
)

const sym = "PERP_BTC_USDT"

func themeOf(t *testing.T, ascii bool) *theme.Theme {
	t.Helper()
	th, err := theme.New("dark", ascii)
	if err != nil {
		t.Fatal(err)
	}
	return th
}

// draw renders with a canvas the way a pane does.
func draw(w, h int, f func(c *common.Canvas)) []string {
	var c common.Canvas
	c.Begin(w)
	f(&c)
	return c.Finish(h)
}

// market is the fixture's book, 40 levels a side, and its own orders.
func market() (*feed.Book, []int64) {
	u := panetest.Market(1, 40)
	b := u.Books[sym]
	return b, []int64{b.Bids[2].Price, b.Asks[4].Price}
}

func TestCurveGolden(t *testing.T) {
	b, own := market()
	for _, ascii := range []bool{false, true} {
		for _, sz := range [][2]int{{80, 24}, {200, 60}} {
			var cv Curve
			lines := draw(sz[0], sz[1], func(c *common.Canvas) { cv.Draw(c, themeOf(t, ascii), b, own, sz[0], sz[1]) })
			panetest.CheckLines(t, lines, sz[0], sz[1])
			name := "curve_" + itoa(sz[0]) + "x" + itoa(sz[1])
			if ascii {
				name += "_ascii"
				for _, r := range ansi.Strip(strings.Join(lines, "")) {
					if r > 126 {
						t.Fatalf("ASCII depth has %q", r)
					}
				}
			}
			panetest.Golden(t, name, common.JoinLines(lines))
		}
	}
}

// The curves grow away from the mid, bids left, asks right; own orders
// are marked under their prices; the sides' totals are in range.
func TestCurveShape(t *testing.T) {
	b, own := market()
	var cv Curve
	lines := draw(100, 20, func(c *common.Canvas) { cv.Draw(c, themeOf(t, false), b, own, 100, 20) })
	pw := 100 - AxisW
	for x := 1; x < pw; x++ {
		if cv.side[x] == feed.Buy && cv.side[x-1] == feed.Buy && cv.cum[x] > cv.cum[x-1] {
			t.Fatalf("bid depth falls away from the mid at column %d", x)
		}
		if cv.side[x] == feed.Sell && cv.side[x-1] == feed.Sell && cv.cum[x] < cv.cum[x-1] {
			t.Fatalf("ask depth falls away from the mid at column %d", x)
		}
	}
	if cv.side[0] != feed.Buy || cv.side[pw-1] != feed.Sell {
		t.Fatal("bids must be left of the mid and asks right")
	}
	marks := ansi.Strip(lines[20-2])
	if strings.Count(marks, "▲") != 3 || !strings.Contains(marks, "own 2") {
		t.Fatalf("own orders not marked: %q", marks)
	}
}

// books is a deterministic walk of the fixture's book: n updates one
// second apart, the mid drifting a tick at a time, sizes changing.
func books(n int) []*feed.Book {
	base, _ := market()
	r := rand.New(rand.NewPCG(3, 9))
	out := make([]*feed.Book, n)
	shift := int64(0)
	for i := range n {
		shift += r.Int64N(5) - 2
		b := &feed.Book{Symbol: sym, Scale: base.Scale, State: feed.Live, TS: base.TS + int64(i)*1000, Version: uint64(i + 1)}
		for _, l := range base.Bids {
			b.Bids = append(b.Bids, feed.Level{Price: l.Price + shift, Qty: l.Qty * (1 + r.Int64N(3))})
		}
		for _, l := range base.Asks {
			b.Asks = append(b.Asks, feed.Level{Price: l.Price + shift, Qty: l.Qty * (1 + r.Int64N(3))})
		}
		out[i] = b
	}
	return out
}

// trades at the touch, newest first, one every 2.5 s.
func tradesUntil(bs []*feed.Book, i int) *feed.Trades {
	tr := &feed.Trades{Symbol: sym, Scale: bs[0].Scale}
	for k := i; k >= 0 && len(tr.Rows) < 50; k -= 5 {
		b := bs[k]
		side, p := feed.Buy, b.Asks[0].Price
		if k%10 == 0 {
			side, p = feed.Sell, b.Bids[0].Price
		}
		tr.Rows = append(tr.Rows, feed.Trade{Price: p, Qty: 10, Side: side, TS: b.TS + 500})
	}
	return tr
}

func heatOf(n int) *Heat {
	var h Heat
	bs := books(n)
	for i, b := range bs {
		h.AddBook(b)
		h.AddTrades(tradesUntil(bs, i))
	}
	return &h
}

func TestHeatGolden(t *testing.T) {
	for _, ascii := range []bool{false, true} {
		for _, sz := range [][2]int{{80, 24}, {200, 60}} {
			h := heatOf(240)
			lines := draw(sz[0], sz[1], func(c *common.Canvas) { h.Draw(c, themeOf(t, ascii), sz[0], sz[1]) })
			panetest.CheckLines(t, lines, sz[0], sz[1])
			name := "heat_" + itoa(sz[0]) + "x" + itoa(sz[1])
			if ascii {
				name += "_ascii"
			}
			panetest.Golden(t, name, common.JoinLines(lines))
		}
	}
}

// A book update builds one column; drawing after it shades that column
// only (the history's shades are cached), and the trades show.
func TestHeatShadesOnlyTheNewColumn(t *testing.T) {
	bs := books(100)
	var h Heat
	for _, b := range bs[:99] {
		h.AddBook(b)
	}
	th := themeOf(t, false)
	draw(120, 30, func(c *common.Canvas) { h.Draw(c, th, 120, 30) })
	before, scale, top := h.shaded, h.max, h.top
	h.AddBook(bs[99])
	draw(120, 30, func(c *common.Canvas) { h.Draw(c, th, 120, 30) })
	if h.max != scale || h.top != top {
		t.Fatalf("the fixture moved the grid or scale (%d %d): pick another update", h.max, h.top)
	}
	if got := h.shaded - before; got != 1 {
		t.Fatalf("one book update shaded %d columns", got)
	}
	if h.Len() != 100 {
		t.Fatalf("%d columns for 100 one-second updates", h.Len())
	}
	// Two updates in the same second replace the newest column.
	again := *bs[99]
	again.Version++
	h.AddBook(&again)
	if h.Len() != 100 {
		t.Fatal("an update within the step added a column")
	}
	h.AddTrades(tradesUntil(bs, 99))
	lines := draw(120, 30, func(c *common.Canvas) { h.Draw(c, th, 120, 30) })
	if !strings.Contains(ansi.Strip(strings.Join(lines, "\n")), "•") {
		t.Fatal("trades not drawn over the map")
	}
}

// The history is bounded, whatever the number of updates.
func TestHeatBounded(t *testing.T) {
	h := Heat{MaxCols: 50}
	for _, b := range books(300) {
		h.AddBook(b)
	}
	if h.Len() != 50 {
		t.Fatalf("%d columns kept, want 50", h.Len())
	}
	if last := h.at(h.Len() - 1); last.t != books(300)[299].TS-books(300)[299].TS%1000 {
		t.Fatal("the newest column is not the last update's")
	}
}

// TestHeatColumnsHoldTheBookOnly: a column keeps the buckets the book
// spans, not the 2*maxBuckets+1 the grid could reach: 600 columns of a
// whole history stay well under a MiB.
func TestHeatColumnsHoldTheBookOnly(t *testing.T) {
	var h Heat
	bs := books(700)
	for _, b := range bs {
		h.AddBook(b)
	}
	held := 0
	for i := range h.Len() {
		held += 8 * cap(h.at(i).qty)
	}
	if h.Len() != 600 || held > 600*8*120 {
		t.Fatalf("%d columns hold %d bytes of sizes, want 600 under %d", h.Len(), held, 600*8*120)
	}
	b, last := bs[len(bs)-1], h.at(h.Len()-1)
	for _, l := range append(append([]feed.Level(nil), b.Bids...), b.Asks...) {
		if i := l.Price/h.bucket - last.base; i < 0 || i >= int64(len(last.qty)) || last.qty[i] == 0 {
			t.Fatalf("level %d of the newest book is not in its column (base %d, %d buckets)", l.Price, last.base, len(last.qty))
		}
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

// Thin and odd books draw without a wrong picture: one level a side, an
// empty side, no book, a pane too small.
func TestCurveOddBooks(t *testing.T) {
	th := themeOf(t, true)
	b, _ := market()
	thin := *b
	thin.Asks = thin.Asks[:1]
	empty := *b
	empty.Asks = nil
	for name, bk := range map[string]*feed.Book{"thin": &thin, "empty": &empty, "none": nil} {
		for _, sz := range [][2]int{{80, 24}, {20, 3}} {
			var cv Curve
			lines := draw(sz[0], sz[1], func(c *common.Canvas) { cv.Draw(c, th, bk, nil, sz[0], sz[1]) })
			panetest.CheckLines(t, lines, sz[0], sz[1])
			if name == "thin" && sz[0] == 80 && !strings.Contains(lines[0], "mid") {
				t.Fatalf("thin book not drawn:\n%s", strings.Join(lines, "\n"))
			}
		}
	}
	var h Heat
	lines := draw(30, 3, func(c *common.Canvas) { h.Draw(c, th, 30, 3) })
	panetest.CheckLines(t, lines, 30, 3)
}

// Seconds in which the book did not move (the feed sends no repeat) keep
// a column each, the book's shape of that moment, so the time axis stays
// even: 10 quiet seconds between two updates are 10 columns, and a quiet
// spell longer than the history fills it without growing it.
func TestHeatQuietSecondsKeepTheirColumns(t *testing.T) {
	bs := books(3)
	var h Heat
	h.AddBook(bs[0])
	later := *bs[1]
	later.TS = bs[0].TS + 11_000 // 10 seconds with no update in between
	h.AddBook(&later)
	if h.Len() != 12 {
		t.Fatalf("%d columns for 12 seconds", h.Len())
	}
	first, quiet, last := h.at(0), h.at(5), h.at(11)
	if quiet.t != first.t+5_000 || last.t != first.t+11_000 {
		t.Fatalf("columns at %d, %d, %d: not one a second", first.t, quiet.t, last.t)
	}
	if quiet.base != first.base || len(quiet.qty) != len(first.qty) || quiet.qty[len(quiet.qty)/2] != first.qty[len(first.qty)/2] {
		t.Fatal("a quiet second's column is not the book of that moment")
	}

	small := Heat{MaxCols: 20}
	small.AddBook(bs[0])
	far := *bs[2]
	far.TS = bs[0].TS + 3_600_000 // an hour later
	small.AddBook(&far)
	if small.Len() != 20 || small.at(19).t != far.TS-far.TS%1000 || small.at(0).t != small.at(19).t-19_000 {
		t.Fatalf("%d columns, %d..%d", small.Len(), small.at(0).t, small.at(small.Len()-1).t)
	}
}
