package feed

import (
	"context"
	"time"
)

// collect is the coalescer's per-frame step: it merges what changed since
// the last frame into the pending Update. Its cost depends on what changed
// (a few dirty symbols), never on how many frames arrived.
func (f *Feed) collect(u *Update, fresh bool) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	if fresh {
		*u = Update{}
	}
	if len(f.dirty) == 0 && len(f.dirtyCan) == 0 && !f.acctDirt && !f.hlthDirt && len(f.events) == 0 {
		return !fresh
	}
	now := f.cfg.Clock()
	for _, s := range f.dirty {
		fl := s.dirty
		s.dirty = 0
		if fl&dBook != 0 && s.book != nil {
			bs := s.book
			b := &Book{Symbol: s.name, Scale: s.scale, TS: bs.sync.LastTS(), State: f.bookSyncState(bs, now),
				Age: now.Sub(bs.lastUpdate), Version: bs.version, Gaps: bs.sync.Gaps, Resyncs: bs.sync.Resyncs,
				Asks: levelsOf(bs.sync.Book.Asks, f.cfg.BookDepth), Bids: levelsOf(bs.sync.Book.Bids, f.cfg.BookDepth)}
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
	f.dirty = f.dirty[:0]
	for _, c := range f.dirtyCan {
		c.dirty = false
		setMap(&u.Candles, CandleKey(c.symbol, c.interval), &Candles{Symbol: c.symbol, Interval: c.interval,
			Rows: append([]Candle(nil), c.rows...), Loaded: c.loaded, Version: c.version})
	}
	f.dirtyCan = f.dirtyCan[:0]
	if f.acctDirt {
		f.acctDirt = false
		u.Account = f.accountSnapshotLocked()
	}
	if f.hlthDirt {
		f.hlthDirt = false
		u.Health = f.healthLocked()
	}
	if len(f.events) > 0 {
		u.Events = append(u.Events, f.events...)
		f.events = f.events[:0]
	}
	f.seq++
	u.Seq = f.seq
	return true
}

func setMap[V any](m *map[string]V, k string, v V) {
	if *m == nil {
		*m = map[string]V{}
	}
	(*m)[k] = v
}

func (f *Feed) healthLocked() []Health {
	out := []Health{f.health[0].h}
	if f.private != nil {
		out = append(out, f.health[1].h)
	}
	return out
}

// Health returns the current health of the streams (also sent in Updates).
func (f *Feed) Health() []Health {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.healthLocked()
}

// housekeeping runs twice a second: rates, staleness, pending timeouts.
func (f *Feed) housekeeping(ctx context.Context) {
	t := time.NewTicker(500 * time.Millisecond)
	defer t.Stop()
	lastRates, lastFutures := time.Time{}, f.cfg.Clock() // focus fetched the futures already
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		now := f.cfg.Clock()
		var perp string
		reconcile := false
		f.mu.Lock()
		if now.Sub(lastRates) >= time.Second {
			lastRates = now
			f.refreshHealthLocked(now)
			// Age moves even when nothing else does.
			for _, s := range f.syms {
				if s.book != nil {
					s.mark(dBook, &f.dirty)
				}
			}
		} else {
			for _, s := range f.syms {
				if s.book != nil && f.bookSyncState(s.book, now) != s.book.shown {
					s.mark(dBook, &f.dirty)
				}
			}
		}
		for _, p := range f.acct.pending {
			if now.Sub(p.Created) >= f.cfg.PendingTimeout {
				reconcile = true
			}
		}
		if isPerp(f.focus) && now.Sub(lastFutures) >= time.Minute {
			lastFutures = now
			perp = f.focus
		}
		f.mu.Unlock()
		if reconcile {
			f.Reconcile()
		}
		if perp != "" {
			go f.refreshFutures(perp)
		}
	}
}
