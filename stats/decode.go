package stats

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/shopspring/decimal"

	"tradedeck/fixed"
)

// APIError is the service's error envelope: status is not "ok" and message
// says why. HTTPStatus is the reply's status code.
type APIError struct {
	HTTPStatus int
	Status     string
	Message    string
}

func (e *APIError) Error() string {
	msg := e.Message
	if msg == "" {
		msg = "(no message)"
	}
	return fmt.Sprintf("stats service: %s (status %q, HTTP %d)", msg, e.Status, e.HTTPStatus)
}

// DecodeError names what was malformed: the endpoint, the row and the field.
type DecodeError struct {
	Endpoint string
	Row      int // -1 when the envelope itself is wrong
	ID       string
	Field    string
	Err      error
}

func (e *DecodeError) Error() string {
	where := e.Endpoint
	if e.Row >= 0 {
		where += fmt.Sprintf(" row %d", e.Row)
		if e.ID != "" {
			where += " (id " + e.ID + ")"
		}
	}
	if e.Field != "" {
		where += ": " + e.Field
	}
	return "stats: " + where + ": " + e.Err.Error()
}

func (e *DecodeError) Unwrap() error { return e.Err }

// envelope is {"status":"ok","data":[...]} or {"status":..,"message":..}.
type envelope struct {
	Status  *string         `json:"status"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data"`
}

// decodeRows checks the envelope and decodes the data array into records
// in one pass; when that fails it finds the row to blame.
func decodeRows[T any](endpoint string, httpStatus int, body []byte) ([]T, error) {
	data, err := decodeEnvelope(endpoint, httpStatus, body)
	if err != nil {
		return nil, err
	}
	var rows []T
	if json.Unmarshal(data, &rows) == nil {
		return rows, nil
	}
	var raw []json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		return nil, &DecodeError{Endpoint: endpoint, Row: -1, Field: "data", Err: errors.New("not an array")}
	}
	for i, r := range raw {
		var row T
		if err := json.Unmarshal(r, &row); err != nil {
			return nil, &DecodeError{Endpoint: endpoint, Row: i, Err: errors.New("not an object")}
		}
	}
	return nil, &DecodeError{Endpoint: endpoint, Row: -1, Field: "data", Err: errors.New("undecodable")}
}

// decodeEnvelope checks the status and returns the data array.
func decodeEnvelope(endpoint string, httpStatus int, body []byte) (json.RawMessage, error) {
	var env envelope
	if err := json.Unmarshal(body, &env); err != nil {
		snippet := body
		if len(snippet) > 120 {
			snippet = snippet[:120]
		}
		return nil, &DecodeError{Endpoint: endpoint, Row: -1, Err: fmt.Errorf("reply (HTTP %d) is not a JSON envelope: %v: %q", httpStatus, err, snippet)}
	}
	if env.Status == nil {
		return nil, &DecodeError{Endpoint: endpoint, Row: -1, Field: "status", Err: errors.New("missing")}
	}
	if *env.Status != "ok" {
		return nil, &APIError{HTTPStatus: httpStatus, Status: *env.Status, Message: env.Message}
	}
	if httpStatus < 200 || httpStatus > 299 {
		return nil, &APIError{HTTPStatus: httpStatus, Status: *env.Status, Message: "HTTP error with an ok envelope"}
	}
	if len(env.Data) == 0 || bytes.Equal(env.Data, []byte("null")) {
		return nil, &DecodeError{Endpoint: endpoint, Row: -1, Field: "data", Err: errors.New("missing")}
	}
	return env.Data, nil
}

// wireRow holds a /stat record's fields as they came: strings or numbers.
type wireRow struct {
	ID        json.RawMessage `json:"id"`
	Timestamp json.RawMessage `json:"timestamp"`
	Volume    json.RawMessage `json:"volume_usd"`
	Traders   json.RawMessage `json:"traders"`
	Txs       json.RawMessage `json:"txs"`
	Txns      json.RawMessage `json:"txns"`
	Turnover  json.RawMessage `json:"turnover_rate_percentage"`
}

// DecodeStat decodes a /stat reply for a period. Rows come back in time
// order; ids must match their timestamps (id*3600 for hourly rows, id*86400
// for daily ones), which also catches a reply of the wrong shape.
func DecodeStat(network, period string, httpStatus int, body []byte) (Series, error) {
	const ep = "/stat"
	raw, err := decodeRows[wireRow](ep, httpStatus, body)
	if err != nil {
		return Series{}, err
	}
	s := Series{Network: network, Period: period, Hourly: Hourly(period), Rows: make([]Row, 0, len(raw))}
	step := int64(86400)
	if s.Hourly {
		step = 3600
	}
	for i, w := range raw {
		fail := func(field string, err error) error {
			return &DecodeError{Endpoint: ep, Row: i, ID: text(w.ID), Field: field, Err: err}
		}
		var row Row
		var ts int64
		if row.ID, err = count(w.ID); err != nil {
			return Series{}, fail("id", err)
		}
		if ts, err = count(w.Timestamp); err != nil {
			return Series{}, fail("timestamp", err)
		}
		if row.ID*step != ts {
			kind := "daily"
			if s.Hourly {
				kind = "hourly"
			}
			return Series{}, fail("id", fmt.Errorf("%d does not match timestamp %d (%s rows need id*%d == timestamp)", row.ID, ts, kind, step))
		}
		row.Time = time.Unix(ts, 0).UTC()
		if row.VolumeUSD, err = volume(w.Volume); err != nil {
			return Series{}, fail("volume_usd", err)
		}
		if row.Traders, err = count(w.Traders); err != nil {
			return Series{}, fail("traders", err)
		}
		field, trades, err := tradeCount(w.Txs, w.Txns)
		if err != nil {
			return Series{}, fail(field, err)
		}
		row.Trades = trades
		if len(w.Turnover) > 0 && !isNull(w.Turnover) {
			if row.Turnover, err = nonNegDecimal(w.Turnover); err != nil {
				return Series{}, fail("turnover_rate_percentage", err)
			}
			row.HasTurnover = true
		}
		s.Rows = append(s.Rows, row)
	}
	slices.SortStableFunc(s.Rows, func(a, b Row) int { return a.Time.Compare(b.Time) })
	for i := 1; i < len(s.Rows); i++ {
		if s.Rows[i].Time.Equal(s.Rows[i-1].Time) {
			return Series{}, &DecodeError{Endpoint: ep, Row: i, ID: strconv.FormatInt(s.Rows[i].ID, 10), Field: "timestamp", Err: errors.New("duplicate row")}
		}
	}
	return s, nil
}

type wireSource struct {
	ID         json.RawMessage `json:"id"`
	Name       json.RawMessage `json:"name"`
	Volume     json.RawMessage `json:"volume_usd"`
	Txs        json.RawMessage `json:"txs"`
	Txns       json.RawMessage `json:"txns"`
	Percentage json.RawMessage `json:"percentage"`
}

// DecodeSourceStat decodes a /source_stat reply, ranked by volume (largest
// first, ties by name).
func DecodeSourceStat(httpStatus int, body []byte) ([]Source, error) {
	const ep = "/source_stat"
	raw, err := decodeRows[wireSource](ep, httpStatus, body)
	if err != nil {
		return nil, err
	}
	out := make([]Source, 0, len(raw))
	for i, w := range raw {
		fail := func(field string, err error) error {
			return &DecodeError{Endpoint: ep, Row: i, ID: text(w.ID), Field: field, Err: err}
		}
		var src Source
		if src.ID = text(w.ID); src.ID == "" {
			return nil, fail("id", errors.New("missing"))
		}
		if err := json.Unmarshal(w.Name, &src.Name); err != nil || src.Name == "" {
			return nil, fail("name", errors.New("missing or not a string"))
		}
		if src.VolumeUSD, err = volume(w.Volume); err != nil {
			return nil, fail("volume_usd", err)
		}
		field, trades, err := tradeCount(w.Txs, w.Txns)
		if err != nil {
			return nil, fail(field, err)
		}
		src.Trades = trades
		if src.Percentage, err = nonNegDecimal(w.Percentage); err != nil {
			return nil, fail("percentage", err)
		}
		if src.Percentage.GreaterThan(decimal.NewFromInt(100)) {
			return nil, fail("percentage", fmt.Errorf("%s is above 100", src.Percentage))
		}
		out = append(out, src)
	}
	slices.SortStableFunc(out, func(a, b Source) int {
		if c := b.VolumeUSD.Cmp(a.VolumeUSD); c != 0 {
			return c
		}
		return cmpString(a.Name, b.Name)
	})
	return out, nil
}

func cmpString(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// text is a field's text with the quotes of a JSON string removed.
func text(raw json.RawMessage) string {
	if len(raw) >= 2 && raw[0] == '"' {
		var s string
		if json.Unmarshal(raw, &s) == nil {
			return s
		}
	}
	if isNull(raw) {
		return ""
	}
	return string(raw)
}

func isNull(raw json.RawMessage) bool { return bytes.Equal(raw, []byte("null")) }

// literal returns the number text of a field sent as a JSON number or a
// string holding one; strings must hold nothing but the number. The result
// aliases raw (no copy on the common path).
func literal(raw json.RawMessage) ([]byte, error) {
	if len(raw) == 0 || isNull(raw) {
		return nil, errors.New("missing")
	}
	b := []byte(raw)
	if raw[0] == '"' {
		if len(raw) < 2 || raw[len(raw)-1] != '"' || bytes.IndexByte(raw, '\\') >= 0 {
			var s string
			if err := json.Unmarshal(raw, &s); err != nil {
				return nil, fmt.Errorf("bad string %s", raw)
			}
			b = []byte(s)
		} else {
			b = raw[1 : len(raw)-1]
		}
	}
	if !isDecimalLiteral(b) {
		return nil, fmt.Errorf("%q is not a number", b)
	}
	return b, nil
}

// isDecimalLiteral accepts -?digits[.digits][e[+-]digits] and nothing else
// (no spaces, no thousands separators, no NaN/Inf, no hex) with an exponent
// of at most two digits, so a hostile "1e999999999" cannot blow up memory.
func isDecimalLiteral(s []byte) bool {
	i, n := 0, len(s)
	if n > 0 && s[0] == '-' {
		i++
	}
	digits := func() int {
		start := i
		for i < n && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		return i - start
	}
	if digits() == 0 {
		return false
	}
	if i < n && s[i] == '.' {
		i++
		if digits() == 0 {
			return false
		}
	}
	if i < n && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < n && (s[i] == '+' || s[i] == '-') {
			i++
		}
		if d := digits(); d == 0 || d > 2 {
			return false
		}
	}
	return i == n
}

// count decodes a non-negative integer (ids, timestamps, traders, trades).
func count(raw json.RawMessage) (int64, error) {
	s, err := literal(raw)
	if err != nil {
		return 0, err
	}
	v, ok := fixed.Parse(s, 0)
	if !ok {
		return 0, fmt.Errorf("%s is not an integer that fits in int64", s)
	}
	if v < 0 {
		return 0, fmt.Errorf("%s is negative", s)
	}
	return v, nil
}

// tradeCount reads the trade count from txs or its newer spelling txns;
// when both are present they must agree.
func tradeCount(txs, txns json.RawMessage) (field string, n int64, err error) {
	hasTxs := len(txs) > 0 && !isNull(txs)
	hasTxns := len(txns) > 0 && !isNull(txns)
	switch {
	case hasTxs && hasTxns:
		a, err := count(txs)
		if err != nil {
			return "txs", 0, err
		}
		b, err := count(txns)
		if err != nil {
			return "txns", 0, err
		}
		if a != b {
			return "txs", 0, fmt.Errorf("txs %d and txns %d disagree", a, b)
		}
		return "txs", a, nil
	case hasTxns:
		n, err = count(txns)
		return "txns", n, err
	default:
		n, err = count(txs) // reports "missing" when neither is there
		return "txs", n, err
	}
}

// volume decodes USD x 10^18 exactly: "124234640850000000000000" is
// 124234.64085 USD. Any size (beyond uint64 too) and zero are fine; negative
// amounts and anything that is not a plain decimal number are errors.
func volume(raw json.RawMessage) (decimal.Decimal, error) {
	d, err := nonNegDecimal(raw)
	if err != nil {
		return decimal.Decimal{}, err
	}
	return d.Shift(-18), nil // exact: moves the exponent, never divides
}

func nonNegDecimal(raw json.RawMessage) (decimal.Decimal, error) {
	s, err := literal(raw)
	if err != nil {
		return decimal.Decimal{}, err
	}
	d, err := decimal.NewFromString(string(s))
	if err != nil {
		return decimal.Decimal{}, fmt.Errorf("%q: %v", s, err)
	}
	if d.IsNegative() {
		return decimal.Decimal{}, fmt.Errorf("%s is negative", s)
	}
	return d, nil
}
