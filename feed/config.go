package feed

import (
	"io"
	"time"

	"tradedeck/feed/ws"
	"tradedeck/venue"
)

// Config of a Feed. Zero values take the defaults shown.
type Config struct {
	Endpoints   venue.Endpoints
	Credentials venue.Credentials // no keys: no private stream, public data only
	// REST is the signed REST client used for snapshots, symbol rules,
	// kline history and reconciliation; nil builds one from Endpoints and
	// Credentials.
	REST *venue.Client

	FrameInterval time.Duration // coalescer cap, default time.Second/60
	Watchlist     []string      // symbols with bbo and ticker (from the all-symbol topics, once a second)
	Symbol        string        // initially focused symbol
	Interval      string        // initial candle interval, default "1m"
	Clock         func() time.Time

	// NoAllTickers turns off the `tickers` topic (24 h statistics of every
	// symbol, once a second, for the symbol picker and the watchlist); the
	// watchlist and the focus then get theirs from per-symbol topics.
	NoAllTickers bool

	// After is the timer used for reconnect backoff (injectable for tests).
	After func(time.Duration) <-chan time.Time

	Backoff     ws.Backoff    // stream reconnect backoff (default 500ms..30s, jitter 0.5)
	AuthBackoff time.Duration // wait after a refused private-stream auth, default 60s
	PingEvery   time.Duration // our own ping, default 10s
	StaleAfter  time.Duration // stream silent this long: stale, default 15s
	DeadAfter   time.Duration // stream silent this long: reconnect, default 30s

	// BookStaleAfter marks a live book Stale when no delta came for this
	// long, default 10s.
	BookStaleAfter time.Duration
	// SnapshotDepth is max_level of REST book snapshots, default 1000.
	SnapshotDepth int
	// SnapshotWait is how long a book needing a snapshot waits for the
	// venue's @orderbook push (consistent with the delta stream by
	// construction) before asking REST, default 1.5s; negative: REST at
	// once.
	SnapshotWait time.Duration
	// BookDepth is how many levels a side a Book snapshot for the UI
	// holds, default 100.
	BookDepth int
	// TradeRing is how many public trades a symbol keeps, default 200.
	TradeRing int
	// CandleLimit bounds the candles kept per series, default 1000.
	CandleLimit int
	// HistoryLimit bounds completed orders and fills kept, default 200.
	HistoryLimit int
	// PendingTimeout: a TrackPending order the venue has not acknowledged
	// after this long is looked up by REST, default 10s.
	PendingTimeout time.Duration
	// ReconcileEvery forces a REST reconciliation periodically even
	// without reconnects, default 60s (0 keeps the default; negative
	// turns it off).
	ReconcileEvery time.Duration
	// ReconcileLookback is how far back recent trades and completed
	// orders are read on reconciliation, default 24h.
	ReconcileLookback time.Duration

	// Observer, when set, sees every trade, bbo, ticker, mark price, own
	// order view, position and stream change at full rate (the alert
	// engine); see Observer for what it must not do.
	Observer Observer

	// Log receives one line per notable event (reconnects, resyncs,
	// REST failures); nil discards. Never contains a secret.
	Log io.Writer
}

func (c Config) withDefaults() Config {
	if c.FrameInterval <= 0 {
		c.FrameInterval = time.Second / 60
	}
	if c.Interval == "" {
		c.Interval = "1m"
	}
	if c.Clock == nil {
		c.Clock = time.Now
	}
	if c.After == nil {
		c.After = time.After
	}
	if c.BookStaleAfter <= 0 {
		c.BookStaleAfter = 10 * time.Second
	}
	if c.SnapshotDepth <= 0 {
		c.SnapshotDepth = 1000
	}
	if c.SnapshotWait == 0 {
		c.SnapshotWait = 1500 * time.Millisecond
	}
	if c.BookDepth <= 0 {
		c.BookDepth = 100
	}
	if c.TradeRing <= 0 {
		c.TradeRing = 200
	}
	if c.CandleLimit <= 0 {
		c.CandleLimit = 1000
	}
	if c.HistoryLimit <= 0 {
		c.HistoryLimit = 200
	}
	if c.PendingTimeout <= 0 {
		c.PendingTimeout = 10 * time.Second
	}
	if c.ReconcileEvery == 0 {
		c.ReconcileEvery = 60 * time.Second
	}
	if c.ReconcileLookback <= 0 {
		c.ReconcileLookback = 24 * time.Hour
	}
	if c.REST == nil {
		c.REST = venue.NewClient(c.Endpoints, c.Credentials)
	}
	return c
}
