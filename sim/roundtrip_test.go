package sim_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"tradedeck/sim"
	"tradedeck/venue"
)

func d(s string) decimal.Decimal { return decimal.RequireFromString(s) }

func wantCode(t *testing.T, err error, code venue.Code) {
	t.Helper()
	var ae *venue.APIError
	if !errors.As(err, &ae) || ae.Code != code {
		t.Fatalf("got %v, want venue error %d", err, code)
	}
}

// TestClientRoundTrip calls every method of the venue client against a
// running sim over loopback, with both number encodings.
func TestClientRoundTrip(t *testing.T) {
	for _, strNums := range []bool{false, true} {
		name := "numbers"
		if strNums {
			name = "string_numbers"
		}
		t.Run(name, func(t *testing.T) { roundTrip(t, strNums) })
	}
}

func roundTrip(t *testing.T, strNums bool) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	// a still market without a past: the test counts the public trades and the kline volumes it makes itself
	inst, err := sim.Start(ctx, sim.Options{Seed: 3, StringNumbers: strNums, NoHistory: true, Living: sim.LivingOptions{NoMarket: true}})
	if err != nil {
		t.Fatal(err)
	}
	defer inst.Close()
	c := venue.NewClient(inst.Endpoints, inst.Credentials)
	sub := venue.NewClient(inst.Endpoints, inst.SubCredentials)
	anon := venue.NewClient(inst.Endpoints, venue.Credentials{})
	const spot, eth, perp = "SPOT_BTC_USDT", "SPOT_ETH_USDT", "PERP_BTC_USDT"

	// public market data
	rules, err := c.SymbolRules(ctx)
	if err != nil || len(rules) < 12 {
		t.Fatalf("rules %d %v", len(rules), err)
	}
	rule, err := c.SymbolRule(ctx, spot)
	if err != nil || rule.Symbol != spot || !rule.QuoteTick.Equal(d("0.01")) || !rule.BaseTick.Equal(d("0.00001")) {
		t.Fatalf("rule %+v %v", rule, err)
	}
	if _, err := c.SymbolRule(ctx, "SPOT_NOPE_USDT"); err == nil {
		t.Fatal("unknown symbol accepted")
	}
	tokens, err := c.Tokens(ctx)
	if err != nil || len(tokens) == 0 || tokens[0].BalanceToken == "" {
		t.Fatalf("tokens %v %v", tokens, err)
	}
	nets, err := c.TokenNetworks(ctx)
	if err != nil || len(nets) == 0 || !bool(nets[0].AllowDeposit) {
		t.Fatalf("networks %v %v", nets, err)
	}
	book, err := c.OrderBook(ctx, spot, 5)
	if err != nil || len(book.Asks) != 5 || len(book.Bids) != 5 || !book.Asks[0].Price.GreaterThan(book.Bids[0].Price) ||
		!book.Asks[0].Price.LessThan(book.Asks[1].Price) || book.Timestamp.IsZero() {
		t.Fatalf("book %+v %v", book, err)
	}
	if pb, err := anon.OrderBook(ctx, spot, 3); err != nil || len(pb.Bids) != 3 {
		t.Fatalf("public book %+v %v", pb, err)
	}
	frs, err := c.FundingRates(ctx)
	if err != nil || len(frs) < 5 || frs[0].NextFundingTime.IsZero() {
		t.Fatalf("funding rates %v %v", frs, err)
	}
	fr, err := c.FundingRate(ctx, perp)
	if err != nil || fr.Symbol != perp || !fr.EstFundingRate.Equal(d("0.0001")) {
		t.Fatalf("funding rate %+v %v", fr, err)
	}
	if _, _, err := c.FundingRateHistory(ctx, venue.FundingRateHistoryFilter{Symbol: perp}); err != nil {
		t.Fatal(err)
	}
	futs, err := c.FuturesInfos(ctx)
	if err != nil || len(futs) != len(frs) {
		t.Fatalf("futures %v %v", futs, err)
	}
	fut, err := c.FuturesInfo(ctx, perp)
	if err != nil || !fut.MarkPrice.Equal(d("97010")) {
		t.Fatalf("futures info %+v %v", fut, err)
	}

	// trading: a resting ETH bid, read back, cancelled
	bestBid := book.Bids[0].Price
	ethBook, _ := c.OrderBook(ctx, eth, 1)
	ack, err := c.SendOrder(ctx, venue.OrderRequest{Symbol: eth, Type: venue.Limit, Side: venue.Buy,
		Price: ethBook.Bids[0].Price.Sub(d("10")), Quantity: d("0.5"), ClientOrderID: 77, OrderTag: "rt"})
	if err != nil || ack.OrderID == 0 || ack.ClientOrderID != 77 || ack.OrderAmount.Valid {
		t.Fatalf("ack %+v %v", ack, err)
	}
	o, err := c.GetOrder(ctx, ack.OrderID.Int64())
	if err != nil || o.Status != venue.StatusNew || o.OrderTag != "rt" || !o.Quantity.Decimal.Equal(d("0.5")) {
		t.Fatalf("order %+v %v", o, err)
	}
	if o2, err := c.GetOrderByClientID(ctx, 77); err != nil || o2.OrderID != ack.OrderID {
		t.Fatalf("by client id %+v %v", o2, err)
	}
	open, meta, err := c.ListOrders(ctx, venue.OrderFilter{Status: venue.StatusIncomplete})
	if err != nil || len(open) != 1 || meta.Total == nil || *meta.Total != 1 || meta.RecordsPerPage != 25 {
		t.Fatalf("open %+v %+v %v", open, meta, err)
	}
	if hv2, err := c.HoldingV2(ctx, false); err != nil || !frozenOf(hv2, "USDT").IsPositive() {
		t.Fatalf("holding v2 %+v %v", hv2, err)
	}
	if err := c.CancelOrder(ctx, eth, ack.OrderID.Int64()); err != nil {
		t.Fatal(err)
	}
	wantCode(t, c.CancelOrder(ctx, eth, ack.OrderID.Int64()), venue.CodeResourceNotFound)
	if o, _ := c.GetOrder(ctx, ack.OrderID.Int64()); o.Status != venue.StatusCancelled {
		t.Fatalf("after cancel %+v", o)
	}
	// cancel by client id and cancel all
	if _, err := c.SendOrder(ctx, venue.OrderRequest{Symbol: eth, Type: venue.PostOnly, Side: venue.Buy,
		Price: ethBook.Bids[0].Price.Sub(d("20")), Quantity: d("0.5"), ClientOrderID: 78}); err != nil {
		t.Fatal(err)
	}
	if err := c.CancelOrderByClientID(ctx, eth, 78); err != nil {
		t.Fatal(err)
	}
	if _, err := c.SendOrder(ctx, venue.OrderRequest{Symbol: eth, Type: venue.Limit, Side: venue.Sell,
		Price: ethBook.Bids[0].Price.Add(d("50")), Quantity: d("0.5")}); err != nil {
		t.Fatal(err)
	}
	if err := c.CancelAll(ctx, eth); err != nil {
		t.Fatal(err)
	}
	// filters come back as venue errors
	_, err = c.SendOrder(ctx, venue.OrderRequest{Symbol: spot, Type: venue.Limit, Side: venue.Buy, Price: bestBid.Add(d("0.001")), Quantity: d("0.001")})
	if err == nil {
		t.Fatal("off-tick price accepted")
	}

	// a market buy by amount fills against the resting liquidity
	mack, err := c.SendOrder(ctx, venue.OrderRequest{Symbol: spot, Type: venue.Market, Side: venue.Buy, Amount: d("500")})
	if err != nil || !mack.OrderAmount.Decimal.Equal(d("500")) || mack.OrderPrice.Valid {
		t.Fatalf("market ack %+v %v", mack, err)
	}
	mo, err := c.GetOrder(ctx, mack.OrderID.Int64())
	if err != nil || mo.Status != venue.StatusFilled || len(mo.Transactions) == 0 || mo.FeeAsset != "BTC" {
		t.Fatalf("market order %+v %v", mo, err)
	}
	trades, err := c.OrderTrades(ctx, mack.OrderID.Int64())
	if err != nil || len(trades) != len(mo.Transactions) {
		t.Fatalf("order trades %v %v", trades, err)
	}
	tr, err := c.GetTrade(ctx, trades[0].ID.Int64())
	if err != nil || tr.OrderID != mack.OrderID || bool(tr.IsMaker) {
		t.Fatalf("trade %+v %v", tr, err)
	}
	all, tmeta, err := c.ListTrades(ctx, venue.TradeFilter{Symbol: spot})
	if err != nil || len(all) != len(trades) || tmeta.Total == nil {
		t.Fatalf("trades %v %+v %v", all, tmeta, err)
	}
	var bought, fees decimal.Decimal
	for _, x := range all {
		bought = bought.Add(x.ExecutedQuantity)
		fees = fees.Add(x.Fee)
	}
	if !fees.Equal(bought.Mul(d("0.0005"))) {
		t.Fatalf("taker fees %s for %s bought", fees, bought)
	}
	mts, err := c.MarketTrades(ctx, spot, 100)
	if err != nil || len(mts) != len(trades) || mts[0].Side != venue.Buy {
		t.Fatalf("market trades %v %v", mts, err)
	}
	ks, err := c.Kline(ctx, venue.KlineRequest{Symbol: spot, Type: "1m", Limit: 3})
	// the trades may straddle an interval boundary: sum what came back
	if err != nil || len(ks) == 0 || len(ks) > 2 || !volume(ks).Equal(bought) {
		t.Fatalf("kline %+v %v", ks, err)
	}
	if ks, err := anon.Kline(ctx, venue.KlineRequest{Symbol: spot, Type: "1d"}); err != nil || !volume(ks).Equal(bought) {
		t.Fatalf("public kline %+v %v", ks, err)
	}
	hk, _, err := c.HistKline(ctx, venue.HistKlineRequest{Symbol: spot, Type: "5m", StartTime: time.Now().Add(-time.Hour)})
	if err != nil || len(hk) == 0 || !volume(hk).Equal(bought) {
		t.Fatalf("hist kline %+v %v", hk, err)
	}

	// account
	hold, err := c.Holding(ctx)
	if err != nil || !hold["BTC"].Equal(d("1").Add(bought).Sub(fees)) {
		t.Fatalf("holding %v %v (bought %s fees %s)", hold, err, bought, fees)
	}
	if cfg, err := c.TokenConfig(ctx); err != nil || len(cfg) != len(inst.Exchange.Tokens()) {
		t.Fatalf("token config %v %v", cfg, err)
	}
	info, err := c.AccountInfo(ctx)
	if err != nil || info.Application.ApplicationID != inst.Credentials.ApplicationID || info.Application.AccountMode != venue.Futures {
		t.Fatalf("info %+v %v", info, err)
	}
	addr, err := c.DepositAddress(ctx, "ETH_USDT")
	if err != nil || len(addr.Address) != 42 {
		t.Fatalf("deposit %+v %v", addr, err)
	}
	hist, _, err := c.AssetHistory(ctx, venue.AssetHistoryFilter{TokenSide: "DEPOSIT"})
	if err != nil || len(hist) != 8 || hist[0].Status != "COMPLETED" {
		t.Fatalf("asset history %d %v", len(hist), err)
	}
	if err := c.SetAccountMode(ctx, venue.Futures); err != nil {
		t.Fatal(err)
	}
	if err := c.SetLeverage(ctx, venue.LeverageRequest{Leverage: 20, Mode: venue.Futures}); err != nil {
		t.Fatal(err)
	}
	rates, err := c.InterestRates(ctx)
	if err != nil || len(rates) == 0 {
		t.Fatalf("rates %v %v", rates, err)
	}
	rate, err := c.InterestRate(ctx, "USDT")
	if err != nil || !rate.CurrentHourlyBaseRate.Rate().Equal(d("0.00000114")) {
		t.Fatalf("rate %+v %v", rate, err)
	}
	if _, _, err := c.InterestHistory(ctx, venue.InterestHistoryFilter{}); err != nil {
		t.Fatal(err)
	}
	wantCode(t, c.RepayInterest(ctx, "USDT", d("1")), venue.CodeQuantityTooHigh)

	// perpetuals
	pack, err := c.SendOrder(ctx, venue.OrderRequest{Symbol: perp, Type: venue.Market, Side: venue.Buy, Quantity: d("0.01")})
	if err != nil {
		t.Fatal(err)
	}
	pos, err := c.Positions(ctx)
	if err != nil || len(pos.Positions) != 1 || !pos.Positions[0].Holding.Equal(d("0.01")) {
		t.Fatalf("positions %+v %v", pos, err)
	}
	p, err := c.Position(ctx, perp)
	po, _ := c.GetOrder(ctx, pack.OrderID.Int64())
	if err != nil || !p.AverageOpenPrice.Equal(po.AverageExecutedPrice.Decimal) {
		t.Fatalf("position %+v %v (order %+v)", p, err, po)
	}
	if _, _, err := c.FundingFeeHistory(ctx, venue.FundingFeeFilter{Symbol: perp}); err != nil {
		t.Fatal(err)
	}

	// subaccounts
	subs, err := c.SubAccounts(ctx)
	if err != nil || len(subs) != 1 || subs[0].ApplicationID != inst.SubCredentials.ApplicationID {
		t.Fatalf("subs %v %v", subs, err)
	}
	if _, err := sub.SubAccounts(ctx); !venue.IsAuth(err) {
		t.Fatalf("subaccount listing subaccounts: %v", err)
	}
	assets, err := c.SubAccountAssets(ctx)
	if err != nil || len(assets) != 2 {
		t.Fatalf("assets %v %v", assets, err)
	}
	id, err := c.Transfer(ctx, venue.TransferRequest{Token: "USDT", Amount: d("123.45"),
		FromApplicationID: inst.Credentials.ApplicationID, ToApplicationID: inst.SubCredentials.ApplicationID})
	if err != nil || id == 0 {
		t.Fatalf("transfer %d %v", id, err)
	}
	detail, err := sub.SubAccountAssetDetail(ctx, inst.SubCredentials.ApplicationID)
	if err != nil || !detail.Balances["USDT"].Holding.Equal(d("10123.45")) {
		t.Fatalf("detail %+v %v", detail, err)
	}
	xs, _, err := sub.TransferHistory(ctx, venue.TransferFilter{})
	if err != nil || len(xs) != 1 || xs[0].ID.Int64() != id || !xs[0].Amount.Equal(d("123.45")) {
		t.Fatalf("transfers %+v %v", xs, err)
	}
	ips, _, err := c.IPRestrictions(ctx, venue.IPRestrictionFilter{})
	if err != nil || len(ips) != 1 || ips[0].APIKey != inst.Credentials.APIKey || bool(ips[0].Restrict) {
		t.Fatalf("ip restrictions %+v %v", ips, err)
	}
}

func frozenOf(rows []venue.HoldingV2, token string) decimal.Decimal {
	for _, r := range rows {
		if r.Token == token {
			return r.Frozen
		}
	}
	return decimal.Zero
}

func volume(ks []venue.Kline) decimal.Decimal {
	v := decimal.Zero
	for _, k := range ks {
		v = v.Add(k.Volume)
	}
	return v
}
