package exchange

import (
	"encoding/json"
	"fmt"
	"sync"

	"tradedeck/sim/journal"
)

// stateLock is the exchange's mutex. Releasing it after a change of user
// state first appends the change to the journal, so records follow the
// order of the changes, and the caller can wait for it (Durable) before
// answering.
type stateLock struct {
	sync.Mutex
	e *Exchange
}

func (l *stateLock) Unlock() {
	if e := l.e; e != nil && e.jdirty {
		e.journalChange()
	}
	l.Mutex.Unlock()
}

// journalRecord is what one locked operation changed in user state: the
// counters, every user account's balances, positions and settings (a few
// entries each), the orders it touched, and what it appended to histories.
// Replaying records over a snapshot gives the state after the last one.
type journalRecord struct {
	counters
	Accounts  []accountState `json:"accounts"`
	Transfers []Transfer     `json:"transfers,omitempty"`
	// Reset: the accounts' orders, trades, histories and the transfers were
	// cleared (ResetAccounts) before what this record carries.
	Reset bool `json:"reset,omitempty"`
}

// journalMarks is what the journal has recorded of each account's
// histories (lengths), to record only what is new.
type journalMarks struct {
	trades, assets, interest, funding int
}

// SetJournal makes every later change of user state go to j before the
// lock is released. nil turns journaling off.
func (e *Exchange) SetJournal(j *journal.Journal) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.journal = j
	e.markJournaled()
}

// Durable waits until every change made so far is in the journal on disk.
// Without a journal it returns at once.
func (e *Exchange) Durable() error {
	return e.WaitDurable(e.JournalSeq())
}

// JournalSeq is the sequence number of the last journal record appended
// (0 without a journal). Every change a read made before this call could
// see is in a record up to it: a reader that shows state to a client waits
// for it (WaitDurable) first, so nothing shown is forgotten in a crash.
func (e *Exchange) JournalSeq() int64 {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.journal == nil {
		return 0
	}
	return e.jseq
}

// WaitDurable blocks until journal record seq is written and fsynced (at
// once without a journal, or for seq 0), or fails with the journal's error.
func (e *Exchange) WaitDurable(seq int64) error {
	e.mu.Lock()
	j := e.journal
	e.mu.Unlock()
	if j == nil || seq <= 0 {
		return nil
	}
	return j.Wait(seq)
}

// userChanged notes a change of user state: saved soon, journaled now.
func (e *Exchange) userChanged() {
	e.dirty = true
	e.jdirty = true
}

// orderChanged notes a user order whose state the next record carries.
func (e *Exchange) orderChanged(o *orderState) {
	e.jdirty = true
	if !o.jmarked {
		o.jmarked = true
		e.jorders = append(e.jorders, o)
	}
}

// markJournaled forgets pending changes: everything now is recorded
// elsewhere (a snapshot, or the record just appended).
func (e *Exchange) markJournaled() {
	for _, o := range e.jorders {
		o.jmarked = false
	}
	clear(e.jorders)
	e.jorders = e.jorders[:0]
	e.jdirty, e.jreset = false, false
	for _, a := range e.accounts {
		a.jmarks = journalMarks{len(a.trades), len(a.assets), len(a.interest), len(a.funding)}
	}
	e.jtransfers = len(e.transfers)
}

// journalChange appends the pending change as one record (under the lock).
func (e *Exchange) journalChange() {
	if e.journal == nil {
		e.markJournaled()
		return
	}
	rec := journalRecord{counters: e.counters(), Transfers: e.transfers[e.jtransfers:], Reset: e.jreset}
	index := map[*Account]int{}
	for _, a := range e.accounts {
		if a.internal {
			continue
		}
		as := accountCore(a)
		m := a.jmarks
		for _, t := range a.trades[min(m.trades, len(a.trades)):] {
			as.Trades = append(as.Trades, *t)
		}
		as.Assets, as.Interest, as.Funding = a.assets[m.assets:], a.interest[m.interest:], a.funding[m.funding:]
		index[a] = len(rec.Accounts)
		rec.Accounts = append(rec.Accounts, as)
	}
	for _, o := range e.jorders {
		if i, ok := index[o.acc]; ok {
			rec.Accounts[i].Orders = append(rec.Accounts[i].Orders, recordOf(o))
		}
	}
	b, err := json.Marshal(&rec)
	if err != nil { // cannot happen with these types; the next snapshot still saves it
		e.dirty = true
	} else {
		e.jseq = e.journal.Append(b)
	}
	e.markJournaled()
}

// accountCore is an account's state without its order and trade lists.
func accountCore(a *Account) accountState {
	as := accountState{Name: a.name, Mode: a.mode, Leverage: a.leverage, FutLeverage: a.futLeverage,
		Balances: make(map[string]balanceState, len(a.balances)), Positions: make(map[string]positionState, len(a.positions))}
	for t, b := range a.balances {
		as.Balances[t] = balanceState{Holding: b.holding, Frozen: b.frozen, Interest: b.interest, Updated: b.updated}
	}
	for s, p := range a.positions {
		as.Positions[s] = positionState{Qty: p.qty, AvgOpen: p.avgOpen, Realised: p.realised, PnL24: p.pnl24, Fee24: p.fee24, Settle: p.settle, Updated: p.updated}
	}
	for _, k := range a.keys {
		as.Keys = append(as.Keys, keyState{Key: k.Key, Revoked: k.Revoked, IPs: append([]string(nil), k.IPs...), UpdatedMs: k.UpdatedMs})
	}
	return as
}

func recordOf(o *orderState) orderRecord {
	return orderRecord{Order: o.Order, PriceFx: o.priceFx, QtyFx: o.qtyFx, ExecFx: o.execFx, Frozen: o.frozen, FrozenTok: o.frozenTok}
}

// replayJournal applies the records after the snapshot's to st.
func replayJournal(st *stateFile, recs []journal.Record) error {
	byName := map[string]int{}
	for i, as := range st.Accounts {
		byName[as.Name] = i
	}
	orderIdx := map[string]map[int64]int{}
	for _, r := range recs {
		if r.Seq <= st.JournalSeq {
			continue
		}
		var rec journalRecord
		if err := json.Unmarshal(r.Payload, &rec); err != nil {
			return fmt.Errorf("journal record %d: %w", r.Seq, err)
		}
		st.NextOrderID, st.NextTradeID = max(st.NextOrderID, rec.NextOrderID), max(st.NextTradeID, rec.NextTradeID)
		st.NextXferID, st.NextAssetID = max(st.NextXferID, rec.NextXferID), max(st.NextAssetID, rec.NextAssetID)
		st.FundingNext, st.InterestNext = rec.FundingNext, rec.InterestNext
		if rec.Reset {
			st.Transfers = nil
			for i := range st.Accounts {
				as := &st.Accounts[i]
				as.Orders, as.Trades, as.Assets, as.Interest, as.Funding = nil, nil, nil, nil, nil
			}
			clear(orderIdx)
		}
		st.Transfers = append(st.Transfers, rec.Transfers...)
		for _, ra := range rec.Accounts {
			i, ok := byName[ra.Name]
			if !ok {
				i = len(st.Accounts)
				byName[ra.Name] = i
				st.Accounts = append(st.Accounts, accountState{Name: ra.Name})
			}
			replayAccount(&st.Accounts[i], ra, orderIdx)
		}
		st.JournalSeq = r.Seq
	}
	for _, as := range st.Accounts { // ids are never handed out twice
		for _, o := range as.Orders {
			st.NextOrderID = max(st.NextOrderID, o.ID+1)
		}
		for _, t := range as.Trades {
			st.NextTradeID = max(st.NextTradeID, t.ID+1)
		}
	}
	return nil
}

func replayAccount(as *accountState, ra accountState, orderIdx map[string]map[int64]int) {
	as.Mode, as.Leverage, as.FutLeverage = ra.Mode, ra.Leverage, ra.FutLeverage
	as.Balances, as.Positions, as.Keys = ra.Balances, ra.Positions, ra.Keys
	as.Trades = append(as.Trades, ra.Trades...)
	as.Assets = append(as.Assets, ra.Assets...)
	as.Interest = append(as.Interest, ra.Interest...)
	as.Funding = append(as.Funding, ra.Funding...)
	idx := orderIdx[as.Name]
	if idx == nil {
		idx = make(map[int64]int, len(as.Orders))
		for i, o := range as.Orders {
			idx[o.ID] = i
		}
		orderIdx[as.Name] = idx
	}
	for _, o := range ra.Orders {
		if i, ok := idx[o.ID]; ok {
			as.Orders[i] = o
			continue
		}
		idx[o.ID] = len(as.Orders)
		as.Orders = append(as.Orders, o)
	}
}
