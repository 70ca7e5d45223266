package exchange

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shopspring/decimal"
)

func TestUniverseValidation(t *testing.T) {
	good, err := os.ReadFile("testdata/universe.json")
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct{ name, from, to, want string }{
		{"bad symbol shape", `"SPOT_BTC_USDT", "quote_min"`, `"BTCUSDT", "quote_min"`, "want SPOT_"},
		{"unlisted token", `"PERP_BTC_USDT"`, `"PERP_BTC_EUR"`, "not listed"},
		{"price off its tick", `"initial_price": "100.50"`, `"initial_price": "100.505"`, "tick scale"},
		{"zero tick", `"quote_tick": "0.01"`, `"quote_tick": "0"`, "ticks must be positive"},
		{"unknown main", `"main": "ALICE"`, `"main": "NOBODY"`, "not listed"},
		{"bad mode", `"account_mode": "FUTURES"`, `"account_mode": "CROSS"`, "account_mode"},
		{"duplicate account", `"name": "BOB"`, `"name": "ALICE"`, "unique"},
		{"not JSON", `{`, `[`, "invalid character"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			doc := strings.Replace(string(good), c.from, c.to, 1)
			if doc == string(good) {
				t.Fatalf("replacement %q not found", c.from)
			}
			_, err := ParseUniverse([]byte(doc))
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("got %v, want an error about %q", err, c.want)
			}
		})
	}
	path := filepath.Join(t.TempDir(), "u.json")
	if err := os.WriteFile(path, good, 0o600); err != nil {
		t.Fatal(err)
	}
	u, err := LoadUniverse(path)
	if err != nil || len(u.Symbols) != 2 || u.FundingIntervalHours != 8 {
		t.Fatalf("load %v %v", u, err)
	}
	if _, err := LoadUniverse(filepath.Join(t.TempDir(), "missing.json")); err == nil {
		t.Fatal("missing file accepted")
	}
	def, err := LoadUniverse("")
	if err != nil || len(def.Symbols) < 12 || len(def.Accounts) != 2 {
		t.Fatalf("default %v", err)
	}
}

// AddListings grows the default universe by spot and perpetual listings
// that load, priced one apart; a universe with nothing to copy refuses.
func TestAddListings(t *testing.T) {
	u, err := DefaultUniverse()
	if err != nil {
		t.Fatal(err)
	}
	before := len(u.Symbols)
	syms, err := u.AddListings(3)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"SPOT_TK00_USDT", "PERP_TK00_USDT", "SPOT_TK01_USDT", "PERP_TK01_USDT", "SPOT_TK02_USDT", "PERP_TK02_USDT"}
	if strings.Join(syms, " ") != strings.Join(want, " ") || len(u.Symbols) != before+6 {
		t.Fatalf("added %v (%d symbols, had %d)", syms, len(u.Symbols), before)
	}
	if p := u.Symbols[len(u.Symbols)-1].InitialPrice; !p.Equal(decimal.NewFromInt(12)) {
		t.Fatalf("PERP_TK02_USDT priced %s, want 12", p)
	}
	b, err := json.Marshal(u)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ParseUniverse(b); err != nil {
		t.Fatalf("the grown universe does not load: %v", err)
	}
	if _, err := (&Universe{}).AddListings(1); err == nil {
		t.Fatal("an empty universe grew")
	}
}
