package venue

import (
	"bytes"
	"fmt"
	"strconv"
	"time"

	"github.com/shopspring/decimal"

	"tradedeck/fixed"
)

// Field types of the wire. The venue's documentation shows JSON numbers, but
// recorded real replies carry most numbers as strings ("order_id":"5973852953",
// "meta":{"total":"4"}, "code":"-1011"). These types accept both forms, and
// null, so every resource decodes whatever the server chose. Money and
// quantities use decimal.Decimal directly: its decoder already accepts both
// forms (and null as zero); decimal.NullDecimal where null means "not set".
//
// Encoding (used by the simulator to answer) writes the documented form:
// Int as a number, SecTime as a seconds string with milliseconds, MsTime as
// an integer, Flag as 1/0, Bool as true/false.

// Int is an int64 (ids, counters, codes) sent as a JSON number or a string.
// null and "" decode as 0.
type Int int64

// Int64 returns i as a plain int64.
func (i Int) Int64() int64 { return int64(i) }

func (i Int) String() string { return strconv.FormatInt(int64(i), 10) }

// MarshalJSON writes a JSON number.
func (i Int) MarshalJSON() ([]byte, error) { return strconv.AppendInt(nil, int64(i), 10), nil }

// UnmarshalJSON accepts 123, "123", 1.23e2, null and "".
func (i *Int) UnmarshalJSON(b []byte) error {
	if isNullish(b) {
		*i = 0
		return nil
	}
	v, ok := fixed.Parse(b, 0)
	if !ok {
		return fmt.Errorf("venue: %s is not an integer", quoteForError(b))
	}
	*i = Int(v)
	return nil
}

// Flag is a boolean the venue writes as an integer 1/0 (is_maker,
// allow_deposit). It also accepts "1"/"0", true/false and null (false).
type Flag bool

// MarshalJSON writes 1 or 0.
func (f Flag) MarshalJSON() ([]byte, error) {
	if f {
		return []byte("1"), nil
	}
	return []byte("0"), nil
}

// UnmarshalJSON accepts 1, 0, "1", "0", true, false, "true", "false", null.
func (f *Flag) UnmarshalJSON(b []byte) error {
	v, err := parseBool(b)
	*f = Flag(v)
	return err
}

// Bool is a boolean the venue writes as true/false (collateral, otpauth);
// like Flag it accepts every form on decoding.
type Bool bool

// MarshalJSON writes true or false.
func (v Bool) MarshalJSON() ([]byte, error) { return strconv.AppendBool(nil, bool(v)), nil }

// UnmarshalJSON accepts the same forms as Flag.
func (v *Bool) UnmarshalJSON(b []byte) error {
	x, err := parseBool(b)
	*v = Bool(x)
	return err
}

func parseBool(b []byte) (bool, error) {
	if isNullish(b) {
		return false, nil
	}
	s := unquote(b)
	switch string(s) {
	case "1", "true", "TRUE", "True":
		return true, nil
	case "0", "false", "FALSE", "False":
		return false, nil
	}
	return false, fmt.Errorf("venue: %s is not a boolean", quoteForError(b))
}

// SecTime is a time the venue writes as a string of Unix seconds with a
// fraction ("1575014255.089"). It also accepts a bare number. "0", 0, null
// and "" decode as the zero time.Time (IsZero reports true): the venue uses
// "0" for "never".
type SecTime struct{ time.Time }

// MarshalJSON writes seconds with milliseconds, as the venue does; the zero
// time is written "0".
// A time finer than a millisecond (which the decoder accepts) keeps its
// digits, so decode -> encode -> decode gives it back.
func (t SecTime) MarshalJSON() ([]byte, error) {
	b := []byte{'"'}
	if ns := t.UnixNano(); !t.IsZero() && ns%1e6 != 0 {
		b = fixed.Append(b, ns, 9)
	} else {
		b = AppendSeconds(b, t.Time)
	}
	return append(b, '"'), nil
}

// UnmarshalJSON accepts "1575014255.089", 1575014255.089, "0", null.
func (t *SecTime) UnmarshalJSON(b []byte) error {
	ns, ok := parseSecondsNs(b)
	if !ok {
		return fmt.Errorf("venue: %s is not a time in seconds", quoteForError(b))
	}
	t.Time = nsToTime(ns)
	return nil
}

// AppendSeconds appends t as Unix seconds with three fraction digits, the
// zero time as "0".
func AppendSeconds(dst []byte, t time.Time) []byte {
	if t.IsZero() {
		return append(dst, '0')
	}
	return fixed.AppendPadded(dst, t.UnixMilli(), 3)
}

// MsTime is a time the venue writes as integer Unix milliseconds (order
// book and kline timestamps). It also accepts a string. 0 and null decode
// as the zero time.Time.
type MsTime struct{ time.Time }

// MarshalJSON writes integer milliseconds (with a fraction only for a
// time finer than that); the zero time is written 0.
func (t MsTime) MarshalJSON() ([]byte, error) {
	if t.IsZero() {
		return []byte("0"), nil
	}
	if ns := t.UnixNano(); ns%1e6 != 0 {
		return fixed.Append(nil, ns, 6), nil
	}
	return strconv.AppendInt(nil, t.UnixMilli(), 10), nil
}

// UnmarshalJSON accepts 1564710591905, "1564710591905", null.
func (t *MsTime) UnmarshalJSON(b []byte) error {
	if isNullish(b) {
		t.Time = time.Time{}
		return nil
	}
	ns, ok := fixed.Parse(b, 6) // ms with up to 6 fraction digits = ns
	if !ok {
		return fmt.Errorf("venue: %s is not a time in milliseconds", quoteForError(b))
	}
	t.Time = nsToTime(ns)
	return nil
}

// EpochTime is for the few fields documented as ms but sampled as seconds
// (funding_rate_timestamp). It tells the unit by magnitude: values of 1e11
// or more are milliseconds (1e11 seconds is the year 5138). It encodes as
// integer milliseconds, the documented form.
type EpochTime struct{ time.Time }

// MarshalJSON writes integer milliseconds; the zero time is written 0.
// Times before 1973 (under 1e11 ms, which would read back as seconds) are
// written in seconds.
func (t EpochTime) MarshalJSON() ([]byte, error) {
	if ns := t.UnixNano(); !t.IsZero() && ns < 1e17 && ns > -1e17 {
		return fixed.Append(nil, ns, 9), nil
	}
	return MsTime(t).MarshalJSON()
}

// UnmarshalJSON accepts milliseconds or seconds, numbers or strings.
func (t *EpochTime) UnmarshalJSON(b []byte) error {
	if isNullish(b) {
		t.Time = time.Time{}
		return nil
	}
	if ns, ok := fixed.Parse(b, 6); ok && (ns >= 1e17 || ns <= -1e17) {
		t.Time = nsToTime(ns) // milliseconds
		return nil
	}
	ns, ok := parseSecondsNs(b)
	if !ok {
		return fmt.Errorf("venue: %s is not a time", quoteForError(b))
	}
	t.Time = nsToTime(ns)
	return nil
}

// Percent is a rate the venue writes as a string with a trailing percent
// sign ("0.0001%"). Value holds the number as written (in percent); Rate
// returns it as a fraction.
type Percent struct{ Value decimal.Decimal }

// Rate returns the percentage as a fraction: 0.0001% -> 0.000001.
func (p Percent) Rate() decimal.Decimal { return p.Value.Shift(-2) }

func (p Percent) String() string { return p.Value.String() + "%" }

// MarshalJSON writes "<value>%".
func (p Percent) MarshalJSON() ([]byte, error) { return strconv.AppendQuote(nil, p.String()), nil }

// UnmarshalJSON accepts "0.0001%", "0.0001", 0.0001 and null.
func (p *Percent) UnmarshalJSON(b []byte) error {
	if isNullish(b) {
		p.Value = decimal.Decimal{}
		return nil
	}
	s := bytes.TrimSpace(unquote(b))
	s = bytes.TrimSuffix(s, []byte("%"))
	d, err := decimal.NewFromString(string(bytes.TrimSpace(s)))
	if err != nil {
		return fmt.Errorf("venue: %s is not a percentage", quoteForError(b))
	}
	p.Value = d
	return nil
}

// parseSecondsNs reads seconds (quoted or not, with up to 9 fraction
// digits) into nanoseconds; null and "" are 0.
func parseSecondsNs(b []byte) (int64, bool) {
	if isNullish(b) {
		return 0, true
	}
	return fixed.Parse(b, 9)
}

func nsToTime(ns int64) time.Time {
	if ns == 0 {
		return time.Time{}
	}
	return time.Unix(0, ns).UTC()
}

// isNullish reports JSON null or an empty string.
func isNullish(b []byte) bool {
	b = bytes.TrimSpace(b)
	return string(b) == "null" || string(b) == `""`
}

func unquote(b []byte) []byte {
	if len(b) >= 2 && b[0] == '"' && b[len(b)-1] == '"' {
		return b[1 : len(b)-1]
	}
	return b
}

// quoteForError renders at most 40 bytes of a bad value for an error text.
func quoteForError(b []byte) string {
	const maxLen = 40
	if len(b) > maxLen {
		return strconv.Quote(string(b[:maxLen])) + "..."
	}
	return strconv.Quote(string(b))
}
