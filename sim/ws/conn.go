package ws

import (
	"context"
	"encoding/json"
	"sync"
	"sync/atomic"
	"time"

	"github.com/coder/websocket"

	"tradedeck/sim/exchange"
)

// frame is one encoded text message; its bytes are shared by every connection it is sent to and
// never modified after publication.
type frame struct {
	b  []byte
	at time.Time // when it was queued (for the delay fault)

	// A frame without bytes closes the connection once everything queued before it is written.
	closeCode   websocket.StatusCode
	closeReason string
}

// conn is one client connection of either stream. The reader goroutine handles requests, the
// writer goroutine drains the bounded queue: a client that cannot keep up is closed instead of
// slowing the market down.
type conn struct {
	srv     *Server
	ws      *websocket.Conn
	private bool
	appID   string // from the URL path
	queue   chan frame
	ctx     context.Context
	cancel  context.CancelFunc
	missed  atomic.Int32 // server pings sent since the client last pinged or ponged
	closing atomic.Bool  // fail was called: queue nothing more

	mu      sync.Mutex
	topics  map[string]bool   // subscribed topic names as the client wrote them
	account *exchange.Account // authenticated account (private stream), nil before auth

	closeOnce sync.Once
}

// Close reasons sent to clients.
const (
	reasonSlow     = "slow consumer: send queue full"
	reasonNoPong   = "no pong to 10 pings"
	reasonAuth     = "auth failed"
	reasonShutdown = "server shutting down"
	reasonBacklog  = "events lost in a backlog: reconnect and reconcile"
)

// fail closes the connection with a status and reason without blocking the caller.
func (c *conn) fail(code websocket.StatusCode, reason string) { c.failCounted(code, reason, nil) }

// failCounted is fail that also counts the close in counter, once per connection.
func (c *conn) failCounted(code websocket.StatusCode, reason string, counter *atomic.Int64) {
	c.closeOnce.Do(func() {
		c.closing.Store(true)
		if counter != nil {
			counter.Add(1)
		}
		// Close writes the close frame and waits for the client's; only then stop the loops, so
		// the reason reaches the client instead of a reset connection.
		go func() {
			_ = c.ws.Close(code, reason)
			c.cancel()
		}()
	})
}

// send queues a frame; a full queue drops the client. It never blocks.
func (c *conn) send(b []byte) {
	if c.closing.Load() {
		return
	}
	select {
	case c.queue <- frame{b: b, at: time.Now()}:
	default:
		c.failCounted(websocket.StatusPolicyViolation, reasonSlow, &c.srv.slowDrops)
	}
}

// closeAfterQueued closes the connection after the frames already queued are written (an
// error reply, then the close).
func (c *conn) closeAfterQueued(code websocket.StatusCode, reason string) {
	select {
	case c.queue <- frame{closeCode: code, closeReason: reason, at: time.Now()}:
	default:
		c.fail(code, reason)
	}
}

// sendJSON encodes v and queues it (replies, not the hot path).
func (c *conn) sendJSON(v any) {
	b, err := json.Marshal(v)
	if err != nil {
		return
	}
	c.send(b)
}

// writeLoop writes queued frames until the connection ends, applying the delay, reorder and stall
// faults on the way.
func (c *conn) writeLoop() {
	var held *frame // a frame kept back by the reorder fault, written after the next one
	var n uint64
	for {
		var f frame
		select {
		case <-c.ctx.Done():
			return
		case f = <-c.queue:
		}
		if f.b == nil {
			if held != nil {
				c.write(held.b)
			}
			c.fail(f.closeCode, f.closeReason)
			return
		}
		inj := c.srv.faults
		if inj.Stalled(c.private) {
			continue
		}
		if d := inj.FrameDelay(); d > 0 {
			if wait := time.Until(f.at.Add(d)); wait > 0 {
				t := time.NewTimer(wait)
				select {
				case <-c.ctx.Done():
					t.Stop()
					return
				case <-t.C:
				}
			}
		}
		n++
		if held == nil && inj.Reorder(n) {
			held = &f
			continue
		}
		if !c.write(f.b) {
			return
		}
		if held != nil {
			if !c.write(held.b) {
				return
			}
			held = nil
		}
	}
}

func (c *conn) write(b []byte) bool {
	ctx, cancel := context.WithTimeout(c.ctx, c.srv.opts.WriteTimeout)
	err := c.ws.Write(ctx, websocket.MessageText, b)
	cancel()
	if err != nil {
		if !c.closing.Load() { // a write that timed out: the client does not read fast enough
			c.failCounted(websocket.StatusPolicyViolation, reasonSlow, &c.srv.slowDrops)
		}
		return false
	}
	return true
}

// keepAlive pings every PingInterval and drops the client after MaxMissedPongs pings in a row
// without a ping or pong from it.
func (c *conn) keepAlive() {
	t := time.NewTicker(c.srv.opts.PingInterval)
	defer t.Stop()
	for {
		select {
		case <-c.ctx.Done():
			return
		case <-t.C:
		}
		if c.srv.faults.StallsStream(c.private) {
			continue // a stalled stream sends nothing, pings included, and so expects nothing
		}
		if int(c.missed.Load()) >= c.srv.opts.MaxMissedPongs {
			c.failCounted(websocket.StatusPolicyViolation, reasonNoPong, &c.srv.pongDrops)
			return
		}
		c.missed.Add(1)
		c.send(pingFrame)
	}
}

var pingFrame = []byte(`{"event":"ping"}`)

// readLoop handles client frames until the connection ends.
func (c *conn) readLoop() {
	for {
		typ, b, err := c.ws.Read(c.ctx)
		if err != nil {
			c.fail(websocket.StatusNormalClosure, "")
			return
		}
		if typ != websocket.MessageText {
			c.replyError("", "", "binary frames are not supported")
			continue
		}
		c.handle(b)
	}
}

// subscribed reports whether the client holds topic.
func (c *conn) subscribed(topic string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.topics[topic]
}

// authAccount returns the authenticated account, nil before auth.
func (c *conn) authAccount() *exchange.Account {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.account
}
