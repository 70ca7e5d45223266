package rest

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/shopspring/decimal"

	"tradedeck/sim/exchange"
	"tradedeck/venue"
)

// wrap turns a possibly-nil *exchange.Error into an error without the
// typed-nil trap.
func wrapErr(e *exchange.Error) error {
	if e == nil {
		return nil
	}
	return e
}

func invalid(format string, args ...any) error {
	return &exchange.Error{Code: venue.CodeInvalidParam, Message: fmt.Sprintf(format, args...)}
}

// str returns a parameter; required ones must be present and not empty.
func (c *call) str(name string, required bool) (string, error) {
	v := c.params.Get(name)
	if v == "" && required {
		return "", invalid("%s is required", name)
	}
	return v, nil
}

// enum returns a parameter that must be one of values (or absent).
func (c *call) enum(name string, required bool, values ...string) (string, error) {
	v, err := c.str(name, required)
	if err != nil || v == "" {
		return v, err
	}
	if !slices.Contains(values, v) {
		return "", invalid("%s must be one of %s", name, strings.Join(values, ", "))
	}
	return v, nil
}

var decimalText = regexp.MustCompile(`^[+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+)$`)

// number returns a decimal parameter and whether it was given.
func (c *call) number(name string) (decimal.Decimal, bool, error) {
	v := c.params.Get(name)
	if !c.params.Has(name) {
		return decimal.Zero, false, nil
	}
	if !decimalText.MatchString(v) || len(v) > 40 {
		return decimal.Zero, false, invalid("%s must be a decimal number", name)
	}
	d, err := decimal.NewFromString(v)
	if err != nil {
		return decimal.Zero, false, invalid("%s must be a decimal number", name)
	}
	return d, true, nil
}

// integer returns an integer parameter within [lo, hi], def when absent.
func (c *call) integer(name string, required bool, def, lo, hi int64) (int64, error) {
	v := c.params.Get(name)
	if !c.params.Has(name) || v == "" {
		if required {
			return 0, invalid("%s is required", name)
		}
		return def, nil
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n < lo || n > hi {
		return 0, invalid("%s must be an integer from %d to %d", name, lo, hi)
	}
	return n, nil
}

// pathInt returns an integer path segment.
func (c *call) pathInt(name string) (int64, error) {
	n, err := strconv.ParseInt(c.r.PathValue(name), 10, 64)
	if err != nil || n < 0 {
		return 0, invalid("%s must be a non-negative integer", name)
	}
	return n, nil
}

// timeRange reads start_t and end_t (ms).
func (c *call) timeRange() (int64, int64, error) {
	start, err := c.integer("start_t", false, 0, 0, 1<<53)
	if err != nil {
		return 0, 0, err
	}
	end, err := c.integer("end_t", false, 0, 0, 1<<53)
	if err != nil {
		return 0, 0, err
	}
	if end != 0 && start > end {
		return 0, 0, invalid("start_t must not be after end_t")
	}
	return start, end, nil
}

// listing reads what every paged history takes: start_t and end_t (ms),
// then page.
func (c *call) listing() (start, end int64, page int, err error) {
	if start, end, err = c.timeRange(); err != nil {
		return 0, 0, 0, err
	}
	page, err = c.page()
	return start, end, page, err
}

// requiredNumber returns a decimal parameter that must be given.
func (c *call) requiredNumber(name string) (decimal.Decimal, error) {
	d, ok, err := c.number(name)
	if err == nil && !ok {
		err = invalid("%s is required", name)
	}
	return d, err
}

const pageSize = 25

// page reads the page parameter (default 1).
func (c *call) page() (int, error) {
	p, err := c.integer("page", false, 1, 1, 1_000_000)
	return int(p), err
}

// paged cuts rows to one page and returns the meta object; withTotal
// false leaves total out, as some venue replies do.
func paged[T any](rows []T, page, size int, withTotal bool) ([]T, obj) {
	meta := obj{}
	if withTotal {
		meta = append(meta, kv{"total", len(rows)})
	}
	meta = append(meta, kv{"records_per_page", size}, kv{"current_page", page})
	from := (page - 1) * size
	if from >= len(rows) {
		return nil, meta
	}
	return rows[from:min(from+size, len(rows))], meta
}

// pagedObjs is paged with the page's rows rendered by render.
func pagedObjs[T any](rows []T, page int, withTotal bool, render func(T) obj) ([]obj, obj) {
	rows, meta := paged(rows, page, pageSize, withTotal)
	return objs(rows, render), meta
}

// symbolParam reads a required symbol parameter.
func (c *call) symbol(name string) (string, error) {
	return c.str(name, true)
}
