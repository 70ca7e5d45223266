package replay

import (
	"context"
	"encoding/json"
	"maps"
	"net/http"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/coder/websocket"
)

// client is one stream connection of a replayed feed.
type client struct {
	private bool
	conn    *websocket.Conn
	out     chan []byte   // recorded frames
	ctrl    chan []byte   // replies and pongs
	gone    chan struct{} // closed when the connection ended
	once    sync.Once

	mu     sync.Mutex
	topics map[string]bool
}

func (c *client) subscribed(topic string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.topics[topic]
}

// send queues a frame, waiting while the queue is full (backpressure),
// dropping it once the connection is gone.
func (c *client) send(frame []byte) {
	select {
	case c.out <- frame:
	case <-c.gone:
	}
}

func (c *client) end() { c.once.Do(func() { close(c.gone) }) }

func (c *client) ended() bool {
	select {
	case <-c.gone:
		return true
	default:
		return false
	}
}

func (c *client) hasTopics() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.topics) > 0
}

// serveStream accepts a market or private stream connection.
func (s *Server) serveStream(private bool) func(http.ResponseWriter, *http.Request) {
	return func(w http.ResponseWriter, r *http.Request) {
		conn, err := websocket.Accept(w, r, &websocket.AcceptOptions{InsecureSkipVerify: true})
		if err != nil {
			return
		}
		conn.SetReadLimit(1 << 16)
		cl := &client{private: private, conn: conn, out: make(chan []byte, 256), ctrl: make(chan []byte, 64),
			gone: make(chan struct{}), topics: map[string]bool{}}
		s.mu.Lock()
		s.clients[cl] = true
		s.mu.Unlock()
		ctx, cancel := context.WithCancel(r.Context())
		defer func() {
			cancel()
			cl.end()
			s.mu.Lock()
			delete(s.clients, cl)
			s.mu.Unlock()
			_ = conn.CloseNow() // the client is done either way
		}()
		go s.writeLoop(ctx, cl)
		for {
			_, msg, err := conn.Read(ctx)
			if err != nil {
				return
			}
			s.handle(cl, msg)
		}
	}
}

func (s *Server) writeLoop(ctx context.Context, cl *client) {
	defer cl.end()
	for {
		select {
		case <-ctx.Done():
			return
		case <-cl.gone:
			return
		case frame := <-cl.ctrl:
			if !cl.write(ctx, frame) {
				return
			}
		case frame := <-cl.out:
			if !cl.write(ctx, frame) {
				return
			}
		}
	}
}

// closeClients drops every stream connection (after a jump, or at exit).
func (s *Server) closeClients() {
	s.mu.Lock()
	cls := slices.Collect(maps.Keys(s.clients))
	s.mu.Unlock()
	for _, cl := range cls {
		cl.end()
		cl.conn.Close(websocket.StatusServiceRestart, "replay jumped")
	}
}

// handle answers one client frame the way the venue does.
func (s *Server) handle(cl *client, msg []byte) {
	var req struct {
		ID    json.RawMessage `json:"id"`
		Event string          `json:"event"`
		Topic string          `json:"topic"`
	}
	if json.Unmarshal(msg, &req) != nil {
		s.reply(cl, "", "", false, "invalid request: not a JSON object")
		return
	}
	id := string(req.ID)
	if uq, err := strconv.Unquote(id); err == nil {
		id = uq
	}
	switch req.Event {
	case "ping":
		cl.queueControl([]byte(`{"event":"pong","ts":` + strconv.FormatInt(s.Now().UnixMilli(), 10) + `}`))
	case "pong":
	case "auth":
		s.reply(cl, id, "auth", true, "")
	case "subscribe", "unsubscribe":
		if req.Topic == "" {
			s.reply(cl, id, req.Event, false, "topic is required")
			return
		}
		cl.mu.Lock()
		first := len(cl.topics) == 0
		if req.Event == "subscribe" {
			cl.topics[req.Topic] = true
		} else {
			delete(cl.topics, req.Topic)
		}
		cl.mu.Unlock()
		s.reply(cl, id, req.Event, true, "")
		if first && !cl.private && req.Event == "subscribe" {
			s.poke() // a clock waiting for subscribers looks again
		}
	default:
		s.reply(cl, id, req.Event, false, "not available in a replay: "+req.Event)
	}
}

func (s *Server) reply(cl *client, id, event string, ok bool, msg string) {
	rep := struct {
		ID       string `json:"id,omitempty"`
		Event    string `json:"event"`
		Success  bool   `json:"success"`
		Ts       int64  `json:"ts"`
		ErrorMsg string `json:"errorMsg,omitempty"`
	}{id, event, ok, s.Now().UnixMilli(), msg}
	b, _ := json.Marshal(rep)
	cl.queueControl(b)
}

// queueControl sends a reply without waiting behind the recorded frames.
// A client that asks faster than it reads the answers is dropped: memory
// stays bounded whatever it sends.
func (c *client) queueControl(b []byte) {
	select {
	case c.ctrl <- b:
	default:
		c.end()
		c.conn.Close(websocket.StatusPolicyViolation, "requests faster than replies are read")
	}
}

func (c *client) write(ctx context.Context, frame []byte) bool {
	wctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := c.conn.Write(wctx, websocket.MessageText, frame); err != nil {
		_ = c.conn.CloseNow() // aborting a failed client: nothing to do if it fails
		return false
	}
	return true
}
