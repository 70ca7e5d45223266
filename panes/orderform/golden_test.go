package orderform

import (
	tea "charm.land/bubbletea/v2"

	"errors"
	"strings"
	"testing"

	"tradedeck/feed"
	"tradedeck/panes/panetest"
	"tradedeck/trade"
)

// goldenForm opens a form on the realistic BTC fixture (bid 97000.00, ask
// 97001.00, spot 2/5 bps, perpetual 1/4 bps) with the fixed clock.
func goldenForm(t *testing.T, sym string, side trade.Side, rule *trade.Rule) *Form {
	return goldenFormIn(t, "FUTURES", sym, side, rule)
}

func goldenFormIn(t *testing.T, mode, sym string, side trade.Side, rule *trade.Rule) *Form {
	t.Helper()
	st := feeStore(mode)
	st.Account.Positions = []feed.Position{{Symbol: "PERP_BTC_USDT", Holding: d("-0.25")}}
	f := New(panetest.Common(st, nil, false), Options{Symbol: sym, Side: side, Rule: rule, IDs: trade.NewClientIDsFrom(1_000_000_001)})
	f.SetSize(120, 40)
	return f
}

func ruleFor(sym string) *trade.Rule {
	r := btc
	r.Symbol = sym
	return &r
}

// Every order type's rows on both sides: LIMIT, IOC, FOK and POST_ONLY
// take a price; MARKET, ASK and BID take a quantity or a quote amount and
// say who sets the price; visible only where it has an effect.
func TestGoldenEveryTypeBothSides(t *testing.T) {
	for _, side := range []trade.Side{trade.Buy, trade.Sell} {
		for i, typ := range trade.Types {
			f := goldenForm(t, "SPOT_BTC_USDT", side, ruleFor("SPOT_BTC_USDT"))
			press(f, "0.01")
			f.focusRow(rowType)
			for range i {
				press(f, "right")
			}
			if f.Order().Type != typ {
				t.Fatalf("cycled to %s, want %s", f.Order().Type, typ)
			}
			name := "form_" + strings.ToLower(string(side)) + "_" + strings.ToLower(string(typ))
			panetest.Golden(t, name, f.View())
		}
	}
}

// A perpetual: the reduce-only row, the futures fee rates, a short to
// reduce.
func TestGoldenPerpetualReduceOnly(t *testing.T) {
	f := goldenForm(t, "PERP_BTC_USDT", trade.Buy, ruleFor("PERP_BTC_USDT"))
	press(f, "0.3")
	f.focusRow(rowReduce)
	press(f, "space")
	panetest.Golden(t, "form_perp_reduce_only_too_big", f.View())
	f.focusRow(rowQty)
	press(f, "=")
	panetest.Golden(t, "form_perp_reduce_only", f.View())
}

// Errors: each broken rule under its row with the nearest valid value,
// a refused submit's hint, the funds check, the missing rule.
func TestGoldenErrors(t *testing.T) {
	f := goldenForm(t, "SPOT_BTC_USDT", trade.Buy, ruleFor("SPOT_BTC_USDT"))
	press(f, "0.000123")
	panetest.Golden(t, "form_err_step", f.View())
	press(f, "enter")
	panetest.Golden(t, "form_err_not_sent", f.View())

	f = goldenForm(t, "SPOT_BTC_USDT", trade.Buy, ruleFor("SPOT_BTC_USDT"))
	press(f, "0.01", "shift+tab")
	clear(f)
	press(f, "120000")
	panetest.Golden(t, "form_err_price_range", f.View())

	// PURE_SPOT cannot borrow: a SELL beyond the 0.1 BTC held, a BUY
	// beyond the 10000 USDT.
	f = goldenFormIn(t, "PURE_SPOT", "SPOT_BTC_USDT", trade.Sell, ruleFor("SPOT_BTC_USDT"))
	press(f, "0.5")
	panetest.Golden(t, "form_err_sell_funds", f.View())
	f = goldenFormIn(t, "PURE_SPOT", "SPOT_BTC_USDT", trade.Buy, ruleFor("SPOT_BTC_USDT"))
	press(f, "0.2")
	panetest.Golden(t, "form_err_buy_funds", f.View())
	// A perpetual needs account mode FUTURES.
	f = goldenFormIn(t, "MARGIN", "PERP_BTC_USDT", trade.Buy, ruleFor("PERP_BTC_USDT"))
	press(f, "0.01")
	panetest.Golden(t, "form_err_perp_mode", f.View())

	f = goldenForm(t, "SPOT_BTC_USDT", trade.Buy, nil)
	press(f, "0.01")
	panetest.Golden(t, "form_rule_loading", f.View())
	f.Update(RulesMsg{Err: errors.New("GET /v1/public/info/SPOT_BTC_USDT: 503 Service Unavailable")})
	panetest.Golden(t, "form_rule_error", f.View())
	if _, ok := cmdtestFindSubmit(press(f, "enter")); ok {
		t.Fatal("submitted without a rule")
	}
}

// Stepping: quantity from empty to the minimum, price by ticks and by 10
// ticks, the quote amount by its tick; the views after each step.
func TestGoldenStepping(t *testing.T) {
	f := goldenForm(t, "SPOT_BTC_USDT", trade.Sell, ruleFor("SPOT_BTC_USDT"))
	press(f, "up") // empty quantity: the minimum valid at the price
	if got := f.inputs[rowQty].Value(); got != "0.00002" {
		t.Fatalf("first step %q, want the minimum 0.00002 (1 USDT at 97001)", got)
	}
	press(f, "up", "up", "pgup")
	if got := f.inputs[rowQty].Value(); got != "0.00014" {
		t.Fatalf("after +1 +1 +10 steps: %q", got)
	}
	press(f, "shift+tab", "pgdown", "down")
	if got := f.inputs[rowPrice].Value(); got != "97000.89" {
		t.Fatalf("price after -10 -1 ticks: %q", got)
	}
	panetest.Golden(t, "form_sell_stepped", f.View())

	f = goldenForm(t, "SPOT_BTC_USDT", trade.Buy, ruleFor("SPOT_BTC_USDT"))
	f.focusRow(rowType)
	press(f, "right") // MARKET
	f.focusRow(rowAmount)
	press(f, "250", "up", "pgup")
	if got := f.inputs[rowAmount].Value(); got != "250.11" {
		t.Fatalf("amount after +1 +10 ticks: %q", got)
	}
	panetest.Golden(t, "form_buy_market_amount", f.View())
}

func cmdtestFindSubmit(msgs []tea.Msg) (SubmitMsg, bool) {
	for _, m := range msgs {
		if s, ok := m.(SubmitMsg); ok {
			return s, true
		}
	}
	return SubmitMsg{}, false
}
