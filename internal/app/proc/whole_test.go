package proc_test

import (
	"context"
	"io"
	"testing"

	"tradedeck/internal/cli"
)

// startUp runs what the start of a tradedeck process runs once beyond the
// packages' init functions: the command line built and parsed (help
// rendered), so that the trim test (mapped_linux_test.go) measures a
// binary the size of tradedeck's after its start, as it did when the test
// lived in the root package.
func startUp(t *testing.T) {
	env := cli.Env{Stdout: io.Discard, Stderr: io.Discard}
	if code := cli.Main(context.Background(), env, []string{"--help"}, cli.Dashboard, cli.Sim, cli.Serve, cli.Watch, cli.Alerts,
		cli.Stats, cli.Export, cli.Record, cli.Replay); code != 0 {
		t.Fatalf("tradedeck --help: exit %d", code)
	}
}
