package depth

import (
	"time"

	"tradedeck/feed"
	"tradedeck/fixed"
	"tradedeck/panes/common"
	"tradedeck/theme"
)

// Heat is the book's history as a heat map: one column per Step of venue
// time, one row per price bucket, the shade the size resting in the
// bucket, the trades of the column's time drawn over it. A book update
// builds (or replaces) only the newest column; a column's shades are kept
// until the price grid or the scale changes, so drawing a frame composes
// cached cells instead of going through the history again.
type Heat struct {
	Step    time.Duration // venue time per column (default 1 s)
	MaxCols int           // columns kept (default 600): memory stays bounded

	scale  feed.Scale
	bucket int64 // price units per row (a multiple of the tick seen)
	cols   []column
	head   int // index of the oldest column in the ring
	lastTr feed.Trade
	seenTr bool
	top    int64 // bucket index of the first row, kept while the mid stays inside
	rows   int
	max    int64 // the scale of the shades: the largest bucket in view
	shaded int   // columns shaded so far (a test sees what a frame redid)
}

// column is one time step of the book.
type column struct {
	t      int64   // venue ms of the step's start
	base   int64   // bucket index of qty[0]
	qty    []int64 // size resting per bucket, from base upwards
	most   int64   // the largest of qty
	mid    int64   // bucket index of the mid
	trades []mark
	shade  []uint8 // per row, for the grid and scale in stamp
	stamp  [2]int64
}

// mark is a trade drawn over the map.
type mark struct {
	bucket int64
	side   feed.Side
}

// maxBuckets bounds a column around the mid (each side), whatever the
// book's depth.
const maxBuckets = 256

// Reset forgets the history (another symbol).
func (h *Heat) Reset() { *h = Heat{Step: h.Step, MaxCols: h.MaxCols} }

// Len is the number of columns held.
func (h *Heat) Len() int { return len(h.cols) }

// AddBook records a book update: a new column when a new step began,
// else the newest column replaced.
func (h *Heat) AddBook(b *feed.Book) {
	if b == nil || len(b.Bids) == 0 || len(b.Asks) == 0 {
		return
	}
	step := h.step()
	t := b.TS - b.TS%step
	if h.bucket == 0 || b.Scale != h.scale {
		h.Reset()
		h.scale = b.Scale
		h.bucket = bucketOf(b)
	}
	var col *column
	if n := len(h.cols); n > 0 && h.at(n-1).t == t {
		col = h.at(n - 1)
	} else {
		if n > 0 {
			h.fillQuiet(t)
		}
		col = h.push(t)
	}
	mid := (b.Bids[0].Price + (b.Asks[0].Price-b.Bids[0].Price)/2) / h.bucket
	// The column spans the book's own buckets (about 80: bucketOf fits
	// the nearer side in 40 rows), not all 2*maxBuckets+1 around the mid:
	// 600 columns of those held 2.4 MiB, now ~0.4 MiB.
	lo := max(b.Bids[len(b.Bids)-1].Price/h.bucket, mid-maxBuckets)
	hi := min(b.Asks[len(b.Asks)-1].Price/h.bucket, mid+maxBuckets)
	col.mid, col.base, col.stamp = mid, lo, [2]int64{}
	col.qty = resize(col.qty, int(max(hi-lo+1, 0)))
	clear(col.qty)
	col.most = 0
	for _, side := range [][]feed.Level{b.Bids, b.Asks} {
		for _, l := range side {
			if i := l.Price/h.bucket - col.base; i >= 0 && i < int64(len(col.qty)) {
				col.qty[i] += l.Qty
				col.most = max(col.most, col.qty[i])
			}
		}
	}
}

// fillQuiet repeats the newest column for the steps before t in which
// the book did not move: the feed sends no repeat of an unchanged book,
// and every step keeps its column, so the time axis stays even.
func (h *Heat) fillQuiet(t int64) {
	step, keep := h.step(), h.maxCols()
	if keep < 2 {
		return
	}
	last := h.at(len(h.cols) - 1)
	// Older steps than the ring holds would drop out at once; the newest
	// column's buffers stay untouched while it is copied.
	from := max(last.t+step, t-int64(keep-1)*step)
	base, mid, most, qty := last.base, last.mid, last.most, last.qty
	for s := from; s < t; s += step {
		c := h.push(s)
		c.base, c.mid, c.most = base, mid, most
		c.qty = resize(c.qty, len(qty))
		copy(c.qty, qty)
	}
}

// AddTrades records the trades newer than the last seen (rows newest
// first) in the columns of their time.
func (h *Heat) AddTrades(tr *feed.Trades) {
	if tr == nil || len(tr.Rows) == 0 || len(h.cols) == 0 || tr.Scale != h.scale {
		return
	}
	n := 0
	for n < len(tr.Rows) && (!h.seenTr || tr.Rows[n] != h.lastTr) && (!h.seenTr || tr.Rows[n].TS >= h.lastTr.TS) {
		n++
	}
	for i := n - 1; i >= 0; i-- {
		r := tr.Rows[i]
		if col := h.colAt(r.TS); col != nil && len(col.trades) < 32 {
			col.trades = append(col.trades, mark{r.Price / h.bucket, r.Side})
			col.stamp = [2]int64{}
		}
	}
	h.lastTr, h.seenTr = tr.Rows[0], true
}

func (h *Heat) step() int64 {
	if h.Step <= 0 {
		return 1000
	}
	return max(h.Step.Milliseconds(), 1)
}

func (h *Heat) maxCols() int {
	if h.MaxCols <= 0 {
		return 600
	}
	return h.MaxCols
}

// at is the i-th column, oldest first.
func (h *Heat) at(i int) *column { return &h.cols[(h.head+i)%len(h.cols)] }

// push starts a column, dropping the oldest when the ring is full (its
// buffers are reused).
func (h *Heat) push(t int64) *column {
	if len(h.cols) < h.maxCols() {
		h.cols = append(h.cols, column{t: t})
		return &h.cols[len(h.cols)-1]
	}
	c := &h.cols[h.head]
	h.head = (h.head + 1) % len(h.cols)
	c.t, c.trades, c.stamp = t, c.trades[:0], [2]int64{}
	return c
}

// colAt is the column of a venue time, nil when older than the history.
func (h *Heat) colAt(ts int64) *column {
	t := ts - ts%h.step()
	for i := len(h.cols) - 1; i >= 0; i-- {
		if c := h.at(i); c.t <= t {
			return c
		}
	}
	return nil
}

// bucketOf chooses the rows' price step: the smallest round step (1, 2
// or 5 times a power of ten of the price's last digit) with which 40 rows
// cover the book's nearer side, so a row of a deep book holds several
// levels and the labels stay round.
func bucketOf(b *feed.Book) int64 {
	reach := min(b.Bids[0].Price-b.Bids[len(b.Bids)-1].Price, b.Asks[len(b.Asks)-1].Price-b.Asks[0].Price)
	for p := int64(1); ; p *= 10 {
		for _, m := range []int64{1, 2, 5} {
			if reach/(m*p) <= 40 {
				return m * p
			}
		}
	}
}

var shadesUnicode = []string{" ", "░", "▒", "▓", "█"}
var shadesASCII = []string{" ", ".", ":", "+", "#"}

// Draw renders the newest columns that fit into c, w x h: an info line,
// the map with price labels on the right, and a time axis.
func (h *Heat) Draw(c *common.Canvas, t *theme.Theme, w, ht int) {
	pw, ph := w-AxisW, ht-2
	if len(h.cols) == 0 || ph < 2 || pw < 8 {
		c.Lines(common.Centered(w, ht, t.Muted, "waiting for the book"+t.Glyphs.Ellipsis))
		return
	}
	n := min(len(h.cols), pw)
	first := len(h.cols) - n
	h.grid(h.at(len(h.cols)-1).mid, ph)
	h.scaleTo(first)
	h.infoLine(c, t, w)
	h.mapRows(c, t, first, n, pw, ph)
	h.timeAxis(c, t, first, n, pw)
}

// grid keeps the price rows while the mid stays in their middle half and
// centres them on it otherwise (a recentred grid redraws every column).
func (h *Heat) grid(mid int64, rows int) {
	if rows != h.rows || mid > h.top-int64(rows)/4 || mid < h.top-int64(rows)*3/4 {
		h.top, h.rows = mid+int64(rows)/2, rows
	}
}

// scaleTo sets the shade scale from the largest bucket of the columns in
// view. It rises at once but falls only when the largest is under half
// of it, so the scale (and with it every column's shades) stays put while
// the book merely breathes.
func (h *Heat) scaleTo(first int) {
	var m int64 = 1
	for i := first; i < len(h.cols); i++ {
		m = max(m, h.at(i).most)
	}
	if m > h.max || m < h.max/2 {
		h.max = m
	}
}

// shades of a column for the current grid and scale, cached.
func (h *Heat) shades(c *column, levels int) []uint8 {
	stamp := [2]int64{h.top + 1, h.max} // +1: the zero stamp means never shaded
	if c.stamp == stamp && len(c.shade) == h.rows {
		return c.shade
	}
	c.shade = resize(c.shade, h.rows)
	h.shaded++
	for r := range h.rows {
		b := h.top - int64(r) - c.base
		q := int64(0)
		if b >= 0 && b < int64(len(c.qty)) {
			q = c.qty[b]
		}
		s := uint8(0)
		if q > 0 {
			s = uint8(min(1+q*int64(levels-1)/h.max, int64(levels-1)))
		}
		c.shade[r] = s
	}
	for _, m := range c.trades {
		if r := h.top - m.bucket; r >= 0 && r < int64(h.rows) {
			c.shade[r] = 0xF0 | uint8(m.side) // a trade: drawn over the shade
		}
	}
	c.stamp = stamp
	return c.shade
}

func (h *Heat) infoLine(c *common.Canvas, t *theme.Theme, w int) {
	buf := []byte(" book heat map · row ")
	buf = fixed.Append(buf, h.bucket, h.scale.PriceDec)
	buf = append(buf, " · "...)
	buf = append(buf, time.Duration(h.step()*int64(time.Millisecond)).String()...)
	buf = append(buf, "/column · darkest "...)
	buf = fixed.Append(buf, h.max, h.scale.QtyDec)
	c.Styled(t.Muted, common.Cut(string(buf), w))
	c.EndLine()
}

func (h *Heat) mapRows(c *common.Canvas, t *theme.Theme, first, n, pw, ph int) {
	shades := shadesUnicode
	dot := "•"
	if t.Glyphs.ASCII {
		shades, dot = shadesASCII, "o"
	}
	cols := make([][]uint8, n)
	mids := make([]int64, n) // the first row above the column's mid
	for i := range n {
		col := h.at(first + i)
		cols[i], mids[i] = h.shades(col, len(shades)), h.top-col.mid
	}
	var pen common.Pen
	for r := range ph {
		c.Space(pw - n) // a history shorter than the map starts at the right
		ask := t.Sell
		for i, col := range cols {
			s := col[r]
			switch {
			case s == 0:
				c.Put(&pen, "", " ")
			case s&0xF0 == 0xF0:
				st := t.BuyBold
				if feed.Side(s&0x0F) == feed.Sell {
					st = t.SellBold
				}
				c.Put(&pen, st, dot)
			case int64(r) < mids[i]:
				c.Put(&pen, ask, shades[s])
			default:
				c.Put(&pen, t.Buy, shades[s])
			}
		}
		c.PenOff(&pen)
		if r%5 == 0 || r == ph-1 {
			c.Space(1).Styled(t.Muted, common.Left(string(fixed.AppendPadded(nil, (h.top-int64(r))*h.bucket, h.scale.PriceDec)), AxisW-1))
		}
		c.EndLine()
	}
}

func (h *Heat) timeAxis(c *common.Canvas, t *theme.Theme, first, n, pw int) {
	a := time.UnixMilli(h.at(first).t).UTC().Format("15:04:05")
	b := time.UnixMilli(h.at(first + n - 1).t).UTC().Format("15:04:05")
	if gap := pw - (pw - n) - len(a) - len(b); gap >= 1 {
		c.Space(pw-n).Styled(t.Muted, a).Space(gap).Styled(t.Muted, b)
	} else {
		c.Space(max(pw-len(b), 0)).Styled(t.Muted, b)
	}
	c.EndLine()
}
