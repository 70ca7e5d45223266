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

// Updates carry only what changed: State keeps what earlier ones said.
func TestStateApplyKeepsUnchanged(t *testing.T) {
	s := NewState()
	acct := &Account{Version: 1}
	s.Apply(&Update{Seq: 1, BBOs: map[string]BBO{"A": {Bid: 1}, "B": {Bid: 2}}, Account: acct, Health: []Health{{Stream: StreamMarket}}})
	s.Apply(&Update{Seq: 2, BBOs: map[string]BBO{"A": {Bid: 3}}})
	if s.Seq != 2 || s.BBOs["A"].Bid != 3 || s.BBOs["B"].Bid != 2 {
		t.Fatalf("bbos %+v seq %d", s.BBOs, s.Seq)
	}
	if s.Account != acct || len(s.Health) != 1 {
		t.Fatal("an Update without account or health must keep the previous ones")
	}
}
