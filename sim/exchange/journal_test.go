package exchange

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"tradedeck/sim/journal"
)

// userState is the part of a snapshot the journal must reproduce.
func userState(t *testing.T, ex *Exchange) stateFile {
	t.Helper()
	b, err := ex.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	var st stateFile
	if err := json.Unmarshal(b, &st); err != nil {
		t.Fatal(err)
	}
	st.Markets, st.SavedMs, st.JournalSeq = nil, 0, 0
	return st
}

// TestJournalReplayEqualsLiveState: a snapshot taken before a run of
// orders, fills, cancels, transfers, withdrawals and setting changes, plus
// the journal written during the run, restore exactly the user state the
// venue ended with.
func TestJournalReplayEqualsLiveState(t *testing.T) {
	f := newFixture(t)
	base := filepath.Join(t.TempDir(), "state.json")
	snap, seq, err := f.ex.Checkpoint()
	if err != nil {
		t.Fatal(err)
	}
	j, err := journal.Open(base, seq+1)
	if err != nil {
		t.Fatal(err)
	}
	f.ex.SetJournal(j)

	f.book()
	f.place(f.alice, limitReq("SPOT_BTC_USDT", Buy, "101.00", "0.4")) // takes part of BOB's ask
	resting := f.place(f.alice, limitReq("SPOT_BTC_USDT", Buy, "99.50", "0.5"))
	gone := f.place(f.alice, limitReq("SPOT_BTC_USDT", Buy, "99.00", "0.2"))
	if err := f.ex.Cancel(f.alice, "SPOT_BTC_USDT", gone.ID); err != nil {
		t.Fatal(err)
	}
	f.place(f.bob, limitReq("SPOT_BTC_USDT", Sell, "99.50", "0.2")) // fills ALICE's resting bid in part
	if _, err := f.ex.TransferAsset(f.alice, "USDT", d("25"), "app-alice", "app-sub"); err != nil {
		t.Fatal(err)
	}
	if _, err := f.ex.Withdraw(f.alice, "ETH_USDT", "0xabc", "", d("10")); err != nil {
		t.Fatal(err)
	}
	if err := f.ex.SetLeverage(f.bob, 20); err != nil {
		t.Fatal(err)
	}
	if err := f.ex.Durable(); err != nil {
		t.Fatal(err)
	}
	j.Close()

	recs, dropped, err := journal.Read(base)
	if err != nil || dropped != 0 || len(recs) == 0 {
		t.Fatalf("journal: %d records, %d dropped, %v", len(recs), dropped, err)
	}
	u, _ := ParseUniverse(must(os.ReadFile("testdata/universe.json")))
	ex2, err := NewFromState(Options{Universe: u, Clock: f.clock.Now, NoSeedLiquidity: true, NoHistory: true}, snap, recs...)
	if err != nil {
		t.Fatal(err)
	}
	want, got := userState(t, f.ex), userState(t, ex2)
	if !reflect.DeepEqual(want, got) {
		wb, _ := json.MarshalIndent(want, "", " ")
		gb, _ := json.MarshalIndent(got, "", " ")
		t.Fatalf("replayed state differs\nwant %s\ngot  %s", wb, gb)
	}
	alice2, _ := ex2.AccountByName("ALICE")
	if open := ex2.OpenOrders(alice2); len(open) != 1 || open[0].ID != resting.ID || fmt.Sprint(open) != fmt.Sprint(f.ex.OpenOrders(f.alice)) {
		t.Fatalf("open orders after replay: %+v", open)
	}
	if len(ex2.Trades(alice2, "", "", 0, 0)) == 0 {
		t.Fatal("ALICE's fill is not back")
	}
	// a new order gets an id past every one handed out before
	bob2, _ := ex2.AccountByName("BOB")
	o, xerr := ex2.PlaceOrder(bob2, limitReq("SPOT_BTC_USDT", Sell, "105.00", "0.1"))
	if xerr != nil || o.ID <= gone.ID {
		t.Fatalf("new order %d after replay (last id before %d): %v", o.ID, gone.ID, xerr)
	}
}

// TestJournalRecordsOnlyUserChanges: internal participants trading among
// themselves write nothing.
func TestJournalRecordsOnlyUserChanges(t *testing.T) {
	f := newFixture(t)
	base := filepath.Join(t.TempDir(), "state.json")
	j, _ := journal.Open(base, 1)
	defer j.Close()
	f.ex.SetJournal(j)
	mm, taker := f.ex.InternalAccount("mm"), f.ex.InternalAccount("taker")
	for range 20 {
		f.place(mm, limitReq("SPOT_BTC_USDT", Sell, "101.00", "0.1"))
		f.place(taker, limitReq("SPOT_BTC_USDT", Buy, "101.00", "0.1"))
	}
	if n := j.Last(); n != 0 {
		t.Fatalf("%d records for internal trading, want none", n)
	}
	f.place(f.alice, limitReq("SPOT_BTC_USDT", Buy, "99.00", "0.2"))
	if n := j.Last(); n != 1 {
		t.Fatalf("%d records after one user order, want 1", n)
	}
}

// TestResetAccountsJournaled: a reset leaves the universe's accounts, and
// the journal replays it (clearing, not appending) to the same state.
func TestResetAccountsJournaled(t *testing.T) {
	f := newFixture(t)
	fresh := userState(t, f.ex)
	base := filepath.Join(t.TempDir(), "state.json")
	f.book()
	f.place(f.alice, limitReq("SPOT_BTC_USDT", Buy, "101.00", "0.4"))
	f.place(f.alice, limitReq("SPOT_BTC_USDT", Buy, "99.50", "0.5"))
	snap, seq, err := f.ex.Checkpoint()
	if err != nil {
		t.Fatal(err)
	}
	j, _ := journal.Open(base, seq+1)
	f.ex.SetJournal(j)
	f.ex.ResetAccounts()
	if err := f.ex.Durable(); err != nil {
		t.Fatal(err)
	}
	after := userState(t, f.ex)
	after.NextOrderID, after.NextTradeID, after.NextAssetID = fresh.NextOrderID, fresh.NextTradeID, fresh.NextAssetID
	for i := range after.Accounts { // the deposits are new records: same amounts, new times and ids
		for k := range after.Accounts[i].Assets {
			after.Accounts[i].Assets[k] = fresh.Accounts[i].Assets[k]
		}
	}
	if a, b := fmt.Sprint(after), fmt.Sprint(fresh); a != b {
		t.Fatalf("after the reset\n%s\nwant the universe's accounts\n%s", a, b)
	}
	f.place(f.alice, limitReq("SPOT_BTC_USDT", Buy, "99.00", "0.2"))
	if err := f.ex.Durable(); err != nil {
		t.Fatal(err)
	}
	j.Close()
	recs, _, _ := journal.Read(base)
	u, _ := ParseUniverse(must(os.ReadFile("testdata/universe.json")))
	ex2, err := NewFromState(Options{Universe: u, Clock: f.clock.Now, NoSeedLiquidity: true, NoHistory: true}, snap, recs...)
	if err != nil {
		t.Fatal(err)
	}
	if a, b := userState(t, ex2), userState(t, f.ex); !reflect.DeepEqual(a, b) {
		t.Fatalf("replayed reset differs:\n%v\n%v", a, b)
	}
}
