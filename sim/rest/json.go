package rest

import (
	"encoding/json"
	"strconv"

	"github.com/shopspring/decimal"

	"tradedeck/fixed"
	"tradedeck/sim/exchange"
)

// obj is a JSON object with its keys in the venue's order.
type obj []kv

type kv struct {
	k string
	v any
}

// num is the text of a JSON number. The encoder writes it bare, or quoted
// when the server emits numbers as strings (as recorded real replies do).
type num string

// encoder writes venue replies. Values: nil, string, bool, int, int64,
// num, decimal.Decimal, obj, []obj, []any, map of string to any value kind
// (sorted keys), json.RawMessage.
type encoder struct {
	buf        []byte
	strNumbers bool
}

func (w *encoder) value(v any) {
	switch x := v.(type) {
	case nil:
		w.buf = append(w.buf, "null"...)
	case string:
		w.str(x)
	case bool:
		w.buf = strconv.AppendBool(w.buf, x)
	case int:
		w.num(strconv.Itoa(x))
	case int64:
		w.num(strconv.FormatInt(x, 10))
	case num:
		w.num(string(x))
	case decimal.Decimal:
		w.num(x.String())
	case *decimal.Decimal: // nullable number
		if x == nil {
			w.buf = append(w.buf, "null"...)
		} else {
			w.num(x.String())
		}
	case obj:
		w.buf = append(w.buf, '{')
		for i, f := range x {
			if i > 0 {
				w.buf = append(w.buf, ',')
			}
			w.str(f.k)
			w.buf = append(w.buf, ':')
			w.value(f.v)
		}
		w.buf = append(w.buf, '}')
	case []obj:
		array(w, x)
	case []any:
		array(w, x)
	case levelsFixed:
		w.levels(x)
	case json.RawMessage:
		w.buf = append(w.buf, x...)
	default:
		panic("rest: cannot encode value of this type")
	}
}

// array writes the elements of xs as a JSON array.
func array[T any](w *encoder, xs []T) {
	w.buf = append(w.buf, '[')
	for i, x := range xs {
		if i > 0 {
			w.buf = append(w.buf, ',')
		}
		w.value(x)
	}
	w.buf = append(w.buf, ']')
}

func (w *encoder) num(s string) {
	if w.strNumbers {
		w.buf = append(w.buf, '"')
		w.buf = append(w.buf, s...)
		w.buf = append(w.buf, '"')
		return
	}
	w.buf = append(w.buf, s...)
}

func (w *encoder) str(s string) {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c == '"' || c == '\\' || c >= 0x80 {
			b, _ := json.Marshal(s)
			w.buf = append(w.buf, b...)
			return
		}
	}
	w.buf = append(w.buf, '"')
	w.buf = append(w.buf, s...)
	w.buf = append(w.buf, '"')
}

// levelsFixed is an order book side in fixed point, written as
// [{"price":..,"quantity":..},...] without intermediate values.
type levelsFixed struct {
	levels []exchange.FixedLevel
	pd, qd int
}

func (w *encoder) levels(l levelsFixed) {
	w.buf = append(w.buf, '[')
	for i, lv := range l.levels {
		if i > 0 {
			w.buf = append(w.buf, ',')
		}
		w.buf = append(w.buf, `{"price":`...)
		w.fixed(lv.Price, l.pd)
		w.buf = append(w.buf, `,"quantity":`...)
		w.fixed(lv.Qty, l.qd)
		w.buf = append(w.buf, '}')
	}
	w.buf = append(w.buf, ']')
}

func (w *encoder) fixed(v int64, dec int) {
	if w.strNumbers {
		w.buf = append(w.buf, '"')
	}
	w.buf = fixed.Append(w.buf, v, dec)
	if w.strNumbers {
		w.buf = append(w.buf, '"')
	}
}

// secs renders ms as the venue's seconds-string with millisecond fraction.
func secs(ms int64) string {
	s := strconv.FormatInt(ms/1000, 10)
	frac := ms % 1000
	if frac < 0 {
		frac = -frac
	}
	f := strconv.FormatInt(1000+frac, 10)[1:]
	return s + "." + f
}

// objs renders each row with render (an empty list for none).
func objs[T any](rows []T, render func(T) obj) []obj {
	out := make([]obj, len(rows))
	for i, r := range rows {
		out[i] = render(r)
	}
	return out
}

// dec returns a decimal as a number value.
func dec(d decimal.Decimal) num { return num(d.String()) }

// nullable returns d, or nil (JSON null) when !ok.
func nullable(d decimal.Decimal, ok bool) any {
	if !ok {
		return nil
	}
	return dec(d)
}
