// Package depth draws two pictures of an order book for the chart pane:
// the cumulative depth chart (Curve: bid and ask curves around the mid,
// x the price, y the size resting up to that price, own orders marked)
// and the book heat map (Heat: price rows, time columns, shade the size
// resting, trades overlaid). Both draw straight into a common.Canvas with
// the theme's glyphs (Unicode or ASCII) and styles (colour or mono).
package depth

import (
	"strconv"

	"tradedeck/feed"
	"tradedeck/fixed"
	"tradedeck/panes/common"
	"tradedeck/theme"
)

// AxisW is the width of the axis labels right of the plot.
const AxisW = 11

// Curve draws the cumulative depth of a book. It keeps its column buffers
// between renderings; the chart pane caches the lines it draws.
type Curve struct {
	cum  []int64     // per column: size resting between the mid and its price
	side []feed.Side // per column: Buy left of the mid, Sell right, 0 none
	own  []bool      // per column: an own order rests in it
}

// Draw renders book (own: the prices of own open orders) into c, w x h.
func (cv *Curve) Draw(c *common.Canvas, t *theme.Theme, book *feed.Book, own []int64, w, h int) {
	if book == nil || len(book.Bids) == 0 || len(book.Asks) == 0 || h < 4 || w < AxisW+8 {
		msg := "waiting for the book" + t.Glyphs.Ellipsis
		if book != nil && book.State == feed.Live {
			msg = "one side of the book is empty"
		}
		c.Lines(common.Centered(w, h, t.Muted, msg))
		return
	}
	sc := book.Scale
	pw, ph := w-AxisW, h-3 // plot: minus the info line, own-order marks and the price axis
	bid, ask := book.Bids[0].Price, book.Asks[0].Price
	// Both sides over the same distance from the mid: the nearer of the
	// two deepest levels, so neither curve runs past what is known.
	bidReach, askReach := bid-book.Bids[len(book.Bids)-1].Price, book.Asks[len(book.Asks)-1].Price-ask
	reach := min(bidReach, askReach)
	if reach <= 0 { // one side has a single level: show the other's reach
		reach = max(bidReach, askReach, 1)
	}
	lo, hi := bid-reach, ask+reach
	cv.columns(book, own, lo, hi, pw)
	top := int64(1)
	for _, v := range cv.cum {
		top = max(top, v)
	}
	cv.info(c, t, book, lo, hi, w)
	cv.plot(c, t, top, sc, pw, ph)
	cv.marks(c, t, pw)
	axis(c, t, lo, bid+(ask-bid)/2, hi, sc.PriceDec, pw)
}

// columns fills the per-column buffers: column x holds the prices
// [lo + x*step, lo + (x+1)*step); a bid column the size at and above its
// lowest price, an ask column the size at and below its highest.
func (cv *Curve) columns(book *feed.Book, own []int64, lo, hi int64, pw int) {
	cv.cum = resize(cv.cum, pw)
	cv.side = resize(cv.side, pw)
	cv.own = resize(cv.own, pw)
	span := hi - lo + 1
	col := func(p int64) int { return int((p - lo) * int64(pw) / span) }
	clear(cv.cum)
	clear(cv.side)
	clear(cv.own)
	// Bids: best first, walking left; a column takes the total so far.
	var total int64
	for _, l := range book.Bids {
		if l.Price < lo {
			break
		}
		total += l.Qty
		x := col(l.Price)
		for i := x; i >= 0 && cv.side[i] != feed.Sell; i-- {
			cv.cum[i], cv.side[i] = total, feed.Buy
		}
	}
	total = 0
	for _, l := range book.Asks {
		if l.Price > hi {
			break
		}
		total += l.Qty
		x := col(l.Price)
		for i := x; i < pw; i++ {
			cv.cum[i], cv.side[i] = total, feed.Sell
		}
	}
	for _, p := range own {
		if p >= lo && p <= hi {
			cv.own[col(p)] = true
		}
	}
}

func resize[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	return s[:n]
}

// info is the first line: mid, spread, and each side's size in range.
func (cv *Curve) info(c *common.Canvas, t *theme.Theme, book *feed.Book, lo, hi int64, w int) {
	sc := book.Scale
	bid, ask := book.Bids[0].Price, book.Asks[0].Price
	var buf []byte
	buf = append(buf, " mid "...)
	buf = fixed.AppendPadded(buf, bid+(ask-bid)/2, sc.PriceDec)
	buf = append(buf, "  spread "...)
	buf = fixed.AppendPadded(buf, ask-bid, sc.PriceDec)
	var bids, asks int64
	if len(cv.cum) > 0 {
		bids, asks = cv.cum[0], cv.cum[len(cv.cum)-1]
	}
	c.Styled(t.Text, common.Cut(string(buf), w))
	// Whole fields only: a number cut short would be a wrong number.
	if side := "  bids " + string(fixed.AppendPadded(nil, bids, sc.QtyDec)); w-c.Width() >= len(side) {
		c.Styled(t.Buy, side)
	}
	if side := "  asks " + string(fixed.AppendPadded(nil, asks, sc.QtyDec)); w-c.Width() >= len(side) {
		c.Styled(t.Sell, side)
	}
	c.EndLine()
}

// plot draws the filled curves, eighths of a cell at their tops, with
// size labels on the right (top, half, zero).
func (cv *Curve) plot(c *common.Canvas, t *theme.Theme, top int64, sc feed.Scale, pw, ph int) {
	g := t.Glyphs
	var pen common.Pen
	mid := -1
	for x := range pw {
		if cv.side[x] == 0 {
			mid = x // the spread: where the mid line goes
		}
	}
	// Heights in eighths of a cell, once per column (kept in cum).
	for x := range pw {
		cv.cum[x] = cv.cum[x] * int64(ph) * 8 / top
	}
	for r := range ph {
		base := int64(ph-1-r) * 8
		for x := range pw {
			e := min(max(cv.cum[x]-base, 0), 8)
			style := t.Buy
			if cv.side[x] == feed.Sell {
				style = t.Sell
			}
			switch {
			case e > 0:
				c.Put(&pen, style, g.VolEighths[e])
			case x == mid:
				c.Put(&pen, t.Muted, g.Wick)
			default:
				c.Put(&pen, "", " ")
			}
		}
		c.PenOff(&pen)
		switch r {
		case 0:
			c.Space(1).Styled(t.Muted, common.Left(string(fixed.Append(nil, top, sc.QtyDec)), AxisW-1))
		case ph / 2:
			c.Space(1).Styled(t.Muted, common.Left(string(fixed.Append(nil, top/2, sc.QtyDec)), AxisW-1))
		case ph - 1:
			c.Space(1).Styled(t.Muted, common.Left("0", AxisW-1))
		}
		c.EndLine()
	}
}

// marks puts a marker under each column holding an own order.
func (cv *Curve) marks(c *common.Canvas, t *theme.Theme, pw int) {
	n := 0
	var pen common.Pen
	for x := range pw {
		if cv.own[x] {
			c.Put(&pen, t.Own, t.Glyphs.Up)
			n++
		} else {
			c.Put(&pen, "", " ")
		}
	}
	c.PenOff(&pen)
	if n > 0 {
		c.Space(1).Styled(t.Own, common.Left(t.Glyphs.Up+" own "+strconv.Itoa(n), AxisW-1))
	}
	c.EndLine()
}

// axis labels the price axis: the low end, the mid, the high end.
func axis(c *common.Canvas, t *theme.Theme, lo, mid, hi int64, dec, pw int) {
	l := string(fixed.AppendPadded(nil, lo, dec))
	m := string(fixed.AppendPadded(nil, mid, dec))
	r := string(fixed.AppendPadded(nil, hi, dec))
	mx := max(pw/2-len(m)/2, len(l)+1)
	if mx+len(m)+1+len(r) > pw {
		c.Styled(t.Muted, common.Cut(l+" "+r, pw))
	} else {
		c.Styled(t.Muted, l).Space(mx-len(l)).Styled(t.Muted, m).Space(pw-mx-len(m)-len(r)).Styled(t.Muted, r)
	}
	c.EndLine()
}
