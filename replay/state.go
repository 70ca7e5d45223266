package replay

import (
	"bytes"
	"encoding/json"
	"net/url"
	"strconv"
	"strings"

	"tradedeck/record"
	"tradedeck/venue/stream"
)

// state is what the venue's REST endpoints answer at the playback
// position: the latest recorded reply of each request, and the latest
// full book of each symbol (a recorded REST snapshot or an @orderbook
// push, whichever is newer).
type state struct {
	rest  map[string][]byte // request key -> body
	books map[string]bookAt // symbol -> newest full book
}

type bookAt struct {
	time int64  // recorded receive time (ns)
	rest []byte // a recorded REST reply, or nil
	push []byte // data of an @orderbook push, or nil
	ts   int64  // the push's venue ts (ms)
}

func newState() *state {
	return &state{rest: map[string][]byte{}, books: map[string]bookAt{}}
}

// apply folds one record into the state. Record bytes alias the reader's
// buffer, so what is kept is copied.
func (st *state) apply(r record.Record, env *stream.Envelope) {
	switch r.Kind {
	case record.REST:
		key := normalizeKey(string(r.Key))
		body := bytes.Clone(r.Data)
		st.rest[key] = body
		if sym, ok := strings.CutPrefix(pathOf(key), "/v1/orderbook/"); ok {
			st.books[sym] = bookAt{time: r.Time, rest: body}
		}
	case record.Market:
		if env == nil {
			return
		}
		sym, kind := stream.SplitTopic(env.Topic)
		if string(kind) == "orderbook" {
			st.books[string(sym)] = bookAt{time: r.Time, push: bytes.Clone(env.Data), ts: env.TS}
		}
	}
}

// normalizeKey files a request so a replayed client finds what the
// recorder's client read: the public twins of the order book and kline
// share their signed route's key, and the time window of the account
// listings (start_t, end_t: relative to the clock) is left out.
func normalizeKey(key string) string {
	method, target, _ := strings.Cut(key, " ")
	path, query, _ := strings.Cut(target, "?")
	switch {
	case strings.HasPrefix(path, "/v1/public/orderbook/"):
		path = "/v1/orderbook/" + strings.TrimPrefix(path, "/v1/public/orderbook/")
	case path == "/v1/public/kline":
		path = "/v1/kline"
	}
	q, err := url.ParseQuery(query)
	if err != nil {
		return method + " " + path
	}
	q.Del("start_t")
	q.Del("end_t")
	if strings.HasPrefix(path, "/v1/orderbook/") {
		q.Del("max_level")
	}
	if enc := q.Encode(); enc != "" {
		return method + " " + path + "?" + enc
	}
	return method + " " + path
}

func pathOf(key string) string {
	_, target, _ := strings.Cut(key, " ")
	p, _, _ := strings.Cut(target, "?")
	return p
}

// bookReply is the REST order book of sym as of the playback position,
// or nil when the recording has none yet.
func (st *state) bookReply(sym string) []byte {
	b, ok := st.books[sym]
	switch {
	case !ok:
		return nil
	case b.rest != nil:
		return b.rest
	}
	return pushToREST(b.push, b.ts)
}

// pushToREST turns @orderbook push data ({"asks":[[p,q],..],"bids":..})
// into the REST snapshot's shape, keeping every number's bytes.
func pushToREST(data []byte, ts int64) []byte {
	var push struct {
		Asks [][]json.RawMessage `json:"asks"`
		Bids [][]json.RawMessage `json:"bids"`
	}
	if json.Unmarshal(data, &push) != nil {
		return nil
	}
	out := []byte(`{"success":true,"asks":`)
	out = appendLevels(out, push.Asks)
	out = append(out, `,"bids":`...)
	out = appendLevels(out, push.Bids)
	out = append(out, `,"timestamp":`...)
	out = strconv.AppendInt(out, ts, 10)
	return append(out, '}')
}

func appendLevels(dst []byte, lv [][]json.RawMessage) []byte {
	dst = append(dst, '[')
	n := 0
	for _, l := range lv {
		if len(l) < 2 {
			continue
		}
		if n > 0 {
			dst = append(dst, ',')
		}
		n++
		dst = append(dst, `{"price":`...)
		dst = append(dst, l[0]...)
		dst = append(dst, `,"quantity":`...)
		dst = append(dst, l[1]...)
		dst = append(dst, '}')
	}
	return append(dst, ']')
}
