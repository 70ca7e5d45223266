package rehearse_test

import (
	"encoding/json"
	"os"
	"sort"
	"strings"
	"testing"

	"github.com/shopspring/decimal"

	"tradedeck/record"
	"tradedeck/venue"
	"tradedeck/venue/stream"
)

// The hand computation's side: the recording read directly, without any
// of the rehearsal's code, and the paper book rebuilt level by level.

const fixture = "../testdata/sim-perp-btc.tdrec"

// fixture2m is 2m10s of the simulator's calm market (working orders: a
// TWAP over a minute fits in it).
const fixture2m = "../testdata/sim-perp-btc-2m.tdrec"

const sym = "PERP_BTC_USDT"

type bboAt struct {
	at       int64 // receive time, ns
	bid, ask decimal.Decimal
}

type tradeAt struct {
	at          int64
	price, size decimal.Decimal
	side        string
}

type updateAt struct {
	at         int64
	bids, asks [][2]decimal.Decimal
}

type tape struct {
	book    venue.OrderBook // the recorded REST snapshot
	frames  []int64         // receive times of every market frame of sym
	bbos    []bboAt
	trades  []tradeAt
	updates []updateAt
}

func readTape(t *testing.T) tape { t.Helper(); return readTapeOf(t, fixture) }

func readTapeOf(t *testing.T, path string) tape {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rd, err := record.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	defer rd.Close()
	var tp tape
	for {
		r, err := rd.Next()
		if err != nil {
			break
		}
		if r.Kind == record.REST && strings.Contains(string(r.Key), "/v1/orderbook/"+sym) {
			if err := json.Unmarshal(r.Data, &tp.book); err != nil {
				t.Fatal(err)
			}
		}
		var env stream.Envelope
		if r.Kind != record.Market || stream.ParseEnvelope(r.Data, &env) != nil {
			continue
		}
		s, kind := stream.SplitTopic(env.Topic)
		if string(s) != sym {
			continue
		}
		tp.frames = append(tp.frames, r.Time)
		switch string(kind) {
		case "bbo":
			var d struct{ Bid, Ask decimal.Decimal }
			mustJSON(t, env.Data, &d)
			tp.bbos = append(tp.bbos, bboAt{r.Time, d.Bid, d.Ask})
		case "trade":
			var d struct {
				Price, Size decimal.Decimal
				Side        string
			}
			mustJSON(t, env.Data, &d)
			tp.trades = append(tp.trades, tradeAt{r.Time, d.Price, d.Size, d.Side})
		case "orderbookupdate":
			var d struct{ Bids, Asks [][2]decimal.Decimal }
			mustJSON(t, env.Data, &d)
			tp.updates = append(tp.updates, updateAt{r.Time, d.Bids, d.Asks})
		}
	}
	if len(tp.book.Asks) == 0 || len(tp.bbos) == 0 {
		t.Fatal("the fixture lost its book or its bbo frames")
	}
	return tp
}

func mustJSON(t *testing.T, b []byte, v any) {
	t.Helper()
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatal(err)
	}
}

// bookAt is the recorded book at receive time at: the snapshot with every
// update up to then applied (a level's new quantity replaces it; zero
// removes it).
func (tp tape) bookAt(at int64) (bids, asks map[string]decimal.Decimal) {
	bids, asks = map[string]decimal.Decimal{}, map[string]decimal.Decimal{}
	for _, l := range tp.book.Bids {
		bids[l.Price.String()] = l.Quantity
	}
	for _, l := range tp.book.Asks {
		asks[l.Price.String()] = l.Quantity
	}
	set := func(m map[string]decimal.Decimal, ls [][2]decimal.Decimal) {
		for _, l := range ls {
			if l[1].IsZero() {
				delete(m, l[0].String())
			} else {
				m[l[0].String()] = l[1]
			}
		}
	}
	for _, u := range tp.updates {
		if u.at > at {
			break
		}
		set(bids, u.bids)
		set(asks, u.asks)
	}
	return bids, asks
}

type fill struct{ price, qty decimal.Decimal }

// walk takes qty from levels, best first (bids high to low, asks low to
// high): what a MARKET order gets.
func walk(levels map[string]decimal.Decimal, bids bool, qty decimal.Decimal) []fill {
	prices := make([]decimal.Decimal, 0, len(levels))
	for p := range levels {
		prices = append(prices, decimal.RequireFromString(p))
	}
	sort.Slice(prices, func(i, j int) bool {
		if bids {
			return prices[i].GreaterThan(prices[j])
		}
		return prices[i].LessThan(prices[j])
	})
	var out []fill
	for _, p := range prices {
		if !qty.IsPositive() {
			break
		}
		q := decimal.Min(qty, levels[p.String()])
		out = append(out, fill{p, q})
		qty = qty.Sub(q)
	}
	return out
}

// lastBBO is the newest bbo at or before at.
func (tp tape) lastBBO(at int64) bboAt {
	var b bboAt
	for _, x := range tp.bbos {
		if x.at > at {
			break
		}
		b = x
	}
	return b
}

// vwap of the market's trades in [from, to].
func (tp tape) vwap(from, to int64) decimal.Decimal {
	var n, v decimal.Decimal
	for _, x := range tp.trades {
		if x.at >= from && x.at <= to {
			n, v = n.Add(x.price.Mul(x.size)), v.Add(x.size)
		}
	}
	return n.DivRound(v, 8)
}
