package xdg

import "testing"

func TestDirs(t *testing.T) {
	env := func(vars map[string]string) func(string) string {
		return func(k string) string { return vars[k] }
	}
	home := env(map[string]string{"HOME": "/h"})
	set := env(map[string]string{"HOME": "/h", "XDG_CONFIG_HOME": "/c", "XDG_STATE_HOME": "/s", "XDG_DATA_HOME": "/d"})
	for _, c := range []struct {
		name      string
		got, want string
	}{
		{"config by default", Config(home), "/h/.config/tradedeck"},
		{"state by default", State(home), "/h/.local/state/tradedeck"},
		{"data by default", Data(home), "/h/.local/share/tradedeck"},
		{"config set", Config(set), "/c/tradedeck"},
		{"state set", State(set), "/s/tradedeck"},
		{"data set", Data(set), "/d/tradedeck"},
	} {
		if c.got != c.want {
			t.Errorf("%s: %q, want %q", c.name, c.got, c.want)
		}
	}
}
