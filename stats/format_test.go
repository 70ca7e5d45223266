package stats

import "testing"

func TestFormat(t *testing.T) {
	for _, c := range []struct {
		in   string
		want string
	}{{"1234567.891", "1,234,567.89"}, {"0", "0.00"}, {"999.999", "1,000.00"}, {"-1234.5", "-1,234.50"}, {"123", "123.00"}} {
		if got := FormatUSD(dec(c.in), 2); got != c.want {
			t.Errorf("FormatUSD(%s) = %s, want %s", c.in, got, c.want)
		}
	}
	for _, c := range []struct {
		v    float64
		want string
	}{{0, "0"}, {950, "950"}, {12345, "12.3K"}, {999950, "1M"}, {4560000, "4.56M"}, {1.2e9, "1.2B"}, {3.4e12, "3.4T"}, {0.5, "0.5"}, {-2500, "-2.5K"}, {100000, "100K"}, {1.234e29, "1.23e29"}, {999.4e12, "999T"}, {-5e20, "-5e20"}} {
		if got := Compact(c.v); got != c.want {
			t.Errorf("Compact(%v) = %s, want %s", c.v, got, c.want)
		}
	}
	if FormatCount(1234567) != "1,234,567" || FormatCount(12) != "12" {
		t.Error("FormatCount")
	}
	if FormatChange(dec("4.214")) != "+4.21%" || FormatChange(dec("-0.5")) != "-0.50%" || FormatChange(dec("0")) != "0.00%" {
		t.Error("FormatChange")
	}
}
