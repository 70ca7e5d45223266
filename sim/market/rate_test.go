package market

import (
	"context"
	"os"
	"testing"
	"time"

	"tradedeck/sim/exchange"
)

// TestMeasureRates reports the book changes and trades per second the named rates produce in
// real time (TRADEDECK_MEASURE=1; it takes a few seconds and depends on the machine).
func TestMeasureRates(t *testing.T) {
	if os.Getenv("TRADEDECK_MEASURE") == "" {
		t.Skip("set TRADEDECK_MEASURE=1 to measure market rates")
	}
	for _, name := range []string{"calm", "busy", "stress"} {
		ex, err := exchange.New(exchange.Options{Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		rate, _ := ParseRate(name)
		mk, err := New(ex, Options{Seed: 1, Rate: rate})
		if err != nil {
			t.Fatal(err)
		}
		events, cancelSub := ex.Subscribe()
		ctx, cancel := context.WithTimeout(context.Background(), 4*time.Second)
		go mk.Run(ctx)
		var books, trades int
		start := time.Now()
	loop:
		for {
			select {
			case ev, ok := <-events:
				if !ok {
					t.Fatal("measuring subscriber dropped")
				}
				switch ev.(type) {
				case exchange.BookChanged:
					books++
				case exchange.TradeEvent:
					trades++
				}
			case <-ctx.Done():
				break loop
			}
		}
		el := time.Since(start).Seconds()
		cancel()
		cancelSub()
		t.Logf("%-6s %8.0f actions/s  %8.0f book changes/s  %7.0f trades/s  (%d symbols)", name,
			float64(mk.Actions())/el, float64(books)/el, float64(trades)/el, len(ex.Symbols()))
	}
}
