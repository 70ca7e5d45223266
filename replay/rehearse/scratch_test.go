package rehearse

import (
	"context"
	"os"
	"testing"
)

func TestScratch(t *testing.T) {
	rep, err := Run(context.Background(), Options{Path: "../testdata/sim-perp-btc.tdrec",
		Lines: []string{"bracket PERP_BTC_USDT buy 0.01 at market tp 97100 sl 96960"}, Log: func(s string) { t.Log(s) }})
	if err != nil {
		t.Fatal(err)
	}
	rep.WriteText(os.Stdout)
}
