package account

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	tea "charm.land/bubbletea/v2"
	"github.com/shopspring/decimal"

	"tradedeck/panes/common"
	"tradedeck/panes/confirm"
	"tradedeck/venue"
)

// guard refuses account-changing actions in read-only mode.
func (m *Model) guard(action func() tea.Cmd) tea.Cmd {
	if m.opts.ReadOnly {
		return common.Notify(common.NoticeWarn, "account changes are disabled: "+m.opts.ReadOnlyWhy)
	}
	return action()
}

// confirmThen asks for confirmation and then runs call as an ActionMsg.
func (m *Model) confirmThen(title string, lines []string, strong bool, warning string, what string, reload []Tab, call func(context.Context) error) tea.Cmd {
	run := func() tea.Msg {
		ctx, cancel := m.ctx()
		defer cancel()
		return ActionMsg{What: what, Err: call(ctx), Reload: reload}
	}
	return common.Open(confirm.New(m.Common, confirm.Options{Title: title, Lines: lines, Strong: strong,
		Warning: warning, Action: what, OnConfirm: run, Grace: m.opts.Grace}))
}

func (m *Model) currentMode() venue.AccountMode {
	if m.info == nil {
		return ""
	}
	return m.info.Application.AccountMode
}

func (m *Model) changeMode() tea.Cmd {
	if m.info == nil {
		m.status = "account info not loaded yet"
		return nil
	}
	modes := []string{string(venue.PureSpot), string(venue.Margin), string(venue.Futures)}
	cur := string(m.currentMode())
	return common.Open(NewPrompt(m.Common, "Account mode", []Field{{Label: "mode", Choices: modes, Value: cur}},
		func(v []string) (tea.Cmd, string) {
			mode := venue.AccountMode(v[0])
			if string(mode) == cur {
				return nil, "the account is already in " + cur + " mode"
			}
			api := m.opts.API
			return m.confirmThen("Change account mode", []string{"account mode " + cur + " → " + string(mode)}, true,
				"changes how every position and order is margined", "set mode "+string(mode), []Tab{TabInfo},
				func(ctx context.Context) error { return api.SetAccountMode(ctx, mode) }), ""
		}))
}

// LeverageChoices are the leverages the spec allows in a mode.
func LeverageChoices(mode venue.AccountMode) []int { return venue.LeverageChoices[mode] }

func (m *Model) changeLeverage() tea.Cmd {
	mode := m.currentMode()
	choices := LeverageChoices(mode)
	if len(choices) == 0 {
		m.status = "no leverage in " + string(mode) + " mode (margin: 3, 4, 5; futures: 1-20)"
		return common.Notify(common.NoticeWarn, m.status)
	}
	cur := m.info.Application.Leverage
	if mode == venue.Futures {
		cur = m.info.Application.FuturesLeverage
	}
	labels := make([]string, len(choices))
	for i, c := range choices {
		labels[i] = fmt.Sprint(c)
	}
	return common.Open(NewPrompt(m.Common, "Leverage ("+string(mode)+")", []Field{{Label: "leverage", Choices: labels, Value: cur.String()}},
		func(v []string) (tea.Cmd, string) {
			lev, err := strconv.Atoi(v[0])
			if err != nil {
				return nil, "leverage must be a whole number"
			}
			api := m.opts.API
			return m.confirmThen("Change leverage", []string{fmt.Sprintf("%s leverage %s → %d", mode, cur, lev)}, false, "",
				fmt.Sprintf("set leverage %d", lev), []Tab{TabInfo},
				func(ctx context.Context) error {
					return api.SetLeverage(ctx, venue.LeverageRequest{Leverage: lev, Mode: mode})
				}), ""
		}))
}

func (m *Model) repay() tea.Cmd {
	token, _ := m.selectedKey()
	if m.tab != TabInterest && m.tab != TabInterestHistory {
		token = ""
	}
	return common.Open(NewPrompt(m.Common, "Repay interest", []Field{{Label: "token", Value: token, Hint: "e.g. USDT"}, {Label: "amount", Hint: "amount to repay"}},
		func(v []string) (tea.Cmd, string) {
			tok := strings.ToUpper(v[0])
			amt, err := decimal.NewFromString(v[1])
			switch {
			case tok == "":
				return nil, "token is required"
			case err != nil || !amt.IsPositive():
				return nil, "amount must be a positive number"
			}
			api := m.opts.API
			return m.confirmThen("Repay interest", []string{"repay " + amt.String() + " " + tok}, false, "",
				"repay "+amt.String()+" "+tok, []Tab{TabInterestHistory},
				func(ctx context.Context) error { return api.RepayInterest(ctx, tok, amt) }), ""
		}))
}

// account is one a transfer can name: its application id and a label
// people know it by (its account name; the id is shown alongside only
// where two accounts share a name).
type account struct{ id, label string }

// accounts are the accounts a transfer can name: this account first, then
// its subaccounts.
func (m *Model) accounts() []account {
	var out []account
	if m.info != nil {
		a := m.info.Application
		out = append(out, account{a.ApplicationID, nonEmpty(a.Account, a.Alias)})
	}
	for _, s := range m.subs {
		if s.ApplicationID != "" && (m.info == nil || s.ApplicationID != m.info.Application.ApplicationID) {
			out = append(out, account{s.ApplicationID, s.Account})
		}
	}
	seen := map[string]int{}
	for _, a := range out {
		seen[a.label]++
	}
	for i, a := range out {
		if a.label == "" || seen[a.label] > 1 {
			out[i].label = strings.TrimSpace(a.label + " " + shortID(a.id))
		}
	}
	return out
}

// shortID is the start of an application id, enough to tell two apart.
func shortID(id string) string {
	if len(id) > 8 {
		return id[:8] + "…"
	}
	return id
}

func (m *Model) transfer() tea.Cmd {
	accts := m.accounts()
	if len(accts) < 2 {
		m.status = "transfers need the main account and a subaccount (none known yet)"
		return common.Notify(common.NoticeWarn, m.status)
	}
	labels := make([]string, len(accts))
	byLabel := make(map[string]account, len(accts))
	for i, a := range accts {
		labels[i] = a.label
		byLabel[a.label] = a
	}
	return common.Open(NewPrompt(m.Common, "Transfer between accounts", []Field{
		{Label: "token", Value: "USDT"}, {Label: "amount", Hint: "amount"},
		{Label: "from", Choices: labels, Value: labels[0]}, {Label: "to", Choices: labels, Value: labels[1]},
	}, func(v []string) (tea.Cmd, string) {
		from, to := byLabel[v[2]], byLabel[v[3]]
		amt, err := decimal.NewFromString(v[1])
		req := venue.TransferRequest{Token: strings.ToUpper(v[0]), Amount: amt, FromApplicationID: from.id, ToApplicationID: to.id}
		if err != nil {
			return nil, "amount must be a number"
		}
		if err := req.Validate(); err != nil {
			var pe *venue.ParamError
			if errors.As(err, &pe) {
				return nil, pe.Param + ": " + pe.Reason
			}
			return nil, err.Error()
		}
		api := m.opts.API
		lines := []string{fmt.Sprintf("move %s %s", req.Amount, req.Token),
			"from " + from.label + " (" + from.id + ")", "to   " + to.label + " (" + to.id + ")"}
		return m.confirmThen("Transfer", lines, false, "", fmt.Sprintf("transfer %s %s", req.Amount, req.Token), []Tab{TabTransfers, TabSubAssets},
			func(ctx context.Context) error { _, err := api.Transfer(ctx, req); return err }), ""
	}))
}
