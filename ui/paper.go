package ui

import (
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"tradedeck/panes/common"
	"tradedeck/panes/confirm"
)

// PaperControl is the paper venue behind the dashboard (Options.Paper:
// the dashboard trades on a paper venue, tradedeck --paper,
// docs/paper.md).
type PaperControl interface {
	// Reset starts the paper account over: orders, fills and positions
	// gone, the initial balances back.
	Reset() error
}

// paperResetMsg reports a finished :paper reset.
type paperResetMsg struct{ err error }

func newPaperHook(m *Model) Hook { return &paperHook{pc: m.opts.Paper} }

// paperHook gives a paper dashboard `:paper reset`, behind a confirmation.
type paperHook struct{ pc PaperControl }

func (h *paperHook) Init(*Model) tea.Cmd                         { return nil }
func (h *paperHook) Key(*Model, tea.KeyPressMsg) (bool, tea.Cmd) { return false, nil }
func (h *paperHook) Help(*Model) []key.Binding                   { return nil }

func (h *paperHook) Update(_ *Model, msg tea.Msg) tea.Cmd {
	r, ok := msg.(paperResetMsg)
	switch {
	case !ok:
		return nil
	case r.err != nil:
		return common.Notify(common.NoticeError, "paper reset failed: "+r.err.Error())
	}
	return common.Notify(common.NoticeInfo, "paper account reset: initial balances, no orders, fills or positions")
}

func (h *paperHook) Command(m *Model, name string, args []string) (bool, tea.Cmd) {
	switch {
	case name != "paper":
		return false, nil
	case h.pc == nil:
		return true, common.Notify(common.NoticeError, ":paper is for a paper venue (tradedeck --paper)")
	case len(args) != 1 || args[0] != "reset":
		return true, common.Notify(common.NoticeError, "usage: :paper reset")
	case m.opts.ReadOnly != "":
		return true, common.Notify(common.NoticeError, "read-only: the paper account cannot be reset here")
	}
	pc := h.pc
	reset := func() tea.Msg { return paperResetMsg{err: pc.Reset()} }
	return true, common.Open(confirm.New(m.c, confirm.Options{
		Title:     "Reset the paper account",
		Lines:     []string{"cancel every open order", "forget every order, fill, position and transfer", "restore the initial balances"},
		Strong:    true,
		Warning:   "the paper account's whole history goes",
		Action:    "reset",
		OnConfirm: reset,
	}))
}
