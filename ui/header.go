package ui

import (
	"time"

	"github.com/shopspring/decimal"

	"tradedeck/fixed"
	"tradedeck/panes/common"
	"tradedeck/theme"
)

// header is the two top lines: venue badge, symbol, 24h statistics,
// futures data with the funding countdown, best bid and offer, account.
// Rebuilt when the focused symbol's data changes or the second ticks.
type header struct {
	valid bool
	w     int
	out   [headerRows]string
}

func (h *header) invalidate() { h.valid = false }

var hundred = decimal.NewFromInt(100)

func (h *header) lines(m *Model, w int) []string {
	if h.valid && h.w == w {
		return h.out[:]
	}
	h.valid, h.w = true, w
	t := m.c.Theme
	s := m.store
	sym := m.symbol
	var l common.Line
	ell := t.Glyphs.Ellipsis

	// Line 1: badge, symbol, last, change, high, low, volume; account right.
	if m.opts.Venue == "LIVE" {
		l.Styled(t.Live, " LIVE ")
	} else {
		l.Styled(t.Sim, " "+m.opts.Venue+" ")
	}
	if m.opts.ReadOnly {
		l.Styled(t.Warn, " READ-ONLY")
	}
	l.Text(" ").Styled(t.Bold, sym)
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
		l.Text("  ").Styled(cs, tk.Close.String()+" "+arrow+" "+pct)
		l.Styled(t.Muted, "  24h H ").Text(tk.High.String())
		l.Styled(t.Muted, "  L ").Text(tk.Low.String())
		l.Styled(t.Muted, "  Vol ").Text(compact(tk.Volume))
		l.Styled(t.Muted, "  Amt ").Text(compact(tk.Amount))
	} else {
		l.Styled(t.Muted, "  waiting for ticker"+ell)
	}
	acct := ""
	if m.opts.Account != "" {
		acct = "acct " + m.opts.Account + " "
	}
	h.out[0] = fitRight(&l, acct, t.Muted, w, ell)

	// Line 2: mark, index, funding with countdown, open interest, bbo.
	l.Reset()
	if f, ok := s.Futures[sym]; ok {
		l.Styled(t.Muted, " Mark ").Text(f.MarkPrice.String())
		l.Styled(t.Muted, "  Index ").Text(f.IndexPrice.String())
		rate := f.EstFundingRate
		fs := t.Buy
		if rate.IsNegative() {
			fs = t.Sell
		}
		l.Styled(t.Muted, "  Funding ").Styled(fs, rate.Mul(hundred).StringFixed(4)+"%")
		if !f.NextFunding.IsZero() {
			l.Styled(t.Muted, " in ").Text(countdown(f.NextFunding.Sub(m.c.Clock())))
		}
		if !f.OpenInterest.IsZero() {
			l.Styled(t.Muted, "  OI ").Text(compact(f.OpenInterest))
		}
	} else {
		l.Styled(t.Muted, " spot: no mark/funding")
	}
	if b, ok := s.BBOs[sym]; ok {
		var tmp [64]byte
		l.Styled(t.Muted, "  Bid ").StyledBytes(t.Buy, fixed.AppendPadded(tmp[:0], b.Bid, b.Scale.PriceDec))
		l.Styled(t.Muted, " x ").Bytes(fixed.Append(tmp[:0], b.BidSize, b.Scale.QtyDec))
		l.Styled(t.Muted, "  Ask ").StyledBytes(t.Sell, fixed.AppendPadded(tmp[:0], b.Ask, b.Scale.PriceDec))
		l.Styled(t.Muted, " x ").Bytes(fixed.Append(tmp[:0], b.AskSize, b.Scale.QtyDec))
	}
	right := ""
	if a := s.Account; a != nil && a.Margin.Mode != "" {
		right = a.Margin.Mode
		if !a.Margin.Leverage.IsZero() {
			right += " " + a.Margin.Leverage.String() + "x"
		}
		right += " "
	}
	h.out[1] = fitRight(&l, right, t.Muted, w, ell)
	return h.out[:]
}

// fitRight finishes a header line: cut to w (styled text is rebuilt from
// the plain parts when too long) and put right-aligned text at the end
// when it fits.
func fitRight(l *common.Line, right, style string, w int, ell string) string {
	if l.Width() > w {
		return truncate(l.String(l.Width()), w, ell) + theme.Reset
	}
	if n := len(right); n > 0 && l.Width()+n+1 <= w {
		l.PadTo(w-n).Styled(style, right)
	}
	return l.String(w)
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
