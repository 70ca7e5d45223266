package feed

import "testing"

// A state from a newer feed (or a corrupt value) must never panic a pane.
func TestStateStringsNeverPanic(t *testing.T) {
	if got := SyncState(200).String(); got != "unknown" {
		t.Fatalf("SyncState(200) = %q", got)
	}
	if got := StreamState(200).String(); got != "unknown" {
		t.Fatalf("StreamState(200) = %q", got)
	}
	if Live.String() != "live" || Reconnecting.String() != "reconnecting" {
		t.Fatal("known names changed")
	}
}
