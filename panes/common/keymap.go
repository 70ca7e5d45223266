package common

import (
	"fmt"
	"sort"

	"charm.land/bubbles/v2/key"
)

// KeyMap is every key binding of the dashboard. The defaults live in the
// root keymap.go; config may rebind any of them by name (see Named).
type KeyMap struct {
	// global
	Help, Quit, NextPane, PrevPane, FocusPane, Search, Command, Zoom, Back key.Binding
	// inside panes
	Up, Down, PageUp, PageDown, Top, Bottom, PrevTab, NextTab, Select key.Binding
	GroupMore, GroupLess, NextInterval, PrevInterval                  key.Binding
	// trading (handled by the trading hook; hidden in read-only mode)
	Buy, Sell, Cancel, CancelAll, PanicCancel, Account key.Binding
	// full-screen views
	Stats key.Binding
	// alerts: one at the book's selected level (ui/alerts.go)
	Alert key.Binding
	// swap statistics page
	NextNetwork, PrevNetwork, NextPeriod, PrevPeriod, Refresh key.Binding
}

// Named maps the config names of the bindings to the bindings themselves.
func (k *KeyMap) Named() map[string]*key.Binding {
	return map[string]*key.Binding{
		"help": &k.Help, "quit": &k.Quit, "next_pane": &k.NextPane, "prev_pane": &k.PrevPane,
		"focus_pane": &k.FocusPane, "search": &k.Search, "command": &k.Command, "zoom": &k.Zoom,
		"back": &k.Back, "up": &k.Up, "down": &k.Down, "page_up": &k.PageUp, "page_down": &k.PageDown,
		"top": &k.Top, "bottom": &k.Bottom, "prev_tab": &k.PrevTab, "next_tab": &k.NextTab,
		"select": &k.Select, "group_more": &k.GroupMore, "group_less": &k.GroupLess,
		"next_interval": &k.NextInterval, "prev_interval": &k.PrevInterval,
		"buy": &k.Buy, "sell": &k.Sell, "cancel": &k.Cancel, "cancel_all": &k.CancelAll,
		"panic_cancel": &k.PanicCancel, "account": &k.Account, "stats": &k.Stats, "alert": &k.Alert,
		"next_network": &k.NextNetwork, "prev_network": &k.PrevNetwork,
		"next_period": &k.NextPeriod, "prev_period": &k.PrevPeriod, "refresh": &k.Refresh,
	}
}

// Rebind applies user overrides (name -> keys). The help text keeps the
// description and shows the first new key. Unknown names are an error so a
// typo in the config does not silently keep the old key.
func (k *KeyMap) Rebind(over map[string][]string) error {
	named := k.Named()
	names := make([]string, 0, len(over))
	for n := range over {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		b, ok := named[n]
		if !ok {
			return fmt.Errorf("keys: unknown binding %q", n)
		}
		keys := over[n]
		if len(keys) == 0 {
			b.Unbind()
			continue
		}
		desc := b.Help().Desc
		b.SetKeys(keys...)
		b.SetHelp(keys[0], desc)
	}
	return nil
}

// SetTradingEnabled shows or hides the trading bindings (read-only mode).
func (k *KeyMap) SetTradingEnabled(on bool) {
	for _, b := range []*key.Binding{&k.Buy, &k.Sell, &k.Cancel, &k.CancelAll, &k.PanicCancel} {
		b.SetEnabled(on)
	}
}
