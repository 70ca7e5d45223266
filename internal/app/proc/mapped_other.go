//go:build !linux

package proc

import "context"

// trimAfterStart is Linux's (mapped_linux.go).
func trimAfterStart(context.Context) {}
