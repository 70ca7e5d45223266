package store

import (
	"database/sql"
	"path/filepath"
	"testing"
	"time"
)

// A database made before alert firings had actions gains the columns on
// open, keeping its rows; a firing's claim is recorded once (the second
// process to claim it is told so and does not act), and its result is
// written back.
func TestAlertFiringsMigrateAndClaimOnce(t *testing.T) {
	p := filepath.Join(t.TempDir(), FileName)
	old, err := sql.Open("sqlite", "file:"+p)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		`CREATE TABLE alert_firings (id INTEGER PRIMARY KEY AUTOINCREMENT, at_ms INTEGER NOT NULL, alert_id INTEGER NOT NULL,
			symbol TEXT NOT NULL, kind TEXT NOT NULL, value TEXT NOT NULL, message TEXT NOT NULL)`,
		`INSERT INTO alert_firings(at_ms, alert_id, symbol, kind, value, message) VALUES(1, 4, 'S', 'price', '1', 'old')`,
	} {
		if _, err := old.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	old.Close()

	s, err := Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	other, err := Open(p) // another process sharing the alerts file
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	now := time.UnixMilli(time.Now().UnixMilli())
	row := AlertFiringRow{At: now, Account: "acct", AlertID: 3, Symbol: "SPOT_BTC_USDT", Kind: "price", Value: "101", Message: "crossed",
		Action: "pause 12", AlgoID: 12, Result: FiringPending, By: "SHA256:k", Claim: "/a.json#3@1/1"}
	id, claimed, err := s.ClaimAlertFiring(row)
	if err != nil || !claimed || id == 0 {
		t.Fatalf("first claim: %d %v %v", id, claimed, err)
	}
	if id2, claimed, err := other.ClaimAlertFiring(row); err != nil || claimed || id2 != 0 {
		t.Fatalf("second claim of the same firing: %d %v %v", id2, claimed, err)
	}
	if err := s.SetAlertFiringResult(id, FiringDone+": paused algo #12"); err != nil {
		t.Fatal(err)
	}
	got, ok, err := other.AlertFiring(row.Claim)
	row.ID, row.Result = id, FiringDone+": paused algo #12"
	if err != nil || !ok || got != row {
		t.Fatalf("read back %+v %v %v, want %+v", got, ok, err, row)
	}
	// Rows without a claim never conflict (the old row, plain records).
	for range 2 {
		if err := s.AddAlertFiring(AlertFiringRow{At: now, AlertID: 5, Symbol: "S", Kind: "price", Value: "1", Message: "m"}); err != nil {
			t.Fatal(err)
		}
	}
	var n int
	var oldMsg string
	if err := s.DB().QueryRow(`SELECT count(*) FROM alert_firings`).Scan(&n); err != nil || n != 4 {
		t.Fatalf("%d rows: %v", n, err)
	}
	if err := s.DB().QueryRow(`SELECT message FROM alert_firings WHERE alert_id = 4 AND action = '' AND result = ''`).Scan(&oldMsg); err != nil || oldMsg != "old" {
		t.Fatalf("the old row: %q %v", oldMsg, err)
	}
	if _, ok, err := s.AlertFiring(""); ok || err != nil {
		t.Fatalf("the empty claim found a row: %v %v", ok, err)
	}
}
