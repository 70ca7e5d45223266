package ui

import (
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"tradedeck/feed"
	"tradedeck/fixed"
	"tradedeck/panes/common"
	"tradedeck/theme"
)

// header is the two top lines: venue badge, symbol, 24h statistics,
// futures data with the funding countdown, best bid and offer, account.
// Rebuilt when the focused symbol's data changes; its second line also
// when the second ticks while it shows a countdown.
type header struct {
	valid bool
	w     int
	out   [headerRows]string
	// counting: line 2 shows a funding countdown, which moves with the
	// clock; stale2: the second ticked, or line 2's data moved, since
	// line 2 was drawn.
	counting, stale2 bool
}

func (h *header) invalidate() { h.valid = false }

// tick says the clock's second moved: of the header only a countdown
// shown moves with it (line 1 was drawn again every second for nothing).
func (h *header) tick() {
	if h.counting {
		h.stale2 = true
	}
}

// note marks the lines an update carries data for: line 1 the focused
// symbol's ticker; line 2 its futures data, best prices or the account
// (a busy book moves the best prices many times a second, and line 1's
// 24h figures with their decimal arithmetic were redrawn with them).
func (h *header) note(u *feed.Update, sym string) {
	if _, ok := u.Tickers[sym]; ok {
		h.invalidate()
		return
	}
	_, fu := u.Futures[sym]
	_, bb := u.BBOs[sym]
	if fu || bb || u.Account != nil {
		h.stale2 = true
	}
}

var hundred = decimal.NewFromInt(100)

// badge is the venue's label at the top left (SIM or LIVE): it must be on
// screen whenever a confirmation can be accepted (gate.go).
func badge(venue string) string { return " " + venue + " " }

// badgeWidth is the badge's width in cells from the left edge of row 0.
func badgeWidth(venue string) int { return len(badge(venue)) }

func (h *header) lines(m *Model, w int) []string {
	if h.valid && h.w == w {
		if h.stale2 {
			h.out[1], h.stale2 = m.headerLine2(w), false
		}
		return h.out[:]
	}
	h.valid, h.w, h.stale2 = true, w, false
	h.out[0] = m.headerLine1(w)
	h.out[1] = m.headerLine2(w)
	return h.out[:]
}

// headerLine1 is the badge, the symbol, last and change, high, low,
// volume, amount, and the account at the right. Prices show at the
// symbol's decimals, as everywhere else (never "654321" beside "654321.1").
func (m *Model) headerLine1(w int) string {
	t := m.c.Theme
	s := m.store
	sym := m.symbol
	ell := t.Glyphs.Ellipsis
	var l1 segments
	switch m.opts.Venue {
	case "LIVE":
		l1.add(0, t.Live, badge(m.opts.Venue))
	case "PAPER":
		l1.add(0, t.Paper, badge(m.opts.Venue))
	default:
		l1.add(0, t.Sim, badge(m.opts.Venue))
	}
	if m.opts.ReadOnly != "" { // as the dashboard decided (a test model without a desk shows none)
		l1.add(0, t.Warn, " READ-ONLY")
	}
	l1.add(0, "", " ", t.Bold, sym)
	if tk, ok := s.Tickers[sym]; ok {
		chg := decimal.Zero
		if !tk.Open.IsZero() {
			chg = tk.Close.Sub(tk.Open).Div(tk.Open).Mul(hundred)
		}
		cs, arrow := t.Buy, t.Glyphs.Up
		if chg.IsNegative() {
			cs, arrow = t.Sell, t.Glyphs.Down
		}
		pct := chg.StringFixed(2) + "%"
		if !chg.IsNegative() {
			pct = "+" + pct
		}
		l1.add(0, "", "  ", cs, s.Price(sym, tk.Close)+" "+arrow+" "+pct)
		l1.add(2, t.Muted, "  24h H ", "", s.Price(sym, tk.High))
		l1.add(2, t.Muted, "  L ", "", s.Price(sym, tk.Low))
		l1.add(3, t.Muted, "  Vol ", "", compact(tk.Volume))
		l1.add(5, t.Muted, "  Amt ", "", compact(tk.Amount))
	} else {
		l1.add(0, t.Muted, "  waiting for ticker"+ell)
	}
	if m.opts.Account != "" {
		l1.right(4, t.Muted, "acct "+m.opts.Account+" ")
	}
	return l1.render(w, ell)
}

// headerLine2 is mark, index, funding with countdown, best bid and offer,
// open interest, and the account's mode with the leverage of that mode at
// the right.
func (m *Model) headerLine2(w int) string {
	t := m.c.Theme
	s := m.store
	sym := m.symbol
	ell := t.Glyphs.Ellipsis
	var l2 segments
	m.header.counting = false
	if f, ok := s.Futures[sym]; ok {
		l2.add(0, t.Muted, " Mark ", "", s.Price(sym, f.MarkPrice))
		l2.add(3, t.Muted, "  Index ", "", s.Price(sym, f.IndexPrice))
		fs := t.Buy
		if f.EstFundingRate.IsNegative() {
			fs = t.Sell
		}
		in := ""
		if !f.NextFunding.IsZero() {
			in = " in " + countdown(f.NextFunding.Sub(m.c.Clock()))
			m.header.counting = true
		}
		l2.add(0, t.Muted, "  Funding ", fs, f.EstFundingRate.Mul(hundred).StringFixed(4)+"%", "", in)
		if !f.OpenInterest.IsZero() {
			l2.add(5, t.Muted, "  OI ", "", compact(f.OpenInterest))
		}
	} else if strings.HasPrefix(sym, "PERP_") {
		l2.add(4, t.Muted, " waiting for mark/funding…")
	} else {
		l2.add(4, t.Muted, " spot: no mark/funding")
	}
	if b, ok := s.BBOs[sym]; ok {
		l2.add(1, t.Muted, "  Bid ", t.Buy, fixed.FormatPadded(b.Bid, b.Scale.PriceDec), t.Muted, " x ", "", fixed.Format(b.BidSize, b.Scale.QtyDec),
			t.Muted, "  Ask ", t.Sell, fixed.FormatPadded(b.Ask, b.Scale.PriceDec), t.Muted, " x ", "", fixed.Format(b.AskSize, b.Scale.QtyDec))
	}
	if a := s.Account; a != nil && a.Margin.Mode != "" {
		right := a.Margin.Mode
		if lev := a.Margin.ModeLeverage(); !lev.IsZero() {
			right += " " + lev.String() + "x"
		}
		l2.right(4, t.Muted, right+" ")
	}
	return l2.render(w, ell)
}

// segments is a header line made of parts with priorities: when the line
// is too wide, the least important parts go first (higher number = less
// important), so a narrow screen keeps the price and the funding rather
// than cutting the line at an arbitrary place.
type segments struct {
	segs []segment
	rseg *segment // right-aligned
}

type segment struct {
	prio  int
	parts []string // style, text, style, text, ...
	width int
	drop  bool
}

func newSegment(prio int, parts []string) segment {
	sg := segment{prio: prio, parts: parts}
	for i := 1; i < len(parts); i += 2 {
		sg.width += len([]rune(parts[i]))
	}
	return sg
}

func (s *segments) add(prio int, parts ...string) { s.segs = append(s.segs, newSegment(prio, parts)) }

func (s *segments) right(prio int, style, text string) {
	sg := newSegment(prio, []string{style, text})
	s.rseg = &sg
}

func (s *segments) render(w int, ell string) string {
	total := func() int {
		n := 0
		for _, sg := range s.segs {
			if !sg.drop {
				n += sg.width
			}
		}
		if s.rseg != nil && !s.rseg.drop {
			n += s.rseg.width + 1
		}
		return n
	}
	for total() > w {
		worst := -1
		var ws *segment
		for i := range s.segs {
			if sg := &s.segs[i]; !sg.drop && sg.prio > 0 && sg.prio >= worst {
				worst, ws = sg.prio, sg
			}
		}
		if r := s.rseg; r != nil && !r.drop && r.prio >= worst {
			ws = r
		}
		if ws == nil {
			break // only essentials left: cut below
		}
		ws.drop = true
	}
	var l common.Line
	for _, sg := range s.segs {
		if !sg.drop {
			sg.write(&l)
		}
	}
	if l.Width() > w {
		return truncate(l.String(l.Width()), w, ell) + theme.Reset
	}
	if r := s.rseg; r != nil && !r.drop {
		l.PadTo(w - r.width)
		r.write(&l)
	}
	return l.String(w)
}

func (sg segment) write(l *common.Line) {
	for i := 0; i+1 < len(sg.parts); i += 2 {
		if sg.parts[i] == "" {
			l.Text(sg.parts[i+1])
		} else {
			l.Styled(sg.parts[i], sg.parts[i+1])
		}
	}
}

// countdown formats a duration as HH:MM:SS (00:00:00 when past).
func countdown(d time.Duration) string {
	if d < 0 {
		d = 0
	}
	s := int64(d / time.Second)
	b := make([]byte, 0, 8)
	two := func(v int64) { b = append(b, byte('0'+v/10%10), byte('0'+v%10)) }
	two(s / 3600)
	b = append(b, ':')
	two(s / 60 % 60)
	b = append(b, ':')
	two(s % 60)
	return string(b)
}

// compact writes big numbers with K/M/B.
func compact(d decimal.Decimal) string {
	for _, u := range []struct {
		s string
		v int64
	}{{"B", 1e9}, {"M", 1e6}, {"K", 1e3}} {
		if d.Abs().GreaterThanOrEqual(decimal.NewFromInt(u.v)) {
			return d.Div(decimal.NewFromInt(u.v)).StringFixed(2) + u.s
		}
	}
	return d.StringFixed(2)
}
