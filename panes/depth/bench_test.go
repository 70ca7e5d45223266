package depth

import (
	"testing"

	"tradedeck/panes/common"
)

// A book update on a full 200x60 heat map: the new column is built and
// shaded, the frame composed from the cached columns.
func BenchmarkHeatBookUpdate200x60(b *testing.B) {
	bs := books(800)
	var h Heat
	for _, bk := range bs[:600] {
		h.AddBook(bk)
	}
	th := themeOf(&testing.T{}, false)
	var c common.Canvas
	b.ReportAllocs()
	b.ResetTimer()
	start, n := h.shaded, 0
	for i := 0; b.Loop(); i++ {
		h.AddBook(bs[600+i%200])
		c.Begin(200)
		h.Draw(&c, th, 200, 60)
		c.Finish(60)
		n++
	}
	b.ReportMetric(float64(h.shaded-start)/float64(n), "shaded/op")
}

// The depth chart of a 40-level book at 200x60.
func BenchmarkCurve200x60(b *testing.B) {
	bk, own := market()
	th := themeOf(&testing.T{}, false)
	var cv Curve
	var c common.Canvas
	b.ReportAllocs()
	for b.Loop() {
		c.Begin(200)
		cv.Draw(&c, th, bk, own, 200, 60)
		c.Finish(60)
	}
}
