package stats

import "charm.land/bubbles/v2/key"

// KeyMap holds the pane's bindings. The dashboard may rebind any of them
// (its keymap owns the defaults it shows in help).
type KeyMap struct {
	NextNetwork, PrevNetwork key.Binding
	NextPeriod, PrevPeriod   key.Binding
	Refresh                  key.Binding
}

// DefaultKeyMap: right/n and left/N switch the network, ]/p and [/P the
// period, r refreshes now.
func DefaultKeyMap() KeyMap {
	return KeyMap{
		NextNetwork: key.NewBinding(key.WithKeys("right", "n"), key.WithHelp("→/n", "next network")),
		PrevNetwork: key.NewBinding(key.WithKeys("left", "N"), key.WithHelp("←/N", "prev network")),
		NextPeriod:  key.NewBinding(key.WithKeys("]", "p"), key.WithHelp("]/p", "longer period")),
		PrevPeriod:  key.NewBinding(key.WithKeys("[", "P"), key.WithHelp("[/P", "shorter period")),
		Refresh:     key.NewBinding(key.WithKeys("r"), key.WithHelp("r", "refresh")),
	}
}

// ShortHelp lists the bindings for the one-line help.
func (k KeyMap) ShortHelp() []key.Binding {
	return []key.Binding{k.NextNetwork, k.NextPeriod, k.Refresh}
}

// FullHelp lists every binding, in columns.
func (k KeyMap) FullHelp() [][]key.Binding {
	return [][]key.Binding{{k.NextNetwork, k.PrevNetwork}, {k.NextPeriod, k.PrevPeriod}, {k.Refresh}}
}
