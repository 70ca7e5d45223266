package ws

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
	"time"

	"github.com/coder/websocket"

	"tradedeck/venue"
)

// request is any client frame.
type request struct {
	ID     json.RawMessage `json:"id"`
	Event  string          `json:"event"`
	Topic  string          `json:"topic"`
	Params struct {
		Type      string          `json:"type"`
		Symbol    string          `json:"symbol"`
		APIKey    string          `json:"apikey"`
		Sign      string          `json:"sign"`
		Timestamp json.RawMessage `json:"timestamp"`
	} `json:"params"`
}

// reply is an acknowledgement or error reply; the id is echoed as a string.
type reply struct {
	ID       string `json:"id,omitempty"`
	Event    string `json:"event"`
	Success  bool   `json:"success"`
	Ts       int64  `json:"ts"`
	ErrorMsg string `json:"errorMsg,omitempty"`
	Data     any    `json:"data,omitempty"`
}

// idString renders a client id (string or number) as the string the venue echoes.
func idString(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	return string(raw)
}

// Error messages as the real venue sends them, and ours for cases it does not document.
const (
	msgAuthNeeded = "Auth is needed."
)

func (c *conn) handle(b []byte) {
	var req request
	if err := json.Unmarshal(b, &req); err != nil {
		c.replyError("", "", "invalid request: not a JSON object")
		return
	}
	id := idString(req.ID)
	switch req.Event {
	case "ping":
		c.missed.Store(0)
		c.send(appendPong(nil, c.srv.nowMs()))
	case "pong":
		c.missed.Store(0)
	case "subscribe", "unsubscribe":
		c.subscription(id, req.Event, req.Topic)
	case "request":
		c.request(id, req.Params.Type, req.Params.Symbol)
	case "auth":
		c.auth(id, req.Params.APIKey, req.Params.Sign, req.Params.Timestamp)
	case "":
		c.replyError(id, "", "event is required")
	default:
		c.replyError(id, req.Event, "unknown event "+req.Event)
	}
}

func appendPong(dst []byte, ts int64) []byte {
	dst = append(dst, `{"event":"pong","ts":`...)
	dst = strconv.AppendInt(dst, ts, 10)
	return append(dst, '}')
}

func (c *conn) replyError(id, event, msg string) {
	c.sendJSON(reply{ID: id, Event: event, Success: false, Ts: c.srv.nowMs(), ErrorMsg: msg})
}

func (c *conn) replyOK(id, event string, data any) {
	c.sendJSON(reply{ID: id, Event: event, Success: true, Ts: c.srv.nowMs(), Data: data})
}

// subscription handles subscribe and unsubscribe.
func (c *conn) subscription(id, event, name string) {
	if name == "" {
		c.replyError(id, event, "topic is required")
		return
	}
	t, errMsg := c.srv.parseTopic(name, c.private)
	if errMsg != "" {
		c.replyError(id, event, errMsg)
		return
	}
	acct := c.authAccount()
	if t.private && acct == nil {
		c.replyError(id, event, msgAuthNeeded)
		return
	}
	key := name
	if t.private {
		key = privateKey(name, acct.ApplicationID())
	}
	c.mu.Lock()
	had := c.topics[key]
	if event == "subscribe" {
		c.topics[key] = true
	} else {
		delete(c.topics, key)
	}
	c.mu.Unlock()
	if event == "subscribe" {
		if !had {
			c.srv.hub.add(key, c)
		}
		c.replyOK(id, event, nil)
		return
	}
	if had {
		c.srv.hub.remove(key, c)
	}
	c.replyOK(id, event, name)
}

func (c *conn) unsubscribeAll() {
	c.mu.Lock()
	keys := make([]string, 0, len(c.topics))
	for k := range c.topics {
		keys = append(keys, k)
	}
	c.topics = map[string]bool{}
	c.mu.Unlock()
	for _, k := range keys {
		c.srv.hub.remove(k, c)
	}
}

// request answers the one-shot order book request with a depth-100 snapshot.
func (c *conn) request(id, typ, symbol string) {
	if typ != "orderbook" {
		c.replyError(id, "request", "unknown request type "+strconv.Quote(typ))
		return
	}
	if _, ok := c.srv.markets[symbol]; !ok {
		c.replyError(id, "request", "invalid symbol "+symbol)
		return
	}
	b, ok := c.srv.orderbookReply(id, symbol)
	if !ok {
		c.replyError(id, "request", "invalid symbol "+symbol)
		return
	}
	c.send(b)
}

// auth authenticates a private stream. Any failure is answered and then closes the connection.
func (c *conn) auth(id, apiKey, sign string, rawTs json.RawMessage) {
	if !c.private {
		c.replyError(id, "auth", "auth is only available on the private stream")
		return
	}
	if c.authAccount() != nil {
		c.replyOK(id, "auth", nil)
		return
	}
	fail := func(msg string) {
		c.srv.authFails.Add(1)
		c.replyError(id, "auth", msg)
		c.closeAfterQueued(websocket.StatusPolicyViolation, reasonAuth)
	}
	ts, err := strconv.ParseInt(strings.Trim(string(bytes.TrimSpace(rawTs)), `"`), 10, 64)
	if apiKey == "" || sign == "" || err != nil {
		fail("auth needs params apikey, sign and timestamp")
		return
	}
	now := c.srv.nowMs()
	if d := time.Duration(now-ts) * time.Millisecond; d >= c.srv.opts.AuthWindow || d <= -c.srv.opts.AuthWindow {
		fail("timestamp expired: more than 300 s from server time")
		return
	}
	key, ok := c.srv.ex.LookupKey(apiKey)
	if !ok || key.Revoked || !venue.VerifySignature(key.Secret, "", ts, sign) {
		fail("invalid api key or signature")
		return
	}
	if key.Account.ApplicationID() != c.appID {
		fail("api key does not belong to application " + c.appID)
		return
	}
	c.mu.Lock()
	c.account = key.Account
	c.mu.Unlock()
	c.replyOK(id, "auth", nil)
}
