package ui

import (
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
)

// Hook is one of the root's optional parts beside the trader: alerts,
// :export, replay controls. New builds each from its typed option (no
// registry): they see their own messages, are offered the keys and ':'
// commands the root and the trader did not take, and add bindings to the
// help.
type Hook interface {
	Init(m *Model) tea.Cmd
	// Update is offered the messages no one else routes (results of the
	// hooks' own commands).
	Update(m *Model, msg tea.Msg) tea.Cmd
	// Key is offered a key no dialog, command line, global binding or the
	// trader took, before the focused pane. handled=true stops the routing.
	Key(m *Model, msg tea.KeyPressMsg) (handled bool, cmd tea.Cmd)
	// Command is offered a ':' command the root and the trader do not know.
	Command(m *Model, name string, args []string) (handled bool, cmd tea.Cmd)
	// Help lists the hook's bindings for the footer and the full help.
	Help(m *Model) []key.Binding
}
