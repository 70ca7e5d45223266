package config

import (
	"fmt"
	"time"
)

// Alerts is the [alerts] table: how alerts reach the trader (see
// docs/alerts.md). Every channel is on by default except the hook, which
// needs a command.
type Alerts struct {
	Notice  bool `toml:"notice"`  // a notice on screen
	Bell    bool `toml:"bell"`    // the terminal bell
	Desktop bool `toml:"desktop"` // desktop notification (OSC 9 / OSC 777)
	// DesktopOSC picks the sequence: "auto" (from TERM_PROGRAM/TERM),
	// "9", "777" or "both".
	DesktopOSC string `toml:"desktop_osc"`
	// Command is the hook, program and arguments, run without a shell
	// with TRADEDECK_ALERT_* in its environment.
	Command        []string `toml:"command"`
	CommandTimeout string   `toml:"command_timeout"` // default 10s
	Cooldown       string   `toml:"cooldown"`        // default cooldown of `every` alerts, 1m
}

// DefaultAlerts has every channel but the hook on.
func DefaultAlerts() Alerts {
	return Alerts{Notice: true, Bell: true, Desktop: true, DesktopOSC: "auto", CommandTimeout: "10s", Cooldown: "1m"}
}

// HookTimeout is command_timeout as a duration.
func (a Alerts) HookTimeout() time.Duration {
	d, _ := time.ParseDuration(a.CommandTimeout)
	return d
}

// CooldownDuration is cooldown as a duration.
func (a Alerts) CooldownDuration() time.Duration {
	d, _ := time.ParseDuration(a.Cooldown)
	return d
}

func (a Alerts) validate() error {
	switch a.DesktopOSC {
	case "auto", "9", "777", "both":
	default:
		return fmt.Errorf("alerts.desktop_osc %q is not one of auto, 9, 777, both", a.DesktopOSC)
	}
	for _, f := range []struct{ name, v string }{{"command_timeout", a.CommandTimeout}, {"cooldown", a.Cooldown}} {
		if d, err := time.ParseDuration(f.v); err != nil || d < 0 {
			return fmt.Errorf("alerts.%s %q is not a duration (10s, 1m)", f.name, f.v)
		}
	}
	if d := a.HookTimeout(); d <= 0 || d > time.Hour {
		return fmt.Errorf("alerts.command_timeout %q must be between 1ms and 1h", a.CommandTimeout)
	}
	if len(a.Command) > 0 && a.Command[0] == "" {
		return fmt.Errorf("alerts.command: the program name is empty")
	}
	return nil
}
