package common

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"charm.land/bubbles/v2/key"
)

// KeyMap is every key binding of the dashboard. The defaults live in the
// root keymap.go; config may rebind any of them by name (see Named).
type KeyMap struct {
	// global
	Help, Quit, NextPane, PrevPane, FocusPane, Search, Command, Zoom, Back key.Binding
	// inside panes
	Up, Down, PageUp, PageDown, Top, Bottom, PrevTab, NextTab, Select key.Binding
	GroupMore, GroupLess, NextInterval, PrevInterval, ChartView       key.Binding
	// trading (handled by the trading hook; hidden in read-only mode)
	Buy, Sell, Cancel, CancelAll, PanicCancel, Account key.Binding
	// ClosePosition closes the position selected in the account pane (ui/moves.go)
	ClosePosition key.Binding
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
		"next_interval": &k.NextInterval, "prev_interval": &k.PrevInterval, "chart_view": &k.ChartView,
		"buy": &k.Buy, "sell": &k.Sell, "cancel": &k.Cancel, "cancel_all": &k.CancelAll,
		"panic_cancel": &k.PanicCancel, "close_position": &k.ClosePosition, "account": &k.Account, "stats": &k.Stats, "alert": &k.Alert,
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
	return k.Clash()
}

// rootBindings are the bindings the root model matches before any pane
// sees a key: each of their keys must mean one thing.
var rootBindings = []string{"help", "quit", "next_pane", "prev_pane", "focus_pane", "search", "command",
	"zoom", "back", "buy", "sell", "cancel", "cancel_all", "panic_cancel", "close_position", "account", "stats"}

// Clash reports a key that would do something else than its label says:
// one key in two of the root's bindings, or a pane's binding that a root
// binding takes first (ctrl+c always quits). Panes' bindings may share
// keys with each other: they act in different panes.
func (k *KeyMap) Clash() error {
	named := k.Named()
	owner := map[string]string{}
	for _, n := range rootBindings {
		for _, key := range named[n].Keys() {
			if o, ok := owner[key]; ok && o != n {
				return fmt.Errorf("keys: %q is bound to both %s and %s", key, o, n)
			}
			owner[key] = n
		}
	}
	if o, ok := owner["ctrl+c"]; ok && o != "quit" {
		return fmt.Errorf("keys: \"ctrl+c\" always quits; it cannot be %s", o)
	}
	owner["ctrl+c"] = "quit"
	names := make([]string, 0, len(named))
	for n := range named {
		if !slices.Contains(rootBindings, n) {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	for _, n := range names {
		for _, key := range named[n].Keys() {
			if o, ok := owner[key]; ok {
				return fmt.Errorf("keys: %q is bound to both %s and %s (%s takes it first)", key, o, n, o)
			}
		}
	}
	return nil
}

// SetTradingEnabled shows or hides the trading bindings (read-only mode).
func (k *KeyMap) SetTradingEnabled(on bool) {
	for _, b := range []*key.Binding{&k.Buy, &k.Sell, &k.Cancel, &k.CancelAll, &k.PanicCancel, &k.ClosePosition} {
		b.SetEnabled(on)
	}
}

// Unshadowed is b without the keys that the bindings by take first (a
// component inside another, such as a tab inside the account pane, never
// sees its container's keys), its help naming the keys left; disabled
// when none are left. The help never advertises a key that does
// something else.
func Unshadowed(b key.Binding, by ...key.Binding) key.Binding {
	taken := map[string]bool{}
	for _, o := range by {
		for _, k := range o.Keys() {
			taken[k] = true
		}
	}
	var left []string
	for _, k := range b.Keys() {
		if !taken[k] {
			left = append(left, k)
		}
	}
	if len(left) == len(b.Keys()) {
		return b
	}
	out := key.NewBinding(key.WithKeys(left...))
	if len(left) == 0 {
		out.SetEnabled(false)
		return out
	}
	names := make([]string, len(left))
	for i, k := range left {
		names[i] = KeyName(k)
	}
	out.SetHelp(strings.Join(names, "/"), b.Help().Desc)
	return out
}

// KeyName is how help shows a key: arrows as arrows, the rest as typed.
func KeyName(k string) string {
	switch k {
	case "right":
		return "→"
	case "left":
		return "←"
	case "up":
		return "↑"
	case "down":
		return "↓"
	}
	return k
}

// DefaultKeyMap is every key binding of the dashboard with its default
// keys, in one place (the dashboard and every test use it). Users rebind
// them by name in the config's [keys] table (see Named), e.g.
// quit = ["q", "ctrl+q"].
func DefaultKeyMap() *KeyMap {
	b := func(keys []string, help, desc string) key.Binding {
		return key.NewBinding(key.WithKeys(keys...), key.WithHelp(help, desc))
	}
	return &KeyMap{
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
		ChartView:    b([]string{"v"}, "v", "candles/depth/heat map"),

		Buy:           b([]string{"b"}, "b", "buy"),
		Sell:          b([]string{"s"}, "s", "sell"),
		Cancel:        b([]string{"c"}, "c", "cancel order"),
		CancelAll:     b([]string{"C"}, "C", "cancel symbol"),
		PanicCancel:   b([]string{"X"}, "X", "cancel ALL"),
		ClosePosition: b([]string{"x"}, "x", "close position"),
		Account:       b([]string{"A"}, "A", "account"),
		Stats:         b([]string{"S"}, "S", "swap stats"),
		Alert:         b([]string{"a"}, "a", "alert at level"),

		NextNetwork: b([]string{"right", "n"}, "→/n", "next network"),
		PrevNetwork: b([]string{"left", "N"}, "←/N", "prev network"),
		NextPeriod:  b([]string{"]", "p"}, "]/p", "longer period"),
		PrevPeriod:  b([]string{"[", "P"}, "[/P", "shorter period"),
		Refresh:     b([]string{"r"}, "r", "refresh"),
	}
}
