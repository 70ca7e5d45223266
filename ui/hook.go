package ui

import (
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
)

// Hook extends the root model without touching it: trading (order entry,
// cancels, the account page) plugs in through one. A hook sees every
// non-key message, is offered the keys and ':' commands the root does not
// handle itself, and adds bindings to the help.
type Hook interface {
	Init(m *Model) tea.Cmd
	// Update sees every message the root does not consume (feed updates
	// as common.FeedMsg, command results, common.UsePriceMsg, ticks...).
	Update(m *Model, msg tea.Msg) tea.Cmd
	// Key is offered a key no dialog, command line or global binding took,
	// before the focused pane. handled=true stops the routing.
	Key(m *Model, msg tea.KeyPressMsg) (handled bool, cmd tea.Cmd)
	// Command is offered a ':' command the root does not know.
	Command(m *Model, name string, args []string) (handled bool, cmd tea.Cmd)
	// Help lists the hook's bindings for the footer and the full help.
	Help(m *Model) []key.Binding
}

var hookFactories []func(*Model) Hook

// RegisterHook adds a hook factory; call it from an init() in package ui
// (ui/trading.go). Each new Model builds its own hook instance.
func RegisterHook(f func(*Model) Hook) { hookFactories = append(hookFactories, f) }
