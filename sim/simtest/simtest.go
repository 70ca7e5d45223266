// Package simtest starts the simulated venue for a test of another
// package, which then talks to it over its sockets like to any venue.
package simtest

import (
	"context"
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
