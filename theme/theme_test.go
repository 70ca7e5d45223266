package theme

import (
	"strings"
	"testing"
)

func env(kv ...string) func(string) string {
	m := map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	return func(k string) string { return m[k] }
}

func TestDetect(t *testing.T) {
	for _, c := range []struct {
		name      string
		env       func(string) string
		theme     string
		wantName  string
		wantASCII bool
	}{
		{"defaults", env("LANG", "en_US.UTF-8"), "", "dark", false},
		{"no locale at all", env(), "light", "light", false},
		{"NO_COLOR wins", env("NO_COLOR", "1", "LANG", "en_US.UTF-8"), "contrast", "mono", false},
		{"C locale", env("LANG", "C"), "dark", "dark", true},
		{"latin1", env("LC_ALL", "de_DE.ISO-8859-1"), "dark", "dark", true},
		{"LC_ALL over LANG", env("LC_ALL", "en_US.utf8", "LANG", "C"), "dark", "dark", false},
		{"linux console", env("TERM", "linux", "LANG", "en_US.UTF-8"), "dark", "dark", true},
	} {
		th, err := Detect(c.theme, false, c.env)
		if err != nil {
			t.Fatal(c.name, err)
		}
		if th.Name != c.wantName || th.Glyphs.ASCII != c.wantASCII {
			t.Errorf("%s: got %s ascii=%v", c.name, th.Name, th.Glyphs.ASCII)
		}
	}
	if th, _ := Detect("dark", true, env("LANG", "en_US.UTF-8")); !th.Glyphs.ASCII {
		t.Error("--ascii ignored")
	}
	if _, err := Detect("neon", false, env()); err == nil || !strings.Contains(err.Error(), "dark, light, mono") {
		t.Errorf("unknown theme: %v", err)
	}
}

func TestMonoHasNoColour(t *testing.T) {
	th, err := New("mono", false)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{th.Text, th.Buy, th.Sell, th.BuyBar, th.Live, th.Flash, th.StatusBar} {
		if strings.Contains(s, "38;") || strings.Contains(s, "48;") {
			t.Fatalf("mono style carries a colour: %q", s)
		}
	}
	if th.Buy == th.Sell {
		t.Fatal("buy and sell must differ without colour")
	}
}

func TestThemesDistinguishSides(t *testing.T) {
	for _, n := range Names() {
		th, err := New(n, false)
		if err != nil {
			t.Fatal(err)
		}
		if th.Buy == th.Sell || th.BuyBar == th.SellBar || th.Live == "" {
			t.Errorf("%s: sides not distinguished", n)
		}
	}
}
