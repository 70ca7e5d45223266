// Package proc tunes the tradedeck process for the kind of program it runs
// (a dashboard, an SSH server, a headless host): its soft memory limit
// (memlimit.go), the resident pages of its own binary (mapped_linux.go),
// the diagnostic profiles of a -tags profile build (diag_*.go), and the
// signals that end it.
package proc

import (
	"context"
	"os"
	"os/signal"
	"syscall"
)

// Interruptible is the context a command runs in: ctrl-c or SIGTERM ends
// it, so the command closes what it opened and keeps what it holds.
func Interruptible(ctx context.Context) (context.Context, context.CancelFunc) {
	return signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
}

// LimitMemory sets the dashboard's soft memory limit and has it follow
// the live heap while ctx lasts (memlimit.go).
func LimitMemory(ctx context.Context) { limitMemory(ctx) }

// TrimAfterStart drops the binary's resident pages after start-up, until
// ctx ends (mapped_linux.go; nothing elsewhere).
func TrimAfterStart(ctx context.Context) { trimAfterStart(ctx) }

// StartProfiles starts the profiles TRADEDECK_CPUPROFILE and
// TRADEDECK_MEMPROFILE ask for (diag_profile.go, a -tags profile build);
// stop writes them. Without the tag it refuses those variables.
func StartProfiles() (stop func(), err error) { return startProfiles() }
