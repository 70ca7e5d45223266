package venue_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"tradedeck/sim"
	"tradedeck/sim/simtest"
	"tradedeck/venue"
)

// TestSimRoundTrip calls every method of the client against the running
// simulated venue over loopback, with the sim writing numbers as JSON
// numbers and as strings.
func TestSimRoundTrip(t *testing.T) {
	for _, strs := range []bool{false, true} {
		t.Run(fmt.Sprintf("string_numbers=%v", strs), func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			roundTrip(ctx, t, simtest.Start(t, sim.Options{Seed: 7, StringNumbers: strs}))
		})
	}
}

func roundTrip(ctx context.Context, t *testing.T, inst *sim.Instance) {
	c := venue.NewClient(inst.Endpoints, inst.Credentials)
	must := func(what string, err error) {
		t.Helper()
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
	}
	// A reply that is the venue's refusal still round-trips: the request
	// was understood and the error decoded.
	mayRefuse := func(what string, err error) {
		t.Helper()
		var ae *venue.APIError
		if err != nil && (!errors.As(err, &ae) || ae.Code == 0) {
			t.Fatalf("%s: %v", what, err)
		}
	}
	const spot, perp = "SPOT_BTC_USDT", "PERP_BTC_USDT"

	// Public.
	rules, err := c.SymbolRules(ctx)
	must("SymbolRules", err)
	if len(rules) == 0 {
		t.Fatal("no symbols")
	}
	rule, err := c.SymbolRule(ctx, spot)
	must("SymbolRule", err)
	if rule.Symbol != spot || !rule.QuoteTick.IsPositive() || !rule.BaseTick.IsPositive() {
		t.Fatalf("rule %+v", rule)
	}
	_, err = c.MarketTrades(ctx, spot, 5)
	must("MarketTrades", err)
	tokens, err := c.Tokens(ctx)
	must("Tokens", err)
	if len(tokens) == 0 {
		t.Fatal("no tokens")
	}
	_, err = c.TokenNetworks(ctx)
	must("TokenNetworks", err)
	_, err = c.FundingRates(ctx)
	must("FundingRates", err)
	fr, err := c.FundingRate(ctx, perp)
	must("FundingRate", err)
	if fr.Symbol != perp {
		t.Errorf("funding rate %+v", fr)
	}
	_, _, err = c.FundingRateHistory(ctx, venue.FundingRateHistoryFilter{Symbol: perp})
	must("FundingRateHistory", err)
	_, err = c.FuturesInfos(ctx)
	must("FuturesInfos", err)
	fi, err := c.FuturesInfo(ctx, perp)
	must("FuturesInfo", err)
	if !fi.MarkPrice.IsPositive() {
		t.Errorf("futures info %+v", fi)
	}

	// Market data.
	book, err := c.OrderBook(ctx, spot, 5)
	must("OrderBook", err)
	if len(book.Bids) == 0 || len(book.Asks) == 0 || book.Timestamp.IsZero() {
		t.Fatalf("book %+v", book)
	}
	_, err = c.Kline(ctx, venue.KlineRequest{Symbol: spot, Type: "1m", Limit: 10})
	must("Kline", err)
	_, _, err = c.HistKline(ctx, venue.HistKlineRequest{Symbol: spot, Type: "1h", StartTime: time.Now().Add(-24 * time.Hour)})
	must("HistKline", err)

	// Orders: a resting bid well below the touch, read back and cancelled
	// three ways.
	bid := book.Bids[0].Price.Mul(decimal.RequireFromString("0.95")).Div(rule.QuoteTick).Floor().Mul(rule.QuoteTick)
	qty := rule.BaseMin.Mul(decimal.NewFromInt(100))
	place := func(cid int64) venue.OrderAck {
		t.Helper()
		ack, err := c.SendOrder(ctx, venue.OrderRequest{Symbol: spot, Type: venue.Limit, Side: venue.Buy, Price: bid, Quantity: qty, ClientOrderID: cid})
		must("SendOrder", err)
		if ack.OrderID <= 0 || ack.ClientOrderID.Int64() != cid {
			t.Fatalf("ack %+v", ack)
		}
		return ack
	}
	ack := place(1001)
	o, err := c.GetOrder(ctx, ack.OrderID.Int64())
	must("GetOrder", err)
	if o.OrderID != ack.OrderID || o.Status != venue.StatusNew || !o.Price.Decimal.Equal(bid) || !o.Quantity.Decimal.Equal(qty) {
		t.Fatalf("order %+v", o)
	}
	o2, err := c.GetOrderByClientID(ctx, 1001)
	must("GetOrderByClientID", err)
	if o2.OrderID != ack.OrderID {
		t.Fatalf("by client id %+v", o2)
	}
	open, meta, err := c.ListOrders(ctx, venue.OrderFilter{Symbol: spot, Status: venue.StatusIncomplete})
	must("ListOrders", err)
	if len(open) == 0 || meta.CurrentPage != 1 {
		t.Fatalf("open orders %v meta %+v", open, meta)
	}
	must("CancelOrder", c.CancelOrder(ctx, spot, ack.OrderID.Int64()))
	place(1002)
	must("CancelOrderByClientID", c.CancelOrderByClientID(ctx, spot, 1002))
	place(1003)
	must("CancelAll", c.CancelAll(ctx, spot))
	mayRefuse("CancelOrder again", c.CancelOrder(ctx, spot, ack.OrderID.Int64()))

	// A small market buy to make a trade.
	mk, err := c.SendOrder(ctx, venue.OrderRequest{Symbol: spot, Type: venue.Market, Side: venue.Buy, Quantity: rule.BaseMin.Mul(decimal.NewFromInt(20))})
	must("SendOrder market", err)
	var trades []venue.Trade
	for i := 0; i < 100 && len(trades) == 0; i++ { // the fill is asynchronous
		trades, err = c.OrderTrades(ctx, mk.OrderID.Int64())
		must("OrderTrades", err)
		if len(trades) == 0 {
			time.Sleep(20 * time.Millisecond)
		}
	}
	if len(trades) == 0 {
		t.Fatal("market order never traded")
	}
	tr, err := c.GetTrade(ctx, trades[0].ID.Int64())
	must("GetTrade", err)
	if tr.ID != trades[0].ID || !tr.ExecutedPrice.IsPositive() {
		t.Fatalf("trade %+v", tr)
	}
	_, _, err = c.ListTrades(ctx, venue.TradeFilter{Symbol: spot})
	must("ListTrades", err)

	// Account.
	_, err = c.TokenConfig(ctx)
	must("TokenConfig", err)
	h, err := c.Holding(ctx)
	must("Holding", err)
	if !h["USDT"].IsPositive() {
		t.Errorf("holding %v", h)
	}
	_, err = c.HoldingV2(ctx, true)
	must("HoldingV2", err)
	info, err := c.AccountInfo(ctx)
	must("AccountInfo", err)
	if info.Application.ApplicationID != inst.Credentials.ApplicationID {
		t.Errorf("account %+v", info)
	}
	_, err = c.DepositAddress(ctx, "BTC")
	must("DepositAddress", err)
	_, _, err = c.AssetHistory(ctx, venue.AssetHistoryFilter{})
	must("AssetHistory", err)
	must("SetAccountMode", c.SetAccountMode(ctx, venue.Futures))
	must("SetLeverage", c.SetLeverage(ctx, venue.LeverageRequest{Leverage: 10, Mode: venue.Futures}))

	// Margin interest.
	_, err = c.InterestRates(ctx)
	must("InterestRates", err)
	_, err = c.InterestRate(ctx, "BTC")
	must("InterestRate", err)
	_, _, err = c.InterestHistory(ctx, venue.InterestHistoryFilter{})
	must("InterestHistory", err)
	mayRefuse("RepayInterest", c.RepayInterest(ctx, "USDT", decimal.RequireFromString("1")))

	// Futures.
	_, _, err = c.FundingFeeHistory(ctx, venue.FundingFeeFilter{})
	must("FundingFeeHistory", err)
	_, err = c.Positions(ctx)
	must("Positions", err)
	_, err = c.Position(ctx, perp)
	mayRefuse("Position", err)

	// Subaccounts.
	subs, err := c.SubAccounts(ctx)
	must("SubAccounts", err)
	if len(subs) == 0 {
		t.Fatal("no subaccounts")
	}
	_, err = c.SubAccountAssets(ctx)
	must("SubAccountAssets", err)
	_, err = c.SubAccountAssetDetail(ctx, inst.Credentials.ApplicationID)
	must("SubAccountAssetDetail", err)
	_, _, err = c.IPRestrictions(ctx, venue.IPRestrictionFilter{})
	must("IPRestrictions", err)
	id, err := c.Transfer(ctx, venue.TransferRequest{Token: "USDT", Amount: decimal.NewFromInt(5),
		FromApplicationID: inst.Credentials.ApplicationID, ToApplicationID: subs[0].ApplicationID})
	must("Transfer", err)
	transfers, _, err := c.TransferHistory(ctx, venue.TransferFilter{})
	must("TransferHistory", err)
	found := false
	for _, tf := range transfers {
		found = found || tf.ID.Int64() == id
	}
	if !found {
		t.Errorf("transfer %d not in the history %+v", id, transfers)
	}

	// A keyless client reads the public twins of the order book and kline,
	// and is refused private endpoints before sending.
	anon := venue.NewClient(inst.Endpoints, venue.Credentials{})
	pb, err := anon.OrderBook(ctx, spot, 3)
	must("OrderBook (public)", err)
	if len(pb.Asks) == 0 || len(pb.Asks) > 3 {
		t.Errorf("public book %+v", pb)
	}
	_, err = anon.Kline(ctx, venue.KlineRequest{Symbol: spot, Type: "1m", Limit: 5})
	must("Kline (public)", err)
	if _, err := anon.Holding(ctx); !errors.Is(err, venue.ErrNoCredentials) {
		t.Errorf("keyless holding: %v", err)
	}
	if len(c.Budgets()) == 0 {
		t.Error("no budgets recorded")
	}

	// Refusals decode into the typed errors.
	_, err = c.SendOrder(ctx, venue.OrderRequest{Symbol: spot, Type: venue.Limit, Side: venue.Buy,
		Price: bid.Add(rule.QuoteTick.Div(decimal.NewFromInt(2))), Quantity: qty})
	if !venue.IsFilterReject(err) {
		t.Errorf("off-tick price: %v", err)
	}
	bad := venue.NewClient(inst.Endpoints, venue.Credentials{APIKey: inst.Credentials.APIKey, APISecret: "wrong"})
	if _, err := bad.Holding(ctx); !venue.IsAuth(err) {
		t.Errorf("wrong secret: %v", err)
	}
}
