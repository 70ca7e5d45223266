package common

import "testing"

func TestFitNumberNeverChangesMagnitude(t *testing.T) {
	cases := []struct {
		v     int64
		dec   int
		width int
		want  string
	}{
		{12345678, 4, 6, "1234.5"}, // fraction digits dropped
		{12345678, 4, 5, " 1234"},  // no dangling point
		{12345678, 4, 4, "1234"},   // integer part exactly fits
		{12345678, 4, 3, "###"},    // integer part too wide: never "123"
		{12345678, 4, 12, "   1234.5678"},
	}
	for _, c := range cases {
		got := string(AppendNum(nil, c.v, c.dec, c.width, true))
		if got != c.want {
			t.Errorf("AppendNum(%d, dec %d, width %d) = %q, want %q", c.v, c.dec, c.width, got, c.want)
		}
	}
}
