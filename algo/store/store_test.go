package store

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// The database is WAL, private to the user, keeps its client order id
// prefix across opens, and its rows read back as written (also by a
// second connection while the first is open: a view process, sqlite3).
func TestOpenRoundTrip(t *testing.T) {
	p := filepath.Join(t.TempDir(), "state", FileName)
	s, err := Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var mode string
	if err := s.DB().QueryRow("PRAGMA journal_mode").Scan(&mode); err != nil || mode != "wal" {
		t.Fatalf("journal mode %q: %v", mode, err)
	}
	if fi, err := os.Stat(p); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("mode %v: %v", fi.Mode(), err)
	}
	pre := s.ClientIDPrefix()
	if pre < 100 || pre > 899 {
		t.Fatalf("prefix %d", pre)
	}
	now := time.UnixMilli(time.Now().UnixMilli())
	var id int64
	err = s.Tx(func(tx *Tx) error {
		if id, err = tx.InsertAlgo(AlgoRow{Account: "acct", Kind: "stop", Symbol: "PERP_BTC_USDT", Side: "SELL", Spec: "{}", Line: "stop PERP_BTC_USDT 1", State: "armed", Created: now, Updated: now}); err != nil {
			return err
		}
		if err := tx.PutChild(ChildRow{CID: 42, AlgoID: id, Leg: 1, Symbol: "PERP_BTC_USDT", Side: "SELL", Type: "MARKET", Quantity: "0.5", ReduceOnly: true, Status: "JOURNALED", Created: now, Updated: now}); err != nil {
			return err
		}
		if err := tx.PutChild(ChildRow{CID: 42, AlgoID: id, Leg: 1, Symbol: "PERP_BTC_USDT", Side: "SELL", Type: "MARKET", Quantity: "0.5", ReduceOnly: true, Status: "FILLED", Executed: "0.5", OrderID: 7, Created: now, Updated: now}); err != nil {
			return err
		}
		if err := tx.AddTrigger(TriggerRow{AlgoID: id, Leg: 1, Level: "1", Price: "0.9", Source: "bid", VenueMS: 5, At: now, AgeMS: 3, Why: "bid 0.9 <= stop 1"}); err != nil {
			return err
		}
		return tx.SetWatermark("acct", "PERP_BTC_USDT", 99)
	})
	if err != nil {
		t.Fatal(err)
	}
	other, err := Open(p) // a second process's view
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	if other.ClientIDPrefix() != pre {
		t.Fatalf("prefix changed: %d -> %d", pre, other.ClientIDPrefix())
	}
	algos, err := other.Algos("acct", true)
	if err != nil || len(algos) != 1 || algos[0].ID != id || algos[0].State != "armed" || !algos[0].Created.Equal(now) {
		t.Fatalf("algos %+v: %v", algos, err)
	}
	kids, err := other.Children(id)
	if err != nil || len(kids) != 1 || kids[0].Status != "FILLED" || kids[0].Executed != "0.5" || kids[0].OrderID != 7 || !kids[0].ReduceOnly {
		t.Fatalf("children %+v: %v", kids, err)
	}
	tr, ok, err := other.LastTrigger(id)
	if err != nil || !ok || tr.Why != "bid 0.9 <= stop 1" || tr.AgeMS != 3 {
		t.Fatalf("trigger %+v %v: %v", tr, ok, err)
	}
	if w, err := other.Watermark("acct", "PERP_BTC_USDT"); err != nil || w != 99 {
		t.Fatalf("watermark %d: %v", w, err)
	}
	if err := other.AddAudit(AuditRow{At: now, Account: "acct", Key: "SHA256:x", Action: "algo add", Detail: "stop"}); err != nil {
		t.Fatal(err)
	}
	if err := other.AddAlertFiring(AlertFiringRow{At: now, AlertID: 1, Symbol: "S", Kind: "price", Value: "1", Message: "m"}); err != nil {
		t.Fatal(err)
	}
	if algos, _ := s.Algos("other", false); len(algos) != 0 {
		t.Fatal("another account's algos")
	}
}
