package venue

import (
	"math/big"
	"reflect"
	"regexp"
	"testing"
	"time"

	"github.com/shopspring/decimal"
)

var (
	decimalType     = reflect.TypeOf(decimal.Decimal{})
	nullDecimalType = reflect.TypeOf(decimal.NullDecimal{})
	timeType        = reflect.TypeOf(time.Time{})
)

// same compares decoded values by meaning: decimals by value (1.50 is
// 1.5), times by instant, everything else field by field.
func same(a, b reflect.Value) bool {
	switch a.Type() {
	case decimalType:
		return a.Interface().(decimal.Decimal).Equal(b.Interface().(decimal.Decimal))
	case nullDecimalType:
		x, y := a.Interface().(decimal.NullDecimal), b.Interface().(decimal.NullDecimal)
		return x.Valid == y.Valid && (!x.Valid || x.Decimal.Equal(y.Decimal))
	case timeType:
		return a.Interface().(time.Time).Equal(b.Interface().(time.Time))
	}
	switch a.Kind() {
	case reflect.Pointer, reflect.Interface:
		if a.IsNil() || b.IsNil() {
			return a.IsNil() == b.IsNil()
		}
		return same(a.Elem(), b.Elem())
	case reflect.Struct:
		for i := 0; i < a.NumField(); i++ {
			if !same(a.Field(i), b.Field(i)) {
				return false
			}
		}
		return true
	case reflect.Slice, reflect.Array:
		if a.Len() != b.Len() {
			return false
		}
		for i := 0; i < a.Len(); i++ {
			if !same(a.Index(i), b.Index(i)) {
				return false
			}
		}
		return true
	case reflect.Map:
		if a.Len() != b.Len() {
			return false
		}
		for _, k := range a.MapKeys() {
			if bv := b.MapIndex(k); !bv.IsValid() || !same(a.MapIndex(k), bv) {
				return false
			}
		}
		return true
	case reflect.String:
		return a.String() == b.String()
	case reflect.Bool:
		return a.Bool() == b.Bool()
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return a.Int() == b.Int()
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return a.Uint() == b.Uint()
	case reflect.Float32, reflect.Float64:
		return a.Float() == b.Float()
	}
	return reflect.DeepEqual(a.Interface(), b.Interface())
}

var integerLiteral = regexp.MustCompile(`^[+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+)([eE][+-]?[0-9]{1,3})?$`)

// FuzzIntValue: Int reads exactly the integer an independent parse
// (math/big) reads, bare or quoted, and refuses fractions and overflow.
func FuzzIntValue(f *testing.F) {
	for _, s := range []string{`123`, `"5973852953"`, `1.23e2`, `"-1011"`, `null`, `""`, `1.5`, `9223372036854775807`, `9223372036854775808`, `"1e3"`, `-0`, `"0x10"`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var i Int
		err := i.UnmarshalJSON(b)
		s := string(b)
		if s == "null" || s == `""` {
			if err != nil || i != 0 {
				t.Fatalf("%s: %d, %v", s, i, err)
			}
			return
		}
		if len(s) >= 2 && s[0] == '"' && s[len(s)-1] == '"' {
			s = s[1 : len(s)-1]
		}
		var want int64
		wok := false
		if len(s) <= 100 && integerLiteral.MatchString(s) {
			if r, ok := new(big.Rat).SetString(s); ok && r.IsInt() && r.Num().IsInt64() && r.Num().Int64() != -1<<63 {
				want, wok = r.Num().Int64(), true
			}
		}
		if (err == nil) != wok || (wok && int64(i) != want) {
			t.Fatalf("Int(%s) = %d, %v; math/big: %d, %v", b, i, err, want, wok)
		}
	})
}
