package exchange

import (
	"errors"
	"fmt"
	"strings"

	"github.com/shopspring/decimal"
)

// AddListings grows u by n base tokens TK00, TK01, ..., each listed spot
// and perpetual against USDT (copies of SOL's token, SPOT_SOL_USDT and
// PERP_ETH_USDT, priced 10, 11, ...), and returns the new symbols: the
// many-symbol universes the measurements and their tests share.
func (u *Universe) AddListings(n int) ([]string, error) {
	var tok *TokenSpec
	var spot, perp *SymbolSpec
	for i := range u.Tokens {
		if u.Tokens[i].Token == "SOL" {
			tok = &u.Tokens[i]
		}
	}
	for i := range u.Symbols {
		switch u.Symbols[i].Symbol {
		case "SPOT_SOL_USDT":
			spot = &u.Symbols[i]
		case "PERP_ETH_USDT":
			perp = &u.Symbols[i]
		}
	}
	if tok == nil || spot == nil || perp == nil {
		return nil, errors.New("universe: no SOL token, SPOT_SOL_USDT or PERP_ETH_USDT to copy listings from")
	}
	tmplTok, templates := *tok, []SymbolSpec{*spot, *perp}
	syms := make([]string, 0, 2*n)
	for i := range n {
		name := fmt.Sprintf("TK%02d", i)
		tk := tmplTok
		tk.Token, tk.Fullname = name, "Token "+name
		tk.Networks = []NetworkSpec{{Protocol: "ERC20", Token: "ETH_" + name, Name: "Ethereum",
			MinimumWithdrawal: decimal.NewFromInt(1), WithdrawalFee: decimal.RequireFromString("0.1")}}
		u.Tokens = append(u.Tokens, tk)
		for _, tmpl := range templates {
			s := tmpl
			s.Symbol = strings.SplitN(tmpl.Symbol, "_", 2)[0] + "_" + name + "_USDT"
			s.InitialPrice = decimal.NewFromInt(int64(10 + i))
			u.Symbols = append(u.Symbols, s)
			syms = append(syms, s.Symbol)
		}
	}
	return syms, nil
}
