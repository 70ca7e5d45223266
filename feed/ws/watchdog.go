package ws

import (
	"context"
	"fmt"
	"time"

	"github.com/coder/websocket"

	"tradedeck/venue/stream"
)

// The watchdog of a connection: pings, and the silence turning the stream
// stale, then dead.

// watchdog pings every PingEvery and watches the time since the last
// frame: Stale after StaleAfter, connection dropped after DeadAfter.
func (c *Conn) watchdog(ctx context.Context, ws *websocket.Conn) {
	lastPing := c.cfg.Now()
	ping := stream.AppendPing(nil)
	t := time.NewTimer(c.nextCheck(lastPing, lastPing))
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		now := c.cfg.Now()
		silent := now.Sub(time.Unix(0, c.lastFrame.Load()))
		if silent >= c.cfg.DeadAfter {
			_ = ws.CloseNow() // the peer is gone: no close handshake to wait for
			return
		}
		c.mu.Lock()
		st, live := c.state, c.live
		c.mu.Unlock()
		if silent >= c.cfg.StaleAfter && st == Live {
			c.setStatus(Status{State: Stale, Err: fmt.Errorf("%s stream: no frame for %s", c.cfg.Name, silent.Truncate(time.Millisecond))})
			c.stale.Store(true) // after the status: the next frame turns it live again
		}
		if live && now.Sub(lastPing) >= c.cfg.PingEvery {
			lastPing = now
			if err := write(ws, ping); err != nil {
				_ = ws.CloseNow() // aborting: the reader reconnects
				return
			}
		}
		t.Reset(c.nextCheck(now, lastPing))
	}
}

// nextCheck is how long the watchdog sleeps after a check at now. On the
// system clock: until the first thing it may have to do (the next ping,
// the silence reaching StaleAfter or DeadAfter if no frame comes), so a
// busy stream costs it a wake-up per ping, not one a second; frames only
// push those moments later, so it never wakes late. On an injected clock
// (a replay's runs at its own speed) a fixed tick of at most a second.
func (c *Conn) nextCheck(now, lastPing time.Time) time.Duration {
	tick := min(max(min(c.cfg.StaleAfter/4, c.cfg.PingEvery/2), 5*time.Millisecond), time.Second)
	if !c.sysClock {
		return tick
	}
	last := time.Unix(0, c.lastFrame.Load())
	next := now.Add(c.cfg.DeadAfter)
	for _, at := range [...]time.Time{lastPing.Add(c.cfg.PingEvery), last.Add(c.cfg.StaleAfter), last.Add(c.cfg.DeadAfter)} {
		if at.After(now) && at.Before(next) {
			next = at
		}
	}
	if !lastPing.Add(c.cfg.PingEvery).After(now) {
		// A ping due but not sent (the handshake is not done): soon.
		if soon := now.Add(tick); soon.Before(next) {
			next = soon
		}
	}
	return max(next.Sub(now), time.Millisecond)
}
