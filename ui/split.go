package ui

import (
	"slices"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"tradedeck/panes/common"
	"tradedeck/panes/splitbook"
)

// splitHook gives the split view (:split SYM ...): two to four books side
// by side over the grid, until esc. Its books are subscribed while it is
// open.
type splitHook struct{}

// bookSetter is a Feed that can stream more books (hub.Session).
type bookSetter interface{ SetBooks(symbols []string) }

func (splitHook) Init(*Model) tea.Cmd                         { return nil }
func (splitHook) Update(*Model, tea.Msg) tea.Cmd              { return nil }
func (splitHook) Key(*Model, tea.KeyPressMsg) (bool, tea.Cmd) { return false, nil }
func (splitHook) Help(*Model) []key.Binding                   { return nil }
func (splitHook) Command(m *Model, name string, args []string) (bool, tea.Cmd) {
	if name != "split" {
		return false, nil
	}
	var known func(string) bool
	if syms := m.allSymbols(); len(syms) > 0 {
		known = func(s string) bool { return slices.Contains(syms, s) }
	}
	syms, err := splitbook.Parse(args, known)
	if err != nil {
		return true, common.Notify(common.NoticeError, err.Error())
	}
	setBooks := func([]string) {}
	if bs, ok := m.opts.Feed.(bookSetter); ok {
		setBooks = bs.SetBooks
	}
	setBooks(syms)
	d := &splitDialog{view: splitbook.New(m.Common(), syms, m.tickOf), done: func() { setBooks(nil) }}
	return true, tea.Batch(common.Open(d), common.Notify(common.NoticeInfo, "split "+strings.Join(syms, " | ")+": tab switches book, esc closes"))
}

// splitDialog shows the split view over the whole screen.
type splitDialog struct {
	view *splitbook.Model
	done func()
}

func (d *splitDialog) Update(msg tea.Msg) (common.Dialog, tea.Cmd) {
	if k, ok := msg.(tea.KeyPressMsg); ok && key.Matches(k, d.view.Keys.Back) {
		d.done()
		return d, common.Close
	}
	_, cmd := d.view.Update(msg)
	return d, cmd
}

func (d *splitDialog) View() string { return d.view.View() }

func (d *splitDialog) SetSize(w, h int) { d.view.SetSize(w, h) }
