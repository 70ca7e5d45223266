package stats

import (
	"charm.land/bubbles/v2/key"

	"tradedeck/panes/common"
)

// KeyMap is the dashboard's key map; the pane uses its swap statistics
// bindings (NextNetwork, PrevNetwork, NextPeriod, PrevPeriod, Refresh).
type KeyMap = common.KeyMap

func shortHelp(k *KeyMap) []key.Binding {
	return []key.Binding{k.NextNetwork, k.NextPeriod, k.Refresh}
}

func fullHelp(k *KeyMap) [][]key.Binding {
	return [][]key.Binding{{k.NextNetwork, k.PrevNetwork}, {k.NextPeriod, k.PrevPeriod}, {k.Refresh}}
}
