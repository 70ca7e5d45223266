package export

import (
	"bufio"
	"encoding/csv"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// Writer receives an export: the columns once, then rows as they are read.
type Writer interface {
	Begin(cols []Column) error
	Row(cells []Cell) error
	End() error // flushes; does not close the destination
}

// Format is an output format.
type Format string

// Output formats.
const (
	CSV   Format = "csv"
	JSON  Format = "json"  // one array of objects
	JSONL Format = "jsonl" // one object per line
)

// NewWriter returns a writer of format f on w.
func NewWriter(f Format, w io.Writer) (Writer, error) {
	switch Format(strings.ToLower(string(f))) {
	case CSV:
		return &csvWriter{w: csv.NewWriter(w)}, nil
	case JSON:
		return &jsonWriter{w: bufio.NewWriter(w), array: true}, nil
	case JSONL:
		return &jsonWriter{w: bufio.NewWriter(w)}, nil
	}
	return nil, fmt.Errorf("export: unknown format %q (csv, json or jsonl)", f)
}

// csvWriter writes RFC 4180 CSV with a header row; Null is an empty field.
type csvWriter struct {
	w   *csv.Writer
	rec []string
}

func (c *csvWriter) Begin(cols []Column) error {
	names := make([]string, len(cols))
	for i, col := range cols {
		names[i] = col.Name
	}
	return c.w.Write(names)
}

func (c *csvWriter) Row(cells []Cell) error {
	c.rec = c.rec[:0]
	for _, cell := range cells {
		c.rec = append(c.rec, cell.Text)
	}
	return c.w.Write(c.rec)
}

func (c *csvWriter) End() error {
	c.w.Flush()
	return c.w.Error()
}

// jsonWriter writes objects whose keys are the column names, in column
// order; decimals and times are strings, integers numbers, Null null.
type jsonWriter struct {
	w     *bufio.Writer
	array bool
	cols  []Column
	rows  int
	buf   []byte
}

func (j *jsonWriter) Begin(cols []Column) error {
	j.cols = cols
	if j.array {
		_, err := j.w.WriteString("[")
		return err
	}
	return nil
}

func (j *jsonWriter) Row(cells []Cell) error {
	b := j.buf[:0]
	if j.array {
		if j.rows > 0 {
			b = append(b, ',')
		}
		b = append(b, "\n  "...)
	}
	b = append(b, '{')
	for i, cell := range cells {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendQuote(b, j.cols[i].Name)
		b = append(b, ':')
		b = appendValue(b, j.cols[i].Type, cell)
	}
	b = append(b, '}')
	if !j.array {
		b = append(b, '\n')
	}
	j.buf = b
	j.rows++
	_, err := j.w.Write(b)
	return err
}

func appendValue(b []byte, t Type, c Cell) []byte {
	switch {
	case c.Null:
		return append(b, "null"...)
	case t == Integer || t == Bool:
		return append(b, c.Text...)
	}
	return appendJSONString(b, c.Text)
}

// appendJSONString quotes s as JSON (strconv.Quote's escapes are Go's,
// not always JSON's).
func appendJSONString(b []byte, s string) []byte {
	b = append(b, '"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b = append(b, '\\', byte(r))
		case r < 0x20:
			b = append(b, fmt.Sprintf(`\u%04x`, r)...)
		default:
			b = append(b, string(r)...)
		}
	}
	return append(b, '"')
}

func (j *jsonWriter) End() error {
	if j.array {
		if j.rows > 0 {
			if _, err := j.w.WriteString("\n"); err != nil {
				return err
			}
		}
		if _, err := j.w.WriteString("]\n"); err != nil {
			return err
		}
	}
	return j.w.Flush()
}
