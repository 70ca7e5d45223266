// Package xdg finds tradedeck's own directories under the XDG base
// directories: $XDG_CONFIG_HOME, $XDG_STATE_HOME and $XDG_DATA_HOME, or
// the specification's defaults under the home directory when unset.
package xdg

import (
	"os"
	"path/filepath"
)

// Config is $XDG_CONFIG_HOME/tradedeck, default ~/.config/tradedeck.
// getenv nil means os.Getenv.
func Config(getenv func(string) string) string { return dir(getenv, "XDG_CONFIG_HOME", ".config") }

// State is $XDG_STATE_HOME/tradedeck, default ~/.local/state/tradedeck.
func State(getenv func(string) string) string {
	return dir(getenv, "XDG_STATE_HOME", ".local", "state")
}

// Data is $XDG_DATA_HOME/tradedeck, default ~/.local/share/tradedeck.
func Data(getenv func(string) string) string {
	return dir(getenv, "XDG_DATA_HOME", ".local", "share")
}

// dir is tradedeck's directory under the base directory env names, or
// under home/def... when env is unset ($HOME, else the account's home).
func dir(getenv func(string) string, env string, def ...string) string {
	if getenv == nil {
		getenv = os.Getenv
	}
	base := getenv(env)
	if base == "" {
		home := getenv("HOME")
		if home == "" {
			home, _ = os.UserHomeDir()
		}
		base = filepath.Join(append([]string{home}, def...)...)
	}
	return filepath.Join(base, "tradedeck")
}
