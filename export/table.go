// Package export writes the account's data out of the venue: fills,
// orders, funding fees, interest, transfers, deposits and withdrawals,
// positions and balances, paged through the REST client (its rate limits
// and signing), as CSV, JSON or JSON lines with exact decimals and UTC
// ISO-8601 times with milliseconds.
package export

import (
	"strconv"
	"time"

	"github.com/shopspring/decimal"

	"tradedeck/venue"
)

// Type is a column's value type; it decides how JSON writes a cell.
type Type uint8

// Column types.
const (
	Text    Type = iota
	Decimal      // exact decimal: a string in JSON, never a float
	Integer      // a JSON number
	Bool         // a JSON boolean
	Time         // UTC ISO-8601 with milliseconds, a JSON string
)

// Column is one field of an export.
type Column struct {
	Name string
	Type Type
}

// Cell is one value, already formatted; Null is an absent value (empty in
// CSV, null in JSON).
type Cell struct {
	Text string
	Null bool
}

// TimeLayout is how every time is written.
const TimeLayout = "2006-01-02T15:04:05.000Z"

// FormatTime writes t in UTC with milliseconds; the zero time is Null.
func FormatTime(t time.Time) Cell {
	if t.IsZero() {
		return Cell{Null: true}
	}
	return Cell{Text: t.UTC().Format(TimeLayout)}
}

func text(s string) Cell           { return Cell{Text: s} }
func dec(d decimal.Decimal) Cell   { return Cell{Text: d.String()} }
func integer(i venue.Int) Cell     { return Cell{Text: strconv.FormatInt(int64(i), 10)} }
func boolean(b bool) Cell          { return Cell{Text: strconv.FormatBool(b)} }
func secTime(t venue.SecTime) Cell { return FormatTime(t.Time) }

func nullDec(d decimal.NullDecimal) Cell {
	if !d.Valid {
		return Cell{Null: true}
	}
	return dec(d.Decimal)
}

// optional is Null for an empty string (a JSON null on the wire).
func optional(s string) Cell {
	if s == "" {
		return Cell{Null: true}
	}
	return text(s)
}
