package main

import (
	"charm.land/bubbles/v2/key"

	"tradedeck/panes/common"
)

// defaultKeyMap is every key binding of the dashboard, in one place.
// Users rebind them by name in the config's [keys] table (see
// common.KeyMap.Named for the names), e.g. quit = ["q", "ctrl+q"].
func defaultKeyMap() *common.KeyMap {
	b := func(keys []string, help, desc string) key.Binding {
		return key.NewBinding(key.WithKeys(keys...), key.WithHelp(help, desc))
	}
	return &common.KeyMap{
		Help:      b([]string{"?"}, "?", "help"),
		Quit:      b([]string{"q", "ctrl+c"}, "q", "quit"),
		NextPane:  b([]string{"tab"}, "tab", "next pane"),
		PrevPane:  b([]string{"shift+tab"}, "shift+tab", "prev pane"),
		FocusPane: b([]string{"1", "2", "3", "4", "5"}, "1-5", "focus pane"),
		Search:    b([]string{"/"}, "/", "symbol"),
		Command:   b([]string{":"}, ":", "command"),
		Zoom:      b([]string{"z"}, "z", "zoom"),
		Back:      b([]string{"esc"}, "esc", "back"),

		Up:       b([]string{"up", "k"}, "↑/k", "up"),
		Down:     b([]string{"down", "j"}, "↓/j", "down"),
		PageUp:   b([]string{"pgup", "ctrl+u"}, "pgup", "page up"),
		PageDown: b([]string{"pgdown", "ctrl+d"}, "pgdn", "page down"),
		Top:      b([]string{"home", "g"}, "g", "top"),
		Bottom:   b([]string{"end", "G"}, "G", "bottom"),
		PrevTab:  b([]string{"[", "left", "h"}, "[", "prev tab"),
		NextTab:  b([]string{"]", "right", "l"}, "]", "next tab"),
		Select:   b([]string{"enter"}, "enter", "select"),

		GroupMore:    b([]string{"+", "="}, "+", "group more"),
		GroupLess:    b([]string{"-"}, "-", "group less"),
		NextInterval: b([]string{">", "."}, ">", "longer candles"),
		PrevInterval: b([]string{"<", ","}, "<", "shorter candles"),

		Buy:         b([]string{"b"}, "b", "buy"),
		Sell:        b([]string{"s"}, "s", "sell"),
		Cancel:      b([]string{"c"}, "c", "cancel order"),
		CancelAll:   b([]string{"C"}, "C", "cancel symbol"),
		PanicCancel: b([]string{"X"}, "X", "cancel ALL"),
		Account:     b([]string{"A"}, "A", "account"),
		Stats:       b([]string{"S"}, "S", "swap stats"),
		Alert:       b([]string{"a"}, "a", "alert at level"),

		NextNetwork: b([]string{"right", "n"}, "→/n", "next network"),
		PrevNetwork: b([]string{"left", "N"}, "←/N", "prev network"),
		NextPeriod:  b([]string{"]", "p"}, "]/p", "longer period"),
		PrevPeriod:  b([]string{"[", "P"}, "[/P", "shorter period"),
		Refresh:     b([]string{"r"}, "r", "refresh"),
	}
}
