package ui

import (
	tea "charm.land/bubbletea/v2"

	"testing"

	"github.com/shopspring/decimal"

	"tradedeck/feed"
	"tradedeck/internal/testkit"
	"tradedeck/panes/common"
	"tradedeck/panes/confirm"
	"tradedeck/panes/confirm/cmdtest"
	"tradedeck/panes/orderform"
	"tradedeck/panes/panetest"
	"tradedeck/trade"
	"tradedeck/venue"
)

// confirmStore is a realistic desk: BTC spot and perpetual books at
// 97000.00 / 97001.00, a FUTURES account with 2/5 bps spot and 1/4 bps
// perpetual fees, short 0.25 BTC perpetual.
func confirmStore() *common.Store {
	s := common.NewStore()
	for _, sym := range []string{"SPOT_BTC_USDT", "PERP_BTC_USDT"} {
		s.Books[sym] = &feed.Book{Symbol: sym, Scale: feed.Scale{PriceDec: 2, QtyDec: 5}, State: feed.Live,
			Bids: []feed.Level{{Price: 9700000, Qty: 100000}}, Asks: []feed.Level{{Price: 9700100, Qty: 50000}}}
	}
	dec := decimal.RequireFromString
	s.Account = &feed.Account{
		Margin: feed.Margin{Mode: "FUTURES", MakerFeeRate: dec("2"), TakerFeeRate: dec("5"),
			FuturesMakerFeeRate: dec("1"), FuturesTakerFeeRate: dec("4")},
		Balances:  []feed.Balance{{Token: "USDT", Holding: dec("25000")}, {Token: "BTC", Holding: dec("0.5")}},
		Positions: []feed.Position{{Symbol: "PERP_BTC_USDT", Holding: dec("-0.25")}},
	}
	return s
}

var btcRule = trade.Rule{QuoteMin: decimal.RequireFromString("1"), QuoteMax: decimal.RequireFromString("500000"),
	QuoteTick: decimal.RequireFromString("0.01"), BaseMin: decimal.RequireFromString("0.00001"), BaseMax: decimal.RequireFromString("50"),
	BaseTick: decimal.RequireFromString("0.00001"), MinNotional: decimal.RequireFromString("1"), PriceRange: decimal.RequireFromString("0.1")}

// The confirmation of each kind of order, exactly as shown: the order in
// words, visible/client id/tag, the preview with the right fee, and the
// strong form (MARKET, large notional) with its warning and "y" only.
func TestGoldenOrderConfirmations(t *testing.T) {
	// keys after the form opened on quantity; the Trader confirms.
	cases := []struct {
		name, sym string
		side      trade.Side
		keys      []string
	}{
		{"confirm_buy_limit", "SPOT_BTC_USDT", trade.Buy, []string{"0.01"}},
		{"confirm_sell_limit_visible_tag", "SPOT_BTC_USDT", trade.Sell,
			[]string{"0.05", "tab", "0.01", "tab", "tab", "desk-1"}},
		{"confirm_buy_market_strong", "SPOT_BTC_USDT", trade.Buy, []string{"shift+tab", "shift+tab", "right", "tab", "0.01"}},
		{"confirm_sell_large_strong", "SPOT_BTC_USDT", trade.Sell, []string{"0.3"}},
		{"confirm_perp_buy_reduce_only", "PERP_BTC_USDT", trade.Buy, []string{"0.25", "tab", "tab", "space"}},
		{"confirm_perp_sell_ask", "PERP_BTC_USDT", trade.Sell,
			[]string{"shift+tab", "shift+tab", "right", "right", "right", "right", "right", "tab", "0.02"}},
		{"confirm_buy_bid_post", "SPOT_BTC_USDT", trade.Buy,
			[]string{"shift+tab", "shift+tab", "right", "right", "right", "right", "right", "right", "tab", "0.02"}},
	}
	for _, c := range cases {
		c := c
		t.Run(c.name, func(t *testing.T) {
			clk := testkit.NewClock(panetest.Now)
			cm := panetest.Common(confirmStore(), nil, false)
			cm.Now = clk.Now
			client := venue.NewClient(venue.Endpoints{BaseURL: "http://127.0.0.1:9"}, venue.Credentials{APIKey: "k", APISecret: "s", ApplicationID: "a"})
			tr := NewTrader(TraderOptions{Desk: deskOn(t, client, nil), ConfirmNotional: decimal.NewFromInt(20000)})
			st := &cmdtest.Stack{W: 120, H: 40, OnMsg: func(m tea.Msg) tea.Cmd { cmd, _ := tr.Update(cm, m); return cmd }}
			rule := btcRule
			rule.Symbol = c.sym
			form := orderform.New(cm, orderform.Options{Symbol: c.sym, Side: c.side, Rule: &rule, IDs: trade.NewClientIDsFrom(1_000_000_001)})
			st.Run(common.Open(form))
			for _, k := range c.keys {
				if len([]rune(k)) == 1 || cmdtest.Key(k).Code != []rune(k)[0] {
					st.Press(k)
				} else {
					st.Type(k)
				}
			}
			st.Press("enter")
			cf, ok := st.Top().(*confirm.Model)
			if !ok {
				t.Fatalf("enter opened %T; form problems %v", st.Top(), form.Problems())
			}
			panetest.Golden(t, c.name, cf.View())
		})
	}
}
