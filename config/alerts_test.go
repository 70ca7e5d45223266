package config

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

func TestAlertsSection(t *testing.T) {
	path := filepath.Join(t.TempDir(), "c.toml")
	write := func(s string) {
		t.Helper()
		if err := os.WriteFile(path, []byte(s), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	c, _, err := Load(path, false)
	if err != nil || !c.Alerts.Notice || !c.Alerts.Bell || !c.Alerts.Desktop || c.Alerts.HookTimeout() != 10*time.Second {
		t.Fatalf("defaults: %+v %v", c.Alerts, err)
	}
	write("[alerts]\nbell = false\ndesktop_osc = \"9\"\ncommand = [\"notify\", \"--urgent\"]\ncommand_timeout = \"3s\"\n")
	c, _, err = Load(path, true)
	if err != nil || c.Alerts.Bell || !c.Alerts.Notice || c.Alerts.DesktopOSC != "9" || len(c.Alerts.Command) != 2 || c.Alerts.HookTimeout() != 3*time.Second {
		t.Fatalf("loaded: %+v %v", c.Alerts, err)
	}
	for _, bad := range []string{"desktop_osc = \"99\"", "command_timeout = \"soon\"", "cooldown = \"-1s\"", "command = [\"\"]", "sound = true"} {
		write("[alerts]\n" + bad + "\n")
		if _, _, err := Load(path, true); err == nil {
			t.Errorf("%s: accepted", bad)
		}
	}
}
