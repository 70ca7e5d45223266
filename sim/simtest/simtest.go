// Package simtest starts the simulated venue for a test: the real HTTP and
// Websocket server on a loopback port, talked to over sockets like any
// venue, and closed when the test ends.
package simtest

import (
	"context"
	"testing"

	"tradedeck/sim"
)

// Start runs the venue with opts for the life of t (a failure to start
// fails t).
func Start(t testing.TB, opts sim.Options) *sim.Instance {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	inst, err := sim.Start(ctx, opts)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = inst.Close()
		cancel()
	})
	return inst
}
