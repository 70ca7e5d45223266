package mirror

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/coder/websocket"
	"github.com/shopspring/decimal"

	"tradedeck/sim/exchange"
)

// marketPath is the upstream's public market stream (followed by the application id).
const marketPath = "/ws/stream/"

// frame is one push of the upstream's market stream.
type frame struct {
	Topic string          `json:"topic"`
	Ts    int64           `json:"ts"`
	Event string          `json:"event"`
	Data  json.RawMessage `json:"data"`
}

// stream is one connection to the upstream's public market stream. Its
// reader answers pings and hands pushes to the follower.
type stream struct {
	c      *websocket.Conn
	frames chan frame
	cancel context.CancelFunc
}

// frameBuffer bounds the pushes waiting for the follower; past it the
// connection is dropped and the books are read again.
const frameBuffer = 1 << 14

// connect dials the market stream and subscribes to what the follower
// needs of each symbol. Only the public stream, never the private one.
func (f *Follower) connect(ctx context.Context) (*stream, error) {
	base := strings.TrimRight(f.opts.Upstream.WSMarketURL, "/")
	if base == "" {
		return nil, errors.New("no upstream Websocket market URL")
	}
	dctx, cancelDial := context.WithTimeout(ctx, 10*time.Second)
	defer cancelDial()
	c, _, err := websocket.Dial(dctx, base+marketPath+f.opts.ApplicationID, nil)
	if err != nil {
		return nil, err
	}
	c.SetReadLimit(1 << 24)
	rctx, cancel := context.WithCancel(ctx)
	st := &stream{c: c, frames: make(chan frame, frameBuffer), cancel: cancel}
	for _, name := range f.symbolNames() {
		kinds := []string{"orderbookupdate", "trade", "markprice", "indexprice"}
		if f.syms[name].perp {
			kinds = append(kinds, "estfundingrate")
		}
		for _, kind := range kinds {
			sub := fmt.Sprintf(`{"id":"m-%s-%s","event":"subscribe","topic":"%s@%s"}`, name, kind, name, kind)
			if err := c.Write(rctx, websocket.MessageText, []byte(sub)); err != nil {
				st.close()
				return nil, err
			}
		}
	}
	go st.read(rctx)
	return st, nil
}

func (st *stream) read(ctx context.Context) {
	defer close(st.frames)
	for {
		_, b, err := st.c.Read(ctx)
		if err != nil {
			return
		}
		var fr frame
		if json.Unmarshal(b, &fr) != nil {
			continue
		}
		if fr.Event == "ping" {
			pong := fmt.Sprintf(`{"event":"pong","ts":%d}`, time.Now().UnixMilli())
			if st.c.Write(ctx, websocket.MessageText, []byte(pong)) != nil {
				return
			}
			continue
		}
		if fr.Topic == "" {
			continue // subscription replies
		}
		select {
		case st.frames <- fr:
		default: // the follower fell behind: start over from snapshots
			st.c.Close(websocket.StatusGoingAway, "mirror fell behind")
			return
		}
	}
}

func (st *stream) close() {
	st.cancel()
	_ = st.c.CloseNow() // aborting: nothing to do if it fails
}

func decodeUpdate(fr frame) (update, error) {
	var d struct {
		PrevTs int64                `json:"prevTs"`
		Asks   [][2]decimal.Decimal `json:"asks"`
		Bids   [][2]decimal.Decimal `json:"bids"`
	}
	if err := json.Unmarshal(fr.Data, &d); err != nil {
		return update{}, err
	}
	u := update{ts: fr.Ts, prevTs: d.PrevTs}
	for _, l := range d.Asks {
		u.asks = append(u.asks, level{l[0], l[1]})
	}
	for _, l := range d.Bids {
		u.bids = append(u.bids, level{l[0], l[1]})
	}
	return u, nil
}

// trade is one upstream trade; side is the taker's.
type trade struct {
	price, size decimal.Decimal
	side        exchange.Side
}

func decodeTrade(fr frame) (trade, error) {
	var d struct {
		Price decimal.Decimal `json:"price"`
		Size  decimal.Decimal `json:"size"`
		Side  string          `json:"side"`
	}
	if err := json.Unmarshal(fr.Data, &d); err != nil {
		return trade{}, err
	}
	side := exchange.Side(d.Side)
	if side != exchange.Buy && side != exchange.Sell || !d.Price.IsPositive() || !d.Size.IsPositive() {
		return trade{}, fmt.Errorf("trade %s", fr.Data)
	}
	return trade{price: d.Price, size: d.Size, side: side}, nil
}

func decodeFundingRate(fr frame) (decimal.Decimal, error) {
	var d struct {
		Rate *decimal.Decimal `json:"fundingRate"`
	}
	if err := json.Unmarshal(fr.Data, &d); err != nil {
		return decimal.Zero, err
	}
	if d.Rate == nil {
		return decimal.Zero, fmt.Errorf("funding rate %s", fr.Data)
	}
	return *d.Rate, nil
}

func decodePrice(fr frame) (decimal.Decimal, error) {
	var d struct {
		Price decimal.Decimal `json:"price"`
	}
	if err := json.Unmarshal(fr.Data, &d); err != nil {
		return decimal.Zero, err
	}
	if !d.Price.IsPositive() {
		return decimal.Zero, fmt.Errorf("price %s", fr.Data)
	}
	return d.Price, nil
}
