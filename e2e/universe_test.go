package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/shopspring/decimal"

	"tradedeck/sim/exchange"
)

// universe20 writes the simulator's default universe grown to 20 symbols
// (six new spot tokens and one more perpetual), for measurements of the
// dashboard with 20 symbols streaming. Returns the file and the symbols.
func universe20(t testing.TB) (string, []string) {
	t.Helper()
	u, solTok, solSpot, ethPerp := listingTemplates(t)
	prices := map[string]string{"ADA": "0.9000", "LTC": "110.00", "DOT": "7.500", "LINK": "22.00", "AVAX": "40.00", "TRX": "0.2500"}
	for _, name := range []string{"ADA", "LTC", "DOT", "LINK", "AVAX", "TRX"} {
		tk := solTok
		tk.Token, tk.Fullname = name, name
		tk.Networks = []exchange.NetworkSpec{{Protocol: name, Token: name, Name: name, MinimumWithdrawal: decimal.NewFromInt(1), WithdrawalFee: decimal.RequireFromString("0.1")}}
		u.Tokens = append(u.Tokens, tk)
		s := solSpot
		s.Symbol = "SPOT_" + name + "_USDT"
		s.InitialPrice = decimal.RequireFromString(prices[name])
		u.Symbols = append(u.Symbols, s)
	}
	bnb := ethPerp
	bnb.Symbol, bnb.InitialPrice = "PERP_BNB_USDT", decimal.RequireFromString("620.10")
	u.Symbols = append(u.Symbols, bnb)
	syms := make([]string, len(u.Symbols))
	for i, s := range u.Symbols {
		syms[i] = s.Symbol
	}
	return writeUniverse(t, u, "universe20.json"), syms
}

// universe100 writes the simulator's default universe with 50 more base
// tokens, each listed spot and perpetual, and returns the file and the 100
// new symbols (the watchlist of the memory measurement).
func universe100(t testing.TB) (string, []string) {
	t.Helper()
	u, err := exchange.DefaultUniverse()
	if err != nil {
		t.Fatal(err)
	}
	syms, err := u.AddListings(50)
	if err != nil {
		t.Fatal(err)
	}
	return writeUniverse(t, u, "universe100.json"), syms
}

// listingTemplates is the simulator's default universe and the specs a
// new listing copies: SOL's token, SPOT_SOL_USDT and PERP_ETH_USDT.
func listingTemplates(t testing.TB) (u *exchange.Universe, tok exchange.TokenSpec, spot, perp exchange.SymbolSpec) {
	t.Helper()
	u, err := exchange.DefaultUniverse()
	if err != nil {
		t.Fatal(err)
	}
	for _, tk := range u.Tokens {
		if tk.Token == "SOL" {
			tok = tk
		}
	}
	for _, s := range u.Symbols {
		switch s.Symbol {
		case "SPOT_SOL_USDT":
			spot = s
		case "PERP_ETH_USDT":
			perp = s
		}
	}
	return u, tok, spot, perp
}

// writeUniverse writes u as a universe file of the test named name.
func writeUniverse(t testing.TB, u *exchange.Universe, name string) string {
	t.Helper()
	b, err := json.Marshal(u)
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// The grown universes of the measurements load in the simulator, with
// the symbols their callers watch.
func TestGrownUniversesLoad(t *testing.T) {
	for _, c := range []struct {
		grow func(testing.TB) (string, []string)
		n    int
	}{{universe20, 20}, {universe100, 100}} {
		p, syms := c.grow(t)
		if len(syms) != c.n {
			t.Fatalf("%d symbols, want %d", len(syms), c.n)
		}
		u, err := exchange.LoadUniverse(p)
		if err != nil {
			t.Fatal(err)
		}
		listed := map[string]bool{}
		for _, s := range u.Symbols {
			listed[s.Symbol] = true
		}
		for _, s := range syms {
			if !listed[s] {
				t.Fatalf("%s not in the universe", s)
			}
		}
	}
}
