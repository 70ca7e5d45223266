package feed

import (
	"sort"
	"time"
)

// collect is the coalescer's per-frame step: it merges what changed since
// the last frame into the pending Update. Its cost depends on what changed
// (a few dirty symbols), never on how many frames arrived; a part that did
// not change is not even locked.
func (f *Feed) collect(u *Update, fresh bool) bool {
	if fresh {
		*u = Update{}
	}
	if !f.mkt.anyDirty.Load() && !f.acct.dirty.Load() && !f.health.dirty.Load() && !f.events.any.Load() {
		return !fresh
	}
	f.mkt.collect(u, f.cfg.Clock())
	f.acct.collect(u)
	f.health.collect(u)
	f.events.drain(u)
	f.seq++
	u.Seq = f.seq
	return true
}

// collect puts the changed symbols and candle series in u.
func (m *marketState) collect(u *Update, now time.Time) {
	if !m.anyDirty.Load() {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.anyDirty.Store(false)
	depth := m.c.cfg.BookDepth
	if u.BBOs == nil && len(m.dirty) > 8 {
		u.BBOs = make(map[string]BBO, len(m.dirty)) // a watchlist's bbos: sized once, not grown
	}
	for _, s := range m.dirty {
		fl := s.dirty
		s.dirty = 0
		if fl&dBook != 0 && s.book != nil {
			bs := s.book
			b := &Book{Symbol: s.name, Scale: s.scale, TS: bs.sync.LastTS(), State: m.bookSyncState(bs, now),
				Age: now.Sub(bs.lastUpdate), Version: bs.version, Gaps: bs.sync.Gaps, Resyncs: bs.sync.Resyncs,
				Asks: levelsOf(bs.sync.Book.Asks, depth), Bids: levelsOf(bs.sync.Book.Bids, depth)}
			bs.shown = b.State
			setMap(&u.Books, s.name, b)
		}
		if fl&dTrades != 0 && s.trades != nil {
			setMap(&u.Trades, s.name, &Trades{Symbol: s.name, Scale: s.scale, Rows: s.trades.newestFirst(), Version: s.trades.version})
		}
		if fl&dBBO != 0 {
			setMap(&u.BBOs, s.name, s.bbo)
		}
		if fl&dTicker != 0 {
			setMap(&u.Tickers, s.name, s.ticker)
		}
		if fl&dFutures != 0 {
			setMap(&u.Futures, s.name, s.futures)
		}
	}
	m.dirty = m.dirty[:0]
	for _, c := range m.dirtyCan {
		c.dirty = false
		setMap(&u.Candles, CandleKey(c.symbol, c.interval), &Candles{Symbol: c.symbol, Interval: c.interval,
			Rows: append([]Candle(nil), c.rows...), Loaded: c.loaded, Version: c.version})
	}
	m.dirtyCan = m.dirtyCan[:0]
}

func setMap[V any](m *map[string]V, k string, v V) {
	if *m == nil {
		*m = map[string]V{}
	}
	(*m)[k] = v
}

// collect puts the account in u when it changed.
func (a *accountState) collect(u *Update) {
	if !a.dirty.Swap(false) {
		return
	}
	a.mu.Lock()
	u.Account = a.snapshotLocked()
	a.mu.Unlock()
}

// snapshotLocked copies the account for the UI.
func (a *accountState) snapshotLocked() *Account {
	out := &Account{Margin: a.margin, Collateral: a.collateral, Reconciled: a.reconciled, Version: a.version}
	for _, o := range a.open {
		out.Open = append(out.Open, *o)
	}
	for _, o := range a.pending {
		out.Open = append(out.Open, *o)
	}
	sort.Slice(out.Open, func(i, j int) bool {
		if !out.Open[i].Created.Equal(out.Open[j].Created) {
			return out.Open[i].Created.After(out.Open[j].Created)
		}
		return out.Open[i].OrderID > out.Open[j].OrderID
	})
	out.History = append([]Order(nil), a.history...)
	out.Fills = append([]Fill(nil), a.fills...)
	for _, b := range a.balances {
		out.Balances = append(out.Balances, b)
	}
	sort.Slice(out.Balances, func(i, j int) bool { return out.Balances[i].Token < out.Balances[j].Token })
	for _, p := range a.positions {
		out.Positions = append(out.Positions, p)
	}
	sort.Slice(out.Positions, func(i, j int) bool { return out.Positions[i].Symbol < out.Positions[j].Symbol })
	return out
}

// Health returns the current health of the streams (also sent in Updates).
func (f *Feed) Health() []Health { return f.health.snapshot() }
