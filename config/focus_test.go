package config_test

import (
	"testing"

	"tradedeck/config"
	"tradedeck/panes/panetest"
	"tradedeck/ui"
)

// Every focus the config accepts is a pane the dashboard focuses.
func TestFocusesAreTheDashboardsPanes(t *testing.T) {
	th := panetest.Common(nil, nil, false).Theme
	for _, f := range config.Focuses {
		m := ui.New(ui.Options{Venue: "SIM", Symbol: "PERP_BTC_USDT", Theme: th, Keys: panetest.Keys(), Now: panetest.Clock, Focus: f})
		if got := m.Focused().String(); got != f {
			t.Errorf("focus %q: the dashboard focused %q", f, got)
		}
	}
}
