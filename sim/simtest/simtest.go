// Package simtest starts the simulated venue for a test of another
// package, in the test's process (Start) or as the binary's sim command
// (StartProcess); the test talks to it over its sockets like to any venue.
package simtest

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"tradedeck/sim"
)

// Start starts a simulated venue that closes when the test ends.
func Start(t testing.TB, o sim.Options) *sim.Instance {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	inst, err := sim.Start(ctx, o)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	t.Cleanup(func() { inst.Close(); cancel() })
	return inst
}

// LiveConfig writes dir/config.toml: the settings in top, then the venue
// of a StartProcess banner as the [live] venue; it returns the file's path.
func LiveConfig(t testing.TB, dir, top string, banner map[string]string) string {
	t.Helper()
	doc := top + fmt.Sprintf("[live]\nbase_url = %q\npublic_history_url = %q\nws_market_url = %q\nws_private_url = %q\nstats_url = %q\n",
		banner["base_url"], banner["public_history_url"], banner["ws_market_url"], banner["ws_private_url"], banner["stats_url"])
	path := filepath.Join(dir, "config.toml")
	if err := os.WriteFile(path, []byte(doc), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}
