//go:build !linux

package main

import "context"

// trimAfterStart is Linux's (mapped_linux.go).
func trimAfterStart(context.Context) {}
