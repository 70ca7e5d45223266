package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestLoadMissingFileGivesDefaults(t *testing.T) {
	c, w, err := Load(filepath.Join(t.TempDir(), "none.toml"), false)
	if err != nil || len(w) != 0 {
		t.Fatal(err, w)
	}
	if c.Theme != "dark" || c.Interval != "1m" || len(c.Watchlist) == 0 {
		t.Fatalf("defaults: %+v", c)
	}
	if _, _, err := Load(filepath.Join(t.TempDir(), "none.toml"), true); err == nil {
		t.Fatal("a named config file that does not exist must be an error")
	}
}

func TestLoadFile(t *testing.T) {
	p := filepath.Join(t.TempDir(), "config.toml")
	src := `theme = "light"
watchlist = ["SPOT_BTC_USDT", "PERP_ETH_USDT"]
interval = "5m"
[keys]
quit = ["ctrl+q"]
[layout]
focus = "chart"
zoom = true
[live]
base_url = "https://api.example.test/"
api_key = "k1"
api_secret = "s3cret"
application_id = "app"
`
	if err := os.WriteFile(p, []byte(src), 0o600); err != nil {
		t.Fatal(err)
	}
	c, warn, err := Load(p, true)
	if err != nil || len(warn) != 0 {
		t.Fatal(err, warn)
	}
	if c.Theme != "light" || c.Interval != "5m" || c.Watchlist[1] != "PERP_ETH_USDT" || c.Keys["quit"][0] != "ctrl+q" || c.Layout.Focus != "chart" || !c.Layout.Zoom {
		t.Fatalf("decoded %+v", c)
	}
	e := c.Endpoints()
	if e.BaseURL != "https://api.example.test" || e.WSMarketURL != DefaultLive.WSMarketURL {
		t.Fatalf("endpoints %+v", e)
	}
	env := map[string]string{EnvAPISecret: "fromenv"}
	cr := c.Credentials(func(k string) string { return env[k] })
	if cr.APIKey != "k1" || cr.APISecret != "fromenv" || cr.ApplicationID != "app" {
		t.Fatalf("credentials %v", cr)
	}
	if strings.Contains(cr.String(), "fromenv") {
		t.Fatal("credentials print their secret")
	}
}

func TestUnknownKeyIsAnError(t *testing.T) {
	p := filepath.Join(t.TempDir(), "config.toml")
	if err := os.WriteFile(p, []byte("theme = \"dark\"\nthem = \"light\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, _, err := Load(p, true); err == nil || !strings.Contains(err.Error(), "them") {
		t.Fatalf("err = %v", err)
	}
	if err := os.WriteFile(p, []byte("theme = \n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, _, err := Load(p, true); err == nil {
		t.Fatal("malformed TOML must be an error")
	}
}

func TestPath(t *testing.T) {
	env := map[string]string{"XDG_CONFIG_HOME": "/x", "HOME": "/h"}
	if p := Path(func(k string) string { return env[k] }); p != "/x/tradedeck/config.toml" {
		t.Fatal(p)
	}
	delete(env, "XDG_CONFIG_HOME")
	if p := Path(func(k string) string { return env[k] }); p != "/h/.config/tradedeck/config.toml" {
		t.Fatal(p)
	}
}

func TestConfirmNotional(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.toml")
	if err := os.WriteFile(good, []byte("confirm_notional = \"2500.5\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	c, _, err := Load(good, true)
	if err != nil || c.ConfirmNotional != "2500.5" {
		t.Fatalf("confirm_notional: %q %v", c.ConfirmNotional, err)
	}
	bad := filepath.Join(dir, "bad.toml")
	if err := os.WriteFile(bad, []byte("confirm_notional = \"lots\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, _, err := Load(bad, true); err == nil || !strings.Contains(err.Error(), "confirm_notional") {
		t.Fatalf("a non-decimal threshold must be refused by name: %v", err)
	}
}

func TestLoadFlag(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	if c, _, err := LoadFlag(""); err != nil || c.Theme != Defaults().Theme {
		t.Fatalf("no flag, no file: defaults expected: %+v %v", c, err)
	}
	if _, _, err := LoadFlag(filepath.Join(t.TempDir(), "missing.toml")); err == nil {
		t.Fatal("a config file named by the flag must exist")
	}
}
