package rest

import (
	"strings"

	"github.com/shopspring/decimal"

	"tradedeck/sim/exchange"
	"tradedeck/venue"
)

func (s *Server) tokenConfig(c *call) (obj, error) {
	held := map[string]bool{}
	for _, h := range s.ex.Holdings(c.account, false) {
		held[h.Token] = h.Holding.IsPositive()
	}
	var rows []obj
	for _, t := range s.ex.Tokens() {
		rows = append(rows, obj{{"token", t.Token}, {"collateral_ratio", dec(t.CollateralRatio)}, {"margin_factor", dec(t.MarginFactor)},
			{"futures_margin_factor", dec(t.FuturesMarginFactor)}, {"collateral", t.CanCollateral && held[t.Token]},
			{"can_collateral", t.CanCollateral}, {"can_short", t.CanShort}, {"stable", t.Stable}})
	}
	return obj{{"rows", rows}}, nil
}

func (s *Server) holdingV1(c *call) (obj, error) {
	m := obj{}
	for _, h := range s.ex.Holdings(c.account, false) {
		m = append(m, kv{h.Token, dec(h.Holding)})
	}
	return obj{{"holding", m}}, nil
}

func (s *Server) holdingV2(c *call) (obj, error) {
	all, err := c.enum("all", false, "true", "false")
	if err != nil {
		return nil, err
	}
	var rows []obj
	for _, h := range s.ex.Holdings(c.account, all == "true") {
		rows = append(rows, obj{{"token", h.Token}, {"holding", dec(h.Holding)}, {"frozen", dec(h.Frozen)}, {"interest", dec(h.Interest)},
			{"outstanding_holding", dec(h.OutstandingHolding)}, {"pending_exposure", dec(h.PendingExposure)}, {"updated_time", secs(h.UpdatedMs)}})
	}
	return obj{{"holding", rows}}, nil
}

func (s *Server) accountInfo(c *call) (obj, error) {
	i := s.ex.Info(c.account)
	return obj{{"application", obj{
		{"application_id", i.ApplicationID}, {"account", i.Account}, {"alias", i.Alias}, {"account_mode", i.Mode},
		{"leverage", i.Leverage}, {"taker_fee_rate", dec(i.TakerFeeRate)}, {"maker_fee_rate", dec(i.MakerFeeRate)},
		{"interest_rate", dec(i.InterestRate)}, {"futures_leverage", i.FuturesLeverage},
		{"futures_taker_fee_rate", dec(i.FuturesTakerFeeRate)}, {"futures_maker_fee_rate", dec(i.FuturesMakerFeeRate)}, {"otpauth", false},
	}}, {"margin_rate", dec(i.MarginRate)}}, nil
}

func (s *Server) depositAddress(c *call) (obj, error) {
	tok, err := c.str("token", true)
	if err != nil {
		return nil, err
	}
	addr, extra, xerr := s.ex.DepositAddress(c.account, tok)
	if xerr != nil {
		return nil, xerr
	}
	return obj{{"address", addr}, {"extra", extra}}, nil
}

func (s *Server) assetHistory(c *call) (obj, error) {
	var f exchange.AssetFilter
	var err error
	f.Token, f.BalanceToken = c.params.Get("token"), c.params.Get("balance_token")
	if f.Type, err = c.enum("type", false, "BALANCE", "COLLATERAL"); err != nil {
		return nil, err
	}
	if f.Side, err = c.enum("token_side", false, "DEPOSIT", "WITHDRAW"); err != nil {
		return nil, err
	}
	if f.Status, err = c.enum("status", false, "NEW", "CONFIRMING", "PROCESSING", "COMPLETED", "CANCELED"); err != nil {
		return nil, err
	}
	var page int
	if f.Start, f.End, page, err = c.listing(); err != nil {
		return nil, err
	}
	rows, meta := pagedObjs(s.ex.AssetHistory(c.account, f), page, false, func(r exchange.AssetRecord) obj {
		return obj{{"created_time", secs(r.CreatedMs)}, {"updated_time", secs(r.UpdatedMs)}, {"id", r.ID}, {"external_id", r.ExternalID},
			{"application_id", r.ApplicationID}, {"token", r.Token}, {"target_address", r.TargetAddress}, {"source_address", r.SourceAddress},
			{"extra", r.Extra}, {"type", r.Type}, {"token_side", r.Side}, {"amount", dec(r.Amount)}, {"tx_id", r.TxID},
			{"fee_token", nullString(r.FeeToken)}, {"fee_amount", nullable(r.FeeAmount, r.FeeToken != "")}, {"status", r.Status}}
	})
	return obj{{"meta", meta}, {"rows", rows}}, nil
}

func (s *Server) accountMode(c *call) (obj, error) {
	mode, err := c.enum("account_mode", true, exchange.ModePureSpot, exchange.ModeMargin, exchange.ModeFutures)
	if err != nil {
		return nil, err
	}
	return obj{}, wrapErr(s.ex.SetAccountMode(c.account, mode))
}

func (s *Server) leverage(c *call) (obj, error) {
	lev, err := c.integer("leverage", true, 0, 1, 100)
	if err != nil {
		return nil, err
	}
	return obj{}, wrapErr(s.ex.SetLeverage(c.account, int(lev)))
}

var (
	hundred     = decimal.NewFromInt(100)
	hoursInYear = decimal.NewFromInt(24 * 365)
)

func percent(d decimal.Decimal) string { return d.Mul(hundred).String() + "%" }

func interestObj(r exchange.InterestRate) obj {
	return obj{{"token", r.Token}, {"current_hourly_base_rate", percent(r.HourlyRate)}, {"est_hourly_base_rate", percent(r.HourlyRate)},
		{"current_annual_base_rate", percent(r.HourlyRate.Mul(hoursInYear))}, {"est_annual_base_rate", percent(r.HourlyRate.Mul(hoursInYear))},
		{"est_time", secs(r.EstMs)}}
}

func (s *Server) tokenInterest(c *call) (obj, error) {
	var rows []obj
	for _, r := range s.ex.InterestRates() {
		rows = append(rows, interestObj(r))
	}
	return obj{{"rows", rows}}, nil
}

func (s *Server) tokenInterestOne(c *call) (obj, error) {
	tok := c.r.PathValue("token")
	if tok != strings.ToUpper(tok) {
		return nil, invalid("token must be upper case")
	}
	for _, r := range s.ex.InterestRates() {
		if r.Token == tok {
			return obj{{"info", interestObj(r)}}, nil
		}
	}
	return nil, &exchange.Error{Code: venue.CodeResourceNotFound, Message: "token " + tok + " not found"}
}

func (s *Server) interestHistory(c *call) (obj, error) {
	side, err := c.enum("side", false, "LOAN", "REPAY", "AUTO_REPAY")
	if err != nil {
		return nil, err
	}
	start, end, page, err := c.listing()
	if err != nil {
		return nil, err
	}
	rows, meta := pagedObjs(s.ex.InterestHistory(c.account, c.params.Get("token"), side, start, end), page, false, func(r exchange.InterestRecord) obj {
		return obj{{"created_time", secs(r.CreatedMs)}, {"updated_time", secs(r.CreatedMs)}, {"token", r.Token},
			{"application_id", r.ApplicationID}, {"side", r.Side}, {"interest", r.Interest.String()}}
	})
	return obj{{"meta", meta}, {"rows", rows}}, nil
}

func (s *Server) repay(c *call) (obj, error) {
	tok, err := c.str("token", true)
	if err != nil {
		return nil, err
	}
	amount, err := c.requiredNumber("amount")
	if err != nil {
		return nil, err
	}
	return obj{}, wrapErr(s.ex.Repay(c.account, tok, amount))
}

func (s *Server) fundingFeeHistory(c *call) (obj, error) {
	start, end, page, err := c.listing()
	if err != nil {
		return nil, err
	}
	rows, meta := pagedObjs(s.ex.FundingFees(c.account, c.params.Get("symbol"), start, end), page, true, func(f exchange.FundingFee) obj {
		return obj{{"id", f.ID}, {"symbol", f.Symbol}, {"funding_rate", dec(f.Rate)}, {"mark_price", dec(f.MarkPrice)},
			{"funding_fee", dec(f.Fee)}, {"payment_type", f.PaymentType}, {"status", f.Status},
			{"created_time", secs(f.CreatedMs)}, {"updated_time", secs(f.CreatedMs)}}
	})
	return obj{{"meta", meta}, {"rows", rows}}, nil
}

func positionObj(p exchange.Position) obj {
	return obj{{"symbol", p.Symbol}, {"holding", dec(p.Holding)}, {"pending_long_qty", dec(p.PendingLongQty)},
		{"pending_short_qty", dec(p.PendingShortQty)}, {"settle_price", dec(p.SettlePrice)}, {"average_open_price", dec(p.AverageOpen)},
		{"pnl_24_h", dec(p.PnL24h)}, {"fee_24_h", dec(p.Fee24h)}, {"mark_price", dec(p.MarkPrice)}, {"est_liq_price", dec(p.EstLiqPrice)},
		{"timestamp", secs(p.UpdatedMs)}}
}

func (s *Server) positions(c *call) (obj, error) {
	p := s.ex.Positions(c.account)
	rows := objs(p.Positions, positionObj)
	return obj{{"current_margin_ratio", dec(p.CurrentMarginRatio)}, {"initial_margin_ratio", dec(p.InitialMarginRatio)},
		{"maintenance_margin_ratio", dec(p.MaintenanceMarginRatio)}, {"total_collateral", dec(p.TotalCollateral)},
		{"free_collateral", dec(p.FreeCollateral)}, {"total_account_value", dec(p.TotalAccountValue)},
		{"total_vault_value", num("0")}, {"total_staking_value", num("0")}, {"positions", rows}}, nil
}

func (s *Server) position(c *call) (obj, error) {
	p, err := s.ex.Position(c.account, c.r.PathValue("symbol"))
	if err != nil {
		return nil, err
	}
	return positionObj(p), nil
}

func (s *Server) subAccounts(c *call) (obj, error) {
	var rows []obj
	for _, a := range s.ex.Subaccounts(c.account) {
		rows = append(rows, obj{{"application_id", a.ApplicationID()}, {"account", a.Name()}, {"created_time", secs(a.CreatedMs())}})
	}
	return obj{{"rows", rows}}, nil
}

func (s *Server) subAccountAssets(c *call) (obj, error) {
	var rows []obj
	for _, a := range s.ex.Family(c.account) {
		rows = append(rows, obj{{"application_id", a.ApplicationID()}, {"account", a.Name()}, {"usdt_balance", dec(s.ex.USDTValue(a))}})
	}
	return obj{{"rows", rows}}, nil
}

func (s *Server) assetDetail(c *call) (obj, error) {
	app, err := c.str("application_id", true)
	if err != nil {
		return nil, err
	}
	a, holdings, xerr := s.ex.AssetDetail(c.account, app)
	if xerr != nil {
		return nil, xerr
	}
	bal := obj{}
	for _, h := range holdings {
		bal = append(bal, kv{h.Token, obj{{"holding", dec(h.Holding)}, {"frozen", dec(h.Frozen)}, {"interest", dec(h.Interest)},
			{"staked", num("0")}, {"unbonding", num("0")}, {"vault", num("0")}}})
	}
	return obj{{"balances", bal}, {"account", a.Name()}, {"application_id", a.ApplicationID()}}, nil
}

func (s *Server) ipRestriction(c *call) (obj, error) {
	target := c.account
	if app := c.params.Get("application_id"); app != "" {
		a, ok := s.ex.AccountByApplicationID(app)
		if !ok || !a.SameFamily(c.account) || a.Internal() {
			return nil, &exchange.Error{Code: venue.CodeResourceNotFound, Message: "application id " + app + " not found in this account family"}
		}
		if !c.account.IsMain() && a != c.account {
			return nil, &exchange.Error{Code: venue.CodeUnauthorized, Message: "a subaccount may only read its own keys"}
		}
		target = a
	}
	list := s.ex.IPRestrictions(target, c.params.Get("api_key"))
	rows, meta := pagedObjs(list, 1, true, func(r exchange.IPRestriction) obj {
		return obj{{"ip_list", strings.Join(r.IPs, ",")}, {"api_key", r.APIKey}, {"update_time", secs(r.UpdatedMs)}, {"restrict", r.Restrict}}
	})
	return obj{{"rows", rows}, {"meta", meta}}, nil
}

func (s *Server) transferHistory(c *call) (obj, error) {
	start, end, page, err := c.listing()
	if err != nil {
		return nil, err
	}
	rows, meta := pagedObjs(s.ex.Transfers(c.account, start, end), page, true, func(t exchange.Transfer) obj {
		return obj{{"id", t.ID}, {"token", t.Token}, {"amount", dec(t.Amount)}, {"status", t.Status},
			{"from_application_id", t.From}, {"to_application_id", t.To}, {"from_user", t.FromUser}, {"to_user", t.ToUser},
			{"created_time", secs(t.CreatedMs)}, {"updated_time", secs(t.CreatedMs)}}
	})
	return obj{{"data", obj{{"rows", rows}, {"meta", meta}}}}, nil
}

func (s *Server) transfer(c *call) (obj, error) {
	tok, err := c.str("token", true)
	if err != nil {
		return nil, err
	}
	amount, err := c.requiredNumber("amount")
	if err != nil {
		return nil, err
	}
	from, err := c.str("from_application_id", true)
	if err != nil {
		return nil, err
	}
	to, err := c.str("to_application_id", true)
	if err != nil {
		return nil, err
	}
	id, xerr := s.ex.TransferAsset(c.account, tok, amount, from, to)
	if xerr != nil {
		return nil, xerr
	}
	return obj{{"id", id}}, nil
}

func nullString(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// withdraw is POST /v1/asset/withdraw (the real venue's; the spec names a
// withdrawal endpoint without its shape): token, address, extra, amount.
func (s *Server) withdraw(c *call) (obj, error) {
	tok, err := c.str("token", true)
	if err != nil {
		return nil, err
	}
	addr, err := c.str("address", true)
	if err != nil {
		return nil, err
	}
	amount, err := c.requiredNumber("amount")
	if err != nil {
		return nil, err
	}
	rec, xerr := s.ex.Withdraw(c.account, tok, addr, c.params.Get("extra"), amount)
	if xerr != nil {
		return nil, xerr
	}
	return obj{{"withdraw_id", rec.ID}}, nil
}
