package alerts

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/shopspring/decimal"
)

// Syntax is the alert grammar, shared by `:alert` in the dashboard and
// `tradedeck alerts add`, one line per kind.
var Syntax = []string{
	"SYMBOL above|below PRICE [last|mark|bid|ask]",
	"SYMBOL change above|below|beyond PCT",
	"SYMBOL spread above BP",
	"SYMBOL|* order filled|partial|cancelled|rejected|any[,...]",
	"SYMBOL pnl above|below AMOUNT",
	"SYMBOL liq within PCT",
	"stream market|private|any down SECONDS",
	"... then optionally: once | every [COOLDOWN]",
	"... " + ActionSyntax,
}

// Usage is the grammar in one line, for error messages.
const Usage = "SYMBOL above|below PRICE [last|mark|bid|ask] | SYMBOL change|spread|order|pnl|liq ... | stream NAME down SECONDS, then once|every [COOLDOWN], then optionally: then pause|resume|cancel ALGO | then tighten ALGO TRAIL"

// Resolver maps what the user typed to a known symbol ("btc" ->
// "SPOT_BTC_USDT"); nil takes the word as written, upper-cased.
type Resolver func(word string) (string, bool)

// Parse reads an alert from the words after `:alert` (or `alerts add`).
// The two forms a user must be able to type without reading anything are
// `SYMBOL above PRICE` and `SYMBOL below PRICE`; every other kind follows
// the same SYMBOL-first shape. An action may follow the condition and
// its mode: `... then pause 12` (the mode may also come after it). The
// returned alert has no ID yet.
func Parse(args []string, resolve Resolver) (Alert, error) {
	cond, then, acts := splitThen(args)
	a, err := parseCondition(cond, resolve)
	if err != nil || !acts {
		return a, err
	}
	act, rest, err := parseAction(then)
	if err != nil {
		return a, err
	}
	a.Then = &act
	return a, parseMode(&a, lower(rest))
}

// parseCondition reads the condition and its mode.
func parseCondition(args []string, resolve Resolver) (Alert, error) {
	var a Alert
	words := lower(args)
	if len(words) < 2 {
		return a, errors.New("usage: " + Usage)
	}
	if words[0] == "stream" {
		return parseStream(args[1:])
	}
	sym, err := symbol(args[0], resolve, words[1] == "order")
	if err != nil {
		return a, err
	}
	a.Symbol = sym
	rest := words[1:]
	switch rest[0] {
	case "above", "below", "last", "mark", "bid", "ask":
		rest, err = parsePrice(&a, rest)
	case "change":
		rest, err = parseLevel(&a, KindChange, rest[1:], "%", Above, Below, Beyond)
	case "spread":
		rest, err = parseLevel(&a, KindSpread, rest[1:], "bp", Above)
	case "pnl", "upnl":
		rest, err = parseLevel(&a, KindPnL, rest[1:], "", Above, Below)
	case "liq", "liquidation":
		rest, err = parseLevel(&a, KindLiq, rest[1:], "%", Within)
	case "order", "orders":
		rest, err = parseOrder(&a, rest[1:])
	default:
		return a, fmt.Errorf("%q: expected above, below, change, spread, order, pnl or liq (usage: %s)", args[1], Usage)
	}
	if err != nil {
		return a, err
	}
	return a, parseMode(&a, rest)
}

func lower(args []string) []string {
	out := make([]string, len(args))
	for i, s := range args {
		out[i] = strings.ToLower(s)
	}
	return out
}

func symbol(word string, resolve Resolver, anyOK bool) (string, error) {
	if word == AnySymbol || strings.EqualFold(word, "all") || strings.EqualFold(word, "any") {
		if !anyOK {
			return "", errors.New("only order alerts can watch every symbol (*)")
		}
		return AnySymbol, nil
	}
	if resolve == nil {
		return strings.ToUpper(word), nil
	}
	s, ok := resolve(word)
	if !ok {
		return "", fmt.Errorf("no symbol matches %q", word)
	}
	return s, nil
}

// parsePrice reads "above|below PRICE [SOURCE]" or "SOURCE above|below PRICE".
func parsePrice(a *Alert, w []string) ([]string, error) {
	a.Kind, a.Source = KindPrice, Last
	if src, ok := source(w[0]); ok {
		a.Source, w = src, w[1:]
	}
	if len(w) < 2 || (w[0] != "above" && w[0] != "below") {
		return nil, errors.New("usage: SYMBOL above|below PRICE [last|mark|bid|ask]")
	}
	a.Op = Op(w[0])
	lvl, err := number(w[1], "")
	if err != nil {
		return nil, err
	}
	if lvl.Sign() <= 0 {
		return nil, fmt.Errorf("price %s must be positive", lvl)
	}
	a.Level, w = lvl, w[2:]
	if len(w) > 0 {
		if src, ok := source(w[0]); ok {
			a.Source, w = src, w[1:]
		}
	}
	return w, nil
}

func source(w string) (Source, bool) {
	switch Source(w) {
	case Last, Mark, Bid, Ask:
		return Source(w), true
	}
	return "", false
}

// parseLevel reads "OP LEVEL" for the kinds with one threshold; a lone
// op is implied when only one is allowed ("spread 20", "liq 5").
func parseLevel(a *Alert, kind Kind, w []string, unit string, ops ...Op) ([]string, error) {
	a.Kind = kind
	usage := fmt.Sprintf("usage: SYMBOL %s %s LEVEL", kind, joinOps(ops))
	if len(w) == 0 {
		return nil, errors.New(usage)
	}
	a.Op = ops[0]
	matched := false
	for _, op := range ops {
		if w[0] == string(op) || (op == Above && w[0] == "wider") {
			a.Op, matched = op, true
		}
	}
	if matched {
		w = w[1:]
	} else if len(ops) > 1 {
		return nil, errors.New(usage)
	}
	if len(w) == 0 {
		return nil, errors.New(usage)
	}
	lvl, err := number(w[0], unit)
	if err != nil {
		return nil, err
	}
	if (kind == KindSpread || kind == KindLiq) && lvl.Sign() <= 0 {
		return nil, fmt.Errorf("%s level %s must be positive", kind, lvl)
	}
	a.Level = lvl
	return w[1:], nil
}

func joinOps(ops []Op) string {
	s := make([]string, len(ops))
	for i, o := range ops {
		s[i] = string(o)
	}
	return strings.Join(s, "|")
}

// number reads a decimal, allowing the unit as a suffix ("5%", "20bp").
func number(w, unit string) (decimal.Decimal, error) {
	s := w
	if unit != "" {
		s = strings.TrimSuffix(s, unit)
	}
	s = strings.TrimPrefix(s, "+")
	d, err := decimal.NewFromString(s)
	if err != nil {
		return d, fmt.Errorf("%q is not a number", w)
	}
	return d, nil
}

func parseOrder(a *Alert, w []string) ([]string, error) {
	a.Kind, a.Every = KindOrder, true // events: each one is news
	if len(w) == 0 {
		return nil, errors.New("usage: SYMBOL|* order filled|partial|cancelled|rejected|any[,...]")
	}
	for _, e := range strings.Split(w[0], ",") {
		switch e {
		case "filled", "fill", "fills":
			a.Events = appendNew(a.Events, OrderFilled)
		case "partial", "partially", "partial_filled":
			a.Events = appendNew(a.Events, OrderPartial)
		case "cancelled", "canceled", "cancel":
			a.Events = appendNew(a.Events, OrderCancelled)
		case "rejected", "reject":
			a.Events = appendNew(a.Events, OrderRejected)
		case "any", "all":
			for _, x := range []string{OrderFilled, OrderPartial, OrderCancelled, OrderRejected} {
				a.Events = appendNew(a.Events, x)
			}
		default:
			return nil, fmt.Errorf("%q: order events are filled, partial, cancelled, rejected or any", e)
		}
	}
	return w[1:], nil
}

func appendNew(list []string, s string) []string {
	for _, x := range list {
		if x == s {
			return list
		}
	}
	return append(list, s)
}

func parseStream(args []string) (Alert, error) {
	a := Alert{Kind: KindStream, Every: true}
	w := lower(args)
	usage := errors.New("usage: stream market|private|any down SECONDS")
	if len(w) < 2 {
		return a, usage
	}
	switch w[0] {
	case StreamMarket, StreamPrivate, StreamAny:
		a.Stream = w[0]
	default:
		return a, fmt.Errorf("%q: streams are market, private or any", args[0])
	}
	w = w[1:]
	if w[0] == "down" || w[0] == "stale" || w[0] == "for" {
		w = w[1:]
	}
	if len(w) == 0 {
		return a, usage
	}
	d, err := ParseDuration(w[0])
	if err != nil {
		return a, err
	}
	if d < time.Second {
		return a, errors.New("a stream alert needs at least 1s (a blip is not an outage)")
	}
	a.For = Duration(d)
	return a, parseMode(&a, w[1:])
}

// parseMode reads the optional tail: once, every [COOLDOWN], cooldown D.
func parseMode(a *Alert, w []string) error {
	for len(w) > 0 {
		switch w[0] {
		case "once":
			a.Every, w = false, w[1:]
		case "every", "repeat":
			a.Every, w = true, w[1:]
			if len(w) > 0 {
				if d, err := ParseDuration(w[0]); err == nil {
					a.Cooldown, w = Duration(d), w[1:]
				}
			}
		case "cooldown":
			if len(w) < 2 {
				return errors.New("cooldown needs a duration (30s, 5m)")
			}
			d, err := ParseDuration(w[1])
			if err != nil {
				return err
			}
			a.Every, a.Cooldown, w = true, Duration(d), w[2:]
		default:
			return fmt.Errorf("unexpected %q (end with once, every or every COOLDOWN)", w[0])
		}
	}
	return nil
}
