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
	u, err := exchange.DefaultUniverse()
	if err != nil {
		t.Fatal(err)
	}
	solTok, solSpot, ethPerp := templates(u)
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
	b, err := json.Marshal(u)
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "universe20.json")
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	syms := make([]string, len(u.Symbols))
	for i, s := range u.Symbols {
		syms[i] = s.Symbol
	}
	return p, syms
}

func TestUniverse20Loads(t *testing.T) {
	p, syms := universe20(t)
	if len(syms) != 20 {
		t.Fatalf("%d symbols", len(syms))
	}
	if _, err := exchange.LoadUniverse(p); err != nil {
		t.Fatal(err)
	}
}

// templates are the default universe's SOL token, SPOT_SOL_USDT and
// PERP_ETH_USDT, copied to list more symbols.
func templates(u *exchange.Universe) (tok exchange.TokenSpec, spot, perp exchange.SymbolSpec) {
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
	return tok, spot, perp
}
