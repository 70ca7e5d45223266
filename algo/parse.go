package algo

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"tradedeck/trade"
)

// Grammar is the one syntax of the `:` command line, `tradedeck algo add`
// and docs/algos.md. SIZE is a quantity or N% of the position (default:
// the whole position); the side is always the one that closes the
// position. Options may come in any order after the positional words.
var Grammar = []string{
	"stop SYMBOL TRIGGER [SIZE] [limit PRICE [market-after DURATION]] [on last|bid|ask|mid|mark] [now]",
	"tp SYMBOL TRIGGER [SIZE] [market] [on SOURCE] [now]",
	"oco SYMBOL TP_PRICE STOP_PRICE [SIZE] [on SOURCE] [now]",
	"trail SYMBOL PERCENT%|DISTANCE [SIZE] [from ACTIVATION] [on SOURCE]",
	"bracket SYMBOL buy|sell QTY at PRICE|market [type limit|post_only|ioc|fok|ask|bid] tp PRICE sl PRICE [on SOURCE]",
	"chase SYMBOL buy|sell QTY [offset TICKS] [threshold TICKS] [leash PRICE] [at-leash rest|cancel] [post] [reduce]",
	"scale SYMBOL buy|sell QTY from PRICE to PRICE count N [skew flat|linear FACTOR|exp FACTOR] [post] [reduce]",
	"twap SYMBOL buy|sell QTY over DURATION [slices N] [jitter PERCENT%] [limit PRICE] [outside pause|skip|stop] [slice market|best] [catchup spread|skip|N] [reduce]",
}

// Kinds are the grammar's first words.
var Kinds = []string{"stop", "tp", "oco", "trail", "bracket", "chase", "scale", "twap"}

// ParseError says which word is wrong and what was expected there.
type ParseError struct {
	Word int    // index of the offending word (-1: the line as a whole)
	Got  string // the word
	Want string // what was expected
}

func (e *ParseError) Error() string {
	if e.Got == "" {
		return "expected " + e.Want
	}
	return fmt.Sprintf("%q: expected %s", e.Got, e.Want)
}

// Parse reads one algo from a command line (without the leading `:`).
// Symbols are upper-cased; they are checked against the venue by the
// engine's Preview, not here.
func Parse(line string) (Spec, error) {
	p := parser{words: strings.Fields(line)}
	kind := strings.ToLower(p.next())
	var s Spec
	var err error
	switch kind {
	case "stop", "sl":
		s, err = p.level(KindStop, "limit", "on", "now")
	case "tp", "take-profit":
		s, err = p.level(KindTP, "market", "on", "now")
	case "oco":
		s, err = p.oco()
	case "trail", "trailing":
		s, err = p.trail()
	case "bracket":
		s, err = p.bracket()
	case "chase", "scale", "ladder", "twap":
		s, err = p.work(workKind(kind))
	case "":
		return Spec{}, &ParseError{Word: 0, Want: "one of " + strings.Join(Kinds, ", ")}
	default:
		return Spec{}, &ParseError{Word: 0, Got: kind, Want: "one of " + strings.Join(Kinds, ", ")}
	}
	if err != nil {
		return Spec{}, err
	}
	return s, s.Check()
}

type parser struct {
	words []string
	i     int
}

func (p *parser) next() string {
	if p.i >= len(p.words) {
		p.i++
		return ""
	}
	w := p.words[p.i]
	p.i++
	return w
}

func (p *parser) peek() string {
	if p.i >= len(p.words) {
		return ""
	}
	return p.words[p.i]
}

func (p *parser) fail(want string) error {
	w := p.i - 1
	got := ""
	if w >= 0 && w < len(p.words) {
		got = p.words[w]
	}
	return &ParseError{Word: w, Got: got, Want: want}
}

func (p *parser) symbol() (string, error) {
	s := p.next()
	if s == "" || strings.ContainsAny(s, "%.") || !strings.Contains(s, "_") {
		return "", p.fail("SYMBOL (like PERP_BTC_USDT)")
	}
	return strings.ToUpper(s), nil
}

func (p *parser) price(what string) (decimal.Decimal, error) {
	d, err := number(p.next())
	if err != nil || !d.IsPositive() {
		return decimal.Zero, p.fail(what + " (a positive price)")
	}
	return d, nil
}

// size reads an optional SIZE: a quantity or N%, when the next word is one.
func (p *parser) size() (Size, error) {
	w := p.peek()
	if w == "" || !startsNumeric(w) {
		return Size{}, nil
	}
	p.i++
	if strings.HasSuffix(w, "%") {
		d, err := number(strings.TrimSuffix(w, "%"))
		if err != nil || !d.IsPositive() || d.GreaterThan(hundred) {
			return Size{}, p.fail("SIZE percent in (0, 100]")
		}
		return Size{Percent: d}, nil
	}
	d, err := number(w)
	if err != nil || !d.IsPositive() {
		return Size{}, p.fail("SIZE (a quantity or N%)")
	}
	return Size{Qty: d}, nil
}

// number reads a plain decimal as a trader types it: digits with at most
// one point (and a sign, refused later where it does not fit), at most
// maxNumberLen characters. decimal.NewFromString alone takes "1e9999",
// a quantity whose ten thousand digits would then fill every screen,
// log line and database row that shows the algo.
func number(w string) (decimal.Decimal, error) {
	digits := strings.TrimPrefix(strings.TrimPrefix(w, "-"), "+")
	if len(w) > maxNumberLen || digits == "" || strings.Trim(digits, "0123456789.") != "" || strings.Count(digits, ".") > 1 {
		return decimal.Zero, fmt.Errorf("%q is not a plain number", w)
	}
	return decimal.NewFromString(w)
}

// maxNumberLen bounds a number's text: more digits than any price or
// quantity of a venue carries.
const maxNumberLen = 32

func startsNumeric(w string) bool { return w[0] >= '0' && w[0] <= '9' || w[0] == '.' }

// options reads the keyword options allowed for a kind, in any order.
func (p *parser) options(s *Spec, allowed ...string) error {
	has := func(k string) bool { return contains(allowed, k) }
	for p.i < len(p.words) {
		w := strings.ToLower(p.next())
		var err error
		switch {
		case w == "on" && has("on"):
			s.Source, err = ParseSource(p.next())
			if err != nil {
				return p.fail("a price source: last, bid, ask, mid or mark")
			}
		case w == "now" && has("now"):
			s.FireIfThrough = true
		case w == "limit" && has("limit"):
			s.Limit, err = p.price("limit PRICE")
		case w == "market-after" && has("limit") && s.Limit.IsPositive():
			s.After.MarketAfter, err = time.ParseDuration(p.next())
			if err != nil || s.After.MarketAfter <= 0 {
				return p.fail("a duration like 5s or 1m")
			}
		case w == "market" && has("market"):
			s.TPMarket = true
		case w == "from" && has("from"):
			s.Activation, err = p.price("ACTIVATION")
		default:
			return p.fail("one of: " + strings.Join(allowed, ", "))
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// level reads the forms with one trigger (stop, tp): SYMBOL TRIGGER
// [SIZE] and the kind's options.
func (p *parser) level(k Kind, opts ...string) (Spec, error) {
	s := Spec{Kind: k}
	var err error
	if s.Symbol, err = p.symbol(); err != nil {
		return s, err
	}
	if s.Trigger, err = p.price("TRIGGER"); err != nil {
		return s, err
	}
	if s.Size, err = p.size(); err != nil {
		return s, err
	}
	return s, p.options(&s, opts...)
}

func (p *parser) oco() (Spec, error) {
	s := Spec{Kind: KindOCO}
	var err error
	if s.Symbol, err = p.symbol(); err != nil {
		return s, err
	}
	if s.TP, err = p.price("TP_PRICE"); err != nil {
		return s, err
	}
	if s.SL, err = p.price("STOP_PRICE"); err != nil {
		return s, err
	}
	if s.Size, err = p.size(); err != nil {
		return s, err
	}
	return s, p.options(&s, "on", "now")
}

func (p *parser) trail() (Spec, error) {
	s := Spec{Kind: KindTrail}
	var err error
	if s.Symbol, err = p.symbol(); err != nil {
		return s, err
	}
	w := p.next()
	if strings.HasSuffix(w, "%") {
		s.TrailPercent, err = number(strings.TrimSuffix(w, "%"))
	} else {
		s.TrailDistance, err = number(w)
	}
	if err != nil || (!s.TrailPercent.IsPositive() && !s.TrailDistance.IsPositive()) {
		return s, p.fail("PERCENT% or DISTANCE (like 2% or 150)")
	}
	if s.Size, err = p.size(); err != nil {
		return s, err
	}
	return s, p.options(&s, "from", "on")
}

var entryTypes = map[string]trade.Type{"limit": trade.Limit, "post_only": trade.PostOnly, "ioc": trade.IOC,
	"fok": trade.FOK, "ask": trade.Ask, "bid": trade.Bid, "market": trade.Market}

func (p *parser) bracket() (Spec, error) {
	s := Spec{Kind: KindBracket}
	var err error
	if s.Symbol, err = p.symbol(); err != nil {
		return s, err
	}
	switch strings.ToLower(p.next()) {
	case "buy":
		s.Entry.Side = trade.Buy
	case "sell":
		s.Entry.Side = trade.Sell
	default:
		return s, p.fail("buy or sell")
	}
	q, err := number(p.next())
	if err != nil || !q.IsPositive() {
		return s, p.fail("QTY (a positive quantity)")
	}
	s.Entry.Quantity = q
	if !strings.EqualFold(p.next(), "at") {
		return s, p.fail("at")
	}
	if w := p.peek(); strings.EqualFold(w, "market") {
		p.i++
		s.Entry.Type = trade.Market
	} else {
		if s.Entry.Price, err = p.price("entry PRICE or market"); err != nil {
			return s, err
		}
		s.Entry.Type = trade.Limit
	}
	for p.i < len(p.words) {
		switch w := strings.ToLower(p.next()); w {
		case "type":
			t, ok := entryTypes[strings.ToLower(p.next())]
			if !ok || t == trade.Market {
				return s, p.fail("an entry type: limit, post_only, ioc, fok, ask or bid")
			}
			s.Entry.Type = t
		case "tp":
			if s.TP, err = p.price("tp PRICE"); err != nil {
				return s, err
			}
		case "sl", "stop":
			if s.SL, err = p.price("sl PRICE"); err != nil {
				return s, err
			}
		case "on":
			if s.Source, err = ParseSource(p.next()); err != nil {
				return s, p.fail("a price source: last, bid, ask, mid or mark")
			}
		default:
			return s, p.fail("tp, sl, type or on")
		}
	}
	if !s.TP.IsPositive() || !s.SL.IsPositive() {
		return s, &ParseError{Word: -1, Want: "both tp PRICE and sl PRICE"}
	}
	return s, nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// Complete returns the candidates for the last word of a partial command
// line (the `:` line's tab completion): kinds, symbols, keywords and
// sources, or the placeholder of a number (TRIGGER, SIZE, ...) where the
// user types a value. symbols are the venue's symbols.
func Complete(line string, symbols []string) []string {
	words := strings.Fields(line)
	if line == "" || strings.HasSuffix(line, " ") {
		words = append(words, "")
	}
	last := strings.ToLower(words[len(words)-1])
	var cands []string
	switch {
	case len(words) == 1:
		cands = Kinds
	case len(words) == 2:
		cands = symbols
		last = strings.ToUpper(words[1])
	default:
		cands = nextWords(strings.ToLower(words[0]), words[2:len(words)-1], strings.ToLower(words[len(words)-2]))
	}
	var out []string
	for _, c := range cands {
		if strings.HasPrefix(c, last) || strings.HasPrefix(strings.ToLower(c), last) {
			out = append(out, c)
		}
	}
	sort.Strings(out)
	return out
}

// nextWords lists what may follow: done are the words after the symbol
// (the last one excluded), prev the word just before the one completed.
func nextWords(kind string, done []string, prev string) []string {
	if k := workKind(kind); k != 0 {
		return workNextWords(k, done, prev)
	}
	switch prev {
	case "on":
		return []string{"last", "bid", "ask", "mid", "mark"}
	case "type":
		return []string{"limit", "post_only", "ioc", "fok", "ask", "bid"}
	case "limit", "from", "tp", "sl", "at", "market-after":
		return placeholder(prev)
	}
	positional := map[string][]string{
		"stop": {"TRIGGER"}, "tp": {"TRIGGER"}, "oco": {"TP_PRICE", "STOP_PRICE"},
		"trail": {"PERCENT%", "DISTANCE"}, "bracket": {"buy", "sell"},
	}[kind]
	switch {
	case kind == "bracket" && len(done) == 1:
		return []string{"QTY"}
	case kind == "bracket" && len(done) == 2:
		return []string{"at"}
	case kind == "bracket" && len(done) >= 4:
		return without([]string{"tp", "sl", "type", "on"}, done)
	case kind == "bracket":
		return positional
	case kind == "oco" && len(done) < 2:
		return positional[len(done):]
	case kind != "oco" && len(done) == 0:
		return positional
	}
	opts := map[string][]string{
		"stop": {"limit", "on", "now"}, "tp": {"market", "on", "now"}, "oco": {"on", "now"}, "trail": {"from", "on"},
	}[kind]
	if kind == "stop" && contains(done, "limit") {
		opts = append(opts, "market-after")
	}
	return append([]string{"SIZE"}, without(opts, done)...)
}

func placeholder(prev string) []string {
	switch prev {
	case "market-after":
		return []string{"DURATION"}
	case "at":
		return []string{"PRICE", "market"}
	case "from":
		return []string{"ACTIVATION"}
	}
	return []string{"PRICE"}
}

func without(list, used []string) []string {
	var out []string
	for _, w := range list {
		if !contains(used, w) {
			out = append(out, w)
		}
	}
	return out
}
