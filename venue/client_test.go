package venue

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"tradedeck/internal/testkit"
)

const (
	testKey    = "AbmyVJGUpN064ks5ELjLfA=="
	testSecret = "QHKRXHPAW1MC9YGZMAT8YDJG2HPR"
)

// seen is one request as the loopback server received it.
type seen struct {
	Method, Path, RawQuery, Body  string
	ContentType, Key, TS, Sig, UA string
}

// loopback is a real HTTP server on 127.0.0.1 that records requests and
// answers with a canned status and body.
type loopback struct {
	srv *httptest.Server

	mu      sync.Mutex
	reqs    []seen
	replies []reply // consumed in order; the last one repeats
}

type reply struct {
	status int
	body   []byte
	header http.Header
}

func newLoopback(t *testing.T) *loopback {
	lb := &loopback{}
	lb.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		lb.mu.Lock()
		lb.reqs = append(lb.reqs, seen{
			Method: r.Method, Path: r.URL.Path, RawQuery: r.URL.RawQuery, Body: string(body),
			ContentType: r.Header.Get("Content-Type"), Key: r.Header.Get(HeaderKey),
			TS: r.Header.Get(HeaderTimestamp), Sig: r.Header.Get(HeaderSignature), UA: r.Header.Get("User-Agent"),
		})
		rep := reply{status: 200, body: []byte(`{"success":true}`)}
		if len(lb.replies) > 0 {
			rep = lb.replies[0]
			if len(lb.replies) > 1 {
				lb.replies = lb.replies[1:]
			}
		}
		lb.mu.Unlock()
		for k, v := range rep.header {
			w.Header()[k] = v
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(rep.status)
		_, _ = w.Write(rep.body) // the client may be gone
	}))
	t.Cleanup(lb.srv.Close)
	return lb
}

func (lb *loopback) answer(replies ...reply) {
	lb.mu.Lock()
	lb.replies = replies
	lb.reqs = nil
	lb.mu.Unlock()
}

func (lb *loopback) requests() []seen {
	lb.mu.Lock()
	defer lb.mu.Unlock()
	return append([]seen(nil), lb.reqs...)
}

// endpoints puts the REST base and the history base under distinct path
// prefixes of the same server, so a test sees which one a request used.
func (lb *loopback) endpoints() Endpoints {
	return Endpoints{BaseURL: lb.srv.URL + "/base/", PublicHistoryURL: lb.srv.URL + "/hist"}
}

func newTestClient(lb *loopback, clk Clock, opts ...Option) *Client {
	opts = append([]Option{WithClock(clk)}, opts...)
	return NewClient(lb.endpoints(), Credentials{APIKey: testKey, APISecret: testSecret}, opts...)
}

// hmacHex is the signature computed independently of sign.go.
func hmacHex(secret, text string) string {
	m := hmac.New(sha256.New, []byte(secret))
	m.Write([]byte(text))
	return hex.EncodeToString(m.Sum(nil))
}

// checkSigned asserts the signing contract on one received request: the
// parameters in the query for GET and in a form body otherwise, the form
// content type, the three headers, and the signature over params|ts.
func checkSigned(t *testing.T, r seen, method, path, params string, now time.Time) {
	t.Helper()
	if r.Method != method || r.Path != path {
		t.Fatalf("request %s %s, want %s %s", r.Method, r.Path, method, path)
	}
	sent := r.Body
	if method == http.MethodGet {
		if r.Body != "" {
			t.Errorf("GET with a body %q", r.Body)
		}
		sent = r.RawQuery
	} else if r.RawQuery != "" {
		t.Errorf("%s with a query %q", method, r.RawQuery)
	}
	if sent != params {
		t.Errorf("params = %q, want %q", sent, params)
	}
	if r.ContentType != "application/x-www-form-urlencoded" {
		t.Errorf("content type %q", r.ContentType)
	}
	if r.Key != testKey {
		t.Errorf("x-api-key %q", r.Key)
	}
	if r.TS != strconv.FormatInt(now.UnixMilli(), 10) {
		t.Errorf("x-api-timestamp %q, want %d", r.TS, now.UnixMilli())
	}
	if want := hmacHex(testSecret, params+"|"+r.TS); r.Sig != want {
		t.Errorf("x-api-signature %q, want %q", r.Sig, want)
	}
}

// checkUnsigned asserts a keyless GET: parameters in the query, no auth
// headers.
func checkUnsigned(t *testing.T, r seen, path, params string) {
	t.Helper()
	if r.Method != http.MethodGet || r.Path != path || r.RawQuery != params || r.Body != "" {
		t.Fatalf("request %s %s?%s body %q, want GET %s?%s", r.Method, r.Path, r.RawQuery, r.Body, path, params)
	}
	if r.Key != "" || r.TS != "" || r.Sig != "" {
		t.Errorf("keyless request carried auth headers %+v", r)
	}
}

// endpointCase is one endpoint: how to call it, what must arrive at the
// server, the recorded reply to answer with, and what must be decoded.
type endpointCase struct {
	route  Route
	call   func(ctx context.Context, c *Client) (any, error)
	path   string // after the base prefix
	params string // canonical query or body
	reply  string // testdata file
	check  func(t *testing.T, v any)
}

// keylessRoutes are reached only by a client without keys.
var keylessRoutes = map[Route]bool{RoutePublicOrderBook: true, RoutePublicKline: true}

var day = time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC)

func dec(s string) decimal.Decimal { return decimal.RequireFromString(s) }

func endpointCases() []endpointCase {
	return []endpointCase{
		// Public.
		{RoutePublicInfo, func(ctx context.Context, c *Client) (any, error) { return c.SymbolRule(ctx, "SPOT_BTC_USDT") },
			"/v1/public/info/SPOT_BTC_USDT", "", "rest/v1_public_info_symbol.json", func(t *testing.T, v any) {
				r := v.(SymbolRule)
				expect(t, "symbol", r.Symbol, "SPOT_BTC_USDT")
				expect(t, "quote_min", r.QuoteMin, "100")
				expect(t, "quote_tick", r.QuoteTick, "0.01")
				expect(t, "base_tick", r.BaseTick, "0.0001")
				expect(t, "min_notional", r.MinNotional, "0.02")
				expect(t, "price_range", r.PriceRange, "0.5")
				expect(t, "created_time", r.CreatedTime, "1575014248990")
			}},
		{RoutePublicInfoAll, func(ctx context.Context, c *Client) (any, error) { return c.SymbolRules(ctx) },
			"/v1/public/info", "", "rest/v1_public_info.json", func(t *testing.T, v any) {
				r := v.([]SymbolRule)
				expect(t, "rows", len(r), "1")
				expect(t, "base_max", r[0].BaseMax, "20")
				expect(t, "price_range", r[0].PriceRange, "0.99")
			}},
		{RoutePublicInfoAll, func(ctx context.Context, c *Client) (any, error) { return c.SymbolRules(ctx) },
			"/v1/public/info", "", "rest/v1_public_info.ccxt-2021.json", func(t *testing.T, v any) {
				r := v.([]SymbolRule)
				expect(t, "symbol", r[0].Symbol, "SPOT_AAVE_USDT")
				if !r[0].CreatedTime.IsZero() {
					t.Errorf(`created_time "0" should be the zero time, got %v`, r[0].CreatedTime)
				}
				expect(t, "updated_time", r[0].UpdatedTime, "1639107647988")
			}},
		{RouteMarketTrades, func(ctx context.Context, c *Client) (any, error) { return c.MarketTrades(ctx, "SPOT_ETH_USDT", 2) },
			"/v1/public/market_trades", "limit=2&symbol=SPOT_ETH_USDT", "rest/v1_public_market_trades.json", func(t *testing.T, v any) {
				r := v.([]MarketTrade)
				expect(t, "rows", len(r), "2")
				expect(t, "side", r[0].Side, "BUY")
				expect(t, "executed_quantity", r[0].ExecutedQuantity, "0.00025")
				expect(t, "executed_timestamp", r[1].ExecutedTimestamp, "1567411795000")
			}},
		{RouteMarketTrades, func(ctx context.Context, c *Client) (any, error) { return c.MarketTrades(ctx, "SPOT_BTC_USDT", 0) },
			"/v1/public/market_trades", "symbol=SPOT_BTC_USDT", "rest/v1_public_market_trades.recorded-2024.json", func(t *testing.T, v any) {
				r := v.([]MarketTrade)
				expect(t, "executed_price", r[0].ExecutedPrice, "73249.19")
				expect(t, "executed_timestamp", r[0].ExecutedTimestamp, "1710327659255")
			}},
		{RouteTokens, func(ctx context.Context, c *Client) (any, error) { return c.Tokens(ctx) },
			"/v1/public/token", "", "synthetic/v1_public_token.json", func(t *testing.T, v any) {
				r := v.([]Token)
				expect(t, "token", r[1].Token, "ETH_USDT")
				expect(t, "balance_token", r[1].BalanceToken, "USDT")
				expect(t, "decimals", r[0].Decimals, "8")
			}},
		{RouteTokenNetworks, func(ctx context.Context, c *Client) (any, error) { return c.TokenNetworks(ctx) },
			"/v1/public/token_network", "", "synthetic/v1_public_token_network.json", func(t *testing.T, v any) {
				r := v.([]TokenNetwork)
				expect(t, "withdrawal_fee", r[0].WithdrawalFee, "12.7")
				expect(t, "allow_deposit", r[0].AllowDeposit, "true")
				expect(t, "allow_withdraw", r[0].AllowWithdraw, "false")
			}},
		{RouteFundingRates, func(ctx context.Context, c *Client) (any, error) { return c.FundingRates(ctx) },
			"/v1/public/funding_rates", "", "synthetic/v1_public_funding_rates.json", func(t *testing.T, v any) {
				r := v.([]FundingRate)
				expect(t, "est_funding_rate", r[0].EstFundingRate, "-0.00001392")
				expect(t, "next_funding_time", r[0].NextFundingTime, "1681070400000")
			}},
		{RouteFundingRate, func(ctx context.Context, c *Client) (any, error) { return c.FundingRate(ctx, "PERP_BTC_USDT") },
			"/v1/public/funding_rate/PERP_BTC_USDT", "", "synthetic/v1_public_funding_rate_symbol.json", func(t *testing.T, v any) {
				r := v.(FundingRate)
				expect(t, "symbol", r.Symbol, "PERP_BTC_USDT")
				expect(t, "last_funding_rate", r.LastFundingRate, "-0.00001086")
				expect(t, "last_funding_rate_timestamp", r.LastFundingRateTimestamp, "1681066800000")
			}},
		{RouteFundingRateHistory, func(ctx context.Context, c *Client) (any, error) {
			rows, meta, err := c.FundingRateHistory(ctx, FundingRateHistoryFilter{Symbol: "PERP_BTC_USDT", Start: day, End: day.Add(time.Hour), Page: 2})
			return pageOf(rows, meta), err
		}, "/v1/public/funding_rate_history", "end_t=1704168245000&page=2&start_t=1704164645000&symbol=PERP_BTC_USDT",
			"synthetic/v1_public_funding_rate_history.json", func(t *testing.T, v any) {
				p := v.(listing[FundingRateHistory])
				expect(t, "total", *p.Meta.Total, "670")
				expect(t, "funding_rate", p.Rows[0].FundingRate, "0.00046875")
				expect(t, "seconds funding_rate_timestamp", p.Rows[0].FundingRateTimestamp, "1640937600000")
				expect(t, "ms funding_rate_timestamp", p.Rows[1].FundingRateTimestamp, "1640908800000")
			}},
		{RouteFuturesAll, func(ctx context.Context, c *Client) (any, error) { return c.FuturesInfos(ctx) },
			"/v1/public/futures", "", "synthetic/v1_public_futures.json", func(t *testing.T, v any) {
				r := v.([]FuturesInfo)
				expect(t, "mark_price", r[0].MarkPrice, "56727.31344564")
				expect(t, "24h_high", r[0].High24h, "0.33")
				expect(t, "24h_amount", r[0].Amount24h, "22493062.21")
			}},
		{RouteFutures, func(ctx context.Context, c *Client) (any, error) { return c.FuturesInfo(ctx, "PERP_BTC_USDT") },
			"/v1/public/futures/PERP_BTC_USDT", "", "synthetic/v1_public_futures_symbol.json", func(t *testing.T, v any) {
				r := v.(FuturesInfo)
				expect(t, "24h_volume", r.Volume24h, "89040821.98")
				expect(t, "next_funding_time", r.NextFundingTime, "1632131999999")
			}},
		// Market data.
		{RouteOrderBook, func(ctx context.Context, c *Client) (any, error) { return c.OrderBook(ctx, "SPOT_BTC_USDT", 3) },
			"/v1/orderbook/SPOT_BTC_USDT", "max_level=3", "rest/v1_orderbook_symbol.json", func(t *testing.T, v any) {
				b := v.(OrderBook)
				expect(t, "asks", len(b.Asks), "3")
				expect(t, "ask0", b.Asks[0].Price, "10669.4")
				expect(t, "bid2 qty", b.Bids[2].Quantity, "0.00488286")
				expect(t, "timestamp", b.Timestamp, "1564710591905")
			}},
		{RouteOrderBook, func(ctx context.Context, c *Client) (any, error) { return c.OrderBook(ctx, "SPOT_WOO_USDT", 0) },
			"/v1/orderbook/SPOT_WOO_USDT", "", "rest/v1_orderbook_symbol.ccxt-2022.json", func(t *testing.T, v any) {
				b := v.(OrderBook)
				expect(t, "bid0 qty", b.Bids[0].Quantity, "13502.47")
				expect(t, "timestamp", b.Timestamp, "1641562961192")
			}},
		{RouteKline, func(ctx context.Context, c *Client) (any, error) {
			return c.Kline(ctx, KlineRequest{Symbol: "SPOT_BTC_USDT", Type: "1m", Limit: 2})
		}, "/v1/kline", "limit=2&symbol=SPOT_BTC_USDT&type=1m", "rest/v1_public_kline.json", func(t *testing.T, v any) {
			r := v.([]Kline)
			expect(t, "high", r[1].High, "66178.6")
			expect(t, "amount", r[0].Amount, "1550436.21725288")
			expect(t, "start", r[0].StartTimestamp, "1636388220000")
		}},
		{RouteKline, func(ctx context.Context, c *Client) (any, error) {
			return c.Kline(ctx, KlineRequest{Symbol: "SPOT_BTC_USDT", Type: "1h"})
		}, "/v1/kline", "symbol=SPOT_BTC_USDT&type=1h", "rest/v1_public_kline.recorded-2024.json", func(t *testing.T, v any) {
			r := v.([]Kline)
			expect(t, "close", r[0].Close, "73426.86")
			expect(t, "end", r[0].EndTimestamp, "1710331200000")
		}},
		{RouteHistKline, func(ctx context.Context, c *Client) (any, error) {
			rows, meta, err := c.HistKline(ctx, HistKlineRequest{Symbol: "SPOT_BTC_USDT", Type: "5m", StartTime: day})
			return pageOf(rows, meta), err
		}, "/v1/hist/kline", "start_time=1704164645000&symbol=SPOT_BTC_USDT&type=5m", "synthetic/v1_hist_kline.json", func(t *testing.T, v any) {
			p := v.(listing[Kline])
			expect(t, "records_per_page", p.Meta.RecordsPerPage, "100")
			expect(t, "type", p.Rows[0].Type, "5m")
		}},
		// Without keys the order book and kline use their public twins.
		{RoutePublicOrderBook, func(ctx context.Context, c *Client) (any, error) { return c.OrderBook(ctx, "SPOT_BTC_USDT", 3) },
			"/v1/public/orderbook/SPOT_BTC_USDT", "max_level=3", "rest/v1_orderbook_symbol.json",
			func(t *testing.T, v any) { expect(t, "bid0", v.(OrderBook).Bids[0].Price, "10669.3") }},
		{RoutePublicKline, func(ctx context.Context, c *Client) (any, error) {
			return c.Kline(ctx, KlineRequest{Symbol: "SPOT_BTC_USDT", Type: "1h", Limit: 1})
		}, "/v1/public/kline", "limit=1&symbol=SPOT_BTC_USDT&type=1h", "rest/v1_public_kline.recorded-2024.json",
			func(t *testing.T, v any) { expect(t, "open", v.([]Kline)[0].Open, "73250.67") }},
		// Orders.
		{RouteSendOrder, func(ctx context.Context, c *Client) (any, error) {
			return c.SendOrder(ctx, OrderRequest{Symbol: "SPOT_BTC_USDT", Type: Limit, Side: Buy, Price: dec("9000"), Quantity: dec("0.11")})
		}, "/v1/order", "order_price=9000&order_quantity=0.11&order_type=LIMIT&side=BUY&symbol=SPOT_BTC_USDT", "rest/v1_order_post.json", func(t *testing.T, v any) {
			a := v.(OrderAck)
			expect(t, "order_id", a.OrderID, "13")
			expect(t, "order_price", a.OrderPrice, "100.12")
			expect(t, "order_amount", a.OrderAmount, "null")
			expect(t, "timestamp", a.Timestamp, "1639980423855")
		}},
		{RouteSendOrder, func(ctx context.Context, c *Client) (any, error) {
			return c.SendOrder(ctx, OrderRequest{Symbol: "PERP_LTC_USDT", Type: Market, Side: Buy, Quantity: dec("0.1"),
				ClientOrderID: 9223372036854775807, OrderTag: "grid", ReduceOnly: true})
		}, "/v1/order", "client_order_id=9223372036854775807&order_quantity=0.1&order_tag=grid&order_type=MARKET&reduce_only=true&side=BUY&symbol=PERP_LTC_USDT",
			"rest/v1_order_post.recorded-2024.json", func(t *testing.T, v any) {
				a := v.(OrderAck)
				expect(t, "order_id", a.OrderID, "5973852953")
				expect(t, "order_price", a.OrderPrice, "null")
				expect(t, "order_quantity", a.OrderQuantity, "0.1")
			}},
		{RouteSendOrder, func(ctx context.Context, c *Client) (any, error) {
			return c.SendOrder(ctx, OrderRequest{Symbol: "SPOT_WOO_USDT", Type: PostOnly, Side: Sell, Price: dec("1"), Quantity: dec("12"),
				VisibleQuantity: decimal.NewNullDecimal(dec("0"))})
		}, "/v1/order", "order_price=1&order_quantity=12&order_type=POST_ONLY&side=SELL&symbol=SPOT_WOO_USDT&visible_quantity=0",
			"rest/v1_order_post.ccxt-2022.json", func(t *testing.T, v any) {
				a := v.(OrderAck)
				expect(t, "order_id", a.OrderID, "86980774")
				expect(t, "client_order_id", a.ClientOrderID, "0")
			}},
		{RouteCancelOrder, func(ctx context.Context, c *Client) (any, error) { return nil, c.CancelOrder(ctx, "SPOT_BTC_USDT", 13) },
			"/v1/order", "order_id=13&symbol=SPOT_BTC_USDT", "rest/v1_order_delete.json", nil},
		{RouteCancelOrderByClientID, func(ctx context.Context, c *Client) (any, error) {
			return nil, c.CancelOrderByClientID(ctx, "SPOT_BTC_USDT", 123)
		}, "/v1/client/order", "client_order_id=123&symbol=SPOT_BTC_USDT", "rest/v1_client_order_delete.json", nil},
		{RouteCancelAll, func(ctx context.Context, c *Client) (any, error) { return nil, c.CancelAll(ctx, "SPOT_LTC_USDT") },
			"/v1/orders", "symbol=SPOT_LTC_USDT", "rest/v1_orders_delete.json", nil},
		{RouteGetOrder, func(ctx context.Context, c *Client) (any, error) { return c.GetOrder(ctx, 1) },
			"/v1/order/1", "", "rest/v1_order_oid.json", func(t *testing.T, v any) {
				o := v.(Order)
				expect(t, "status", o.Status, "FILLED")
				expect(t, "price", o.Price, "123")
				expect(t, "amount", o.Amount, "null")
				expect(t, "total_fee", o.TotalFee, "0.00123")
				expect(t, "created_time", o.CreatedTime, "1577349119330")
				expect(t, "transactions", len(o.Transactions), "1")
				expect(t, "tx fee", o.Transactions[0].Fee, "0.0001")
				expect(t, "tx is_maker", o.Transactions[0].IsMaker, "true")
			}},
		{RouteGetOrder, func(ctx context.Context, c *Client) (any, error) { return c.GetOrder(ctx, 87541111) },
			"/v1/order/87541111", "", "rest/v1_order_oid.ccxt-2022.json", func(t *testing.T, v any) {
				o := v.(Order)
				expect(t, "order_id", o.OrderID, "87541111")
				expect(t, "client_order_id (null)", o.ClientOrderID, "0")
				expect(t, "tx id", o.Transactions[0].ID, "99111647")
				expect(t, "tx time", o.Transactions[0].ExecutedTimestamp, "1641482113084")
			}},
		{RouteGetOrderByClientID, func(ctx context.Context, c *Client) (any, error) { return c.GetOrderByClientID(ctx, 123) },
			"/v1/client/order/123", "", "rest/v1_client_order_cid.json", func(t *testing.T, v any) {
				o := v.(Order)
				expect(t, "client_order_id", o.ClientOrderID, "123")
				expect(t, "average_executed_price", o.AverageExecutedPrice, "123")
			}},
		{RouteListOrders, func(ctx context.Context, c *Client) (any, error) {
			rows, meta, err := c.ListOrders(ctx, OrderFilter{Symbol: "SPOT_BCHABC_USDT", Side: Sell, Type: Limit, OrderTag: "default",
				Status: StatusCancelled, Start: day, End: day.Add(time.Minute), Page: 1})
			return pageOf(rows, meta), err
		}, "/v1/orders", "end_t=1704164705000&order_tag=default&order_type=LIMIT&page=1&side=SELL&start_t=1704164645000&status=CANCELLED&symbol=SPOT_BCHABC_USDT",
			"rest/v1_orders.json", func(t *testing.T, v any) {
				p := v.(listing[Order])
				expect(t, "total", *p.Meta.Total, "31")
				expect(t, "fee_asset (null)", p.Rows[0].FeeAsset, "")
				expect(t, "average_executed_price", p.Rows[0].AverageExecutedPrice, "null")
				expect(t, "updated_time", p.Rows[0].UpdatedTime, "1575014255910")
				expect(t, "quantity", p.Rows[0].Quantity, "0.0019")
			}},
		{RouteListOrders, func(ctx context.Context, c *Client) (any, error) {
			rows, meta, err := c.ListOrders(ctx, OrderFilter{Status: StatusIncomplete})
			return pageOf(rows, meta), err
		}, "/v1/orders", "status=INCOMPLETE", "rest/v1_orders_incomplete.recorded-2024.json", func(t *testing.T, v any) {
			p := v.(listing[Order])
			expect(t, "records_per_page", p.Meta.RecordsPerPage, "500")
			expect(t, "order_id", p.Rows[0].OrderID, "1122668213")
			expect(t, "remaining", p.Rows[0].Remaining(), "0.1")
		}},
		{RouteListOrders, func(ctx context.Context, c *Client) (any, error) {
			rows, meta, err := c.ListOrders(ctx, OrderFilter{Status: StatusCompleted})
			return pageOf(rows, meta), err
		}, "/v1/orders", "status=COMPLETED", "rest/v1_orders_completed.recorded-2024.json", func(t *testing.T, v any) {
			p := v.(listing[Order])
			expect(t, "price (null)", p.Rows[0].Price, "null")
			expect(t, "type", p.Rows[0].Type, "MARKET")
			expect(t, "executed", p.Rows[0].Executed, "0.102912")
		}},
		// Trades.
		{RouteGetTrade, func(ctx context.Context, c *Client) (any, error) { return c.GetTrade(ctx, 1) },
			"/v1/client/trade/1", "", "rest/v1_client_trade_tid.json", func(t *testing.T, v any) {
				tr := v.(Trade)
				expect(t, "order_id", tr.OrderID, "2")
				expect(t, "is_maker", tr.IsMaker, "false")
				expect(t, "executed_timestamp", tr.ExecutedTimestamp, "1567382400000")
			}},
		{RouteOrderTrades, func(ctx context.Context, c *Client) (any, error) { return c.OrderTrades(ctx, 211) },
			"/v1/order/211/trades", "", "rest/v1_order_oid_trades.json", func(t *testing.T, v any) {
				r := v.([]Trade)
				expect(t, "executed_price", r[0].ExecutedPrice, "10892.84")
				expect(t, "order_tag", r[0].OrderTag, "default")
			}},
		{RouteListTrades, func(ctx context.Context, c *Client) (any, error) {
			rows, meta, err := c.ListTrades(ctx, TradeFilter{Symbol: "SPOT_LTC_USDT", OrderTag: "default", Start: time.UnixMilli(1699457638000)})
			return pageOf(rows, meta), err
		}, "/v1/client/trades", "order_tag=default&start_t=1699457638000&symbol=SPOT_LTC_USDT", "rest/v1_client_trades.recorded-2024.json", func(t *testing.T, v any) {
			p := v.(listing[Trade])
			expect(t, "total", *p.Meta.Total, "4")
			expect(t, "id", p.Rows[0].ID, "696230218")
			expect(t, "fee", p.Rows[0].Fee, "0.00354069")
		}},
		// Account.
		{RouteTokenConfig, func(ctx context.Context, c *Client) (any, error) { return c.TokenConfig(ctx) },
			"/v1/client/token", "", "synthetic/v1_client_token.json", func(t *testing.T, v any) {
				r := v.([]TokenConfig)
				expect(t, "collateral_ratio", r[0].CollateralRatio, "0.85")
				expect(t, "can_short", r[1].CanShort, "false")
				expect(t, "stable", r[1].Stable, "true")
			}},
		{RouteHolding, func(ctx context.Context, c *Client) (any, error) { return c.Holding(ctx) },
			"/v1/client/holding", "", "rest/v1_client_holding.json", func(t *testing.T, v any) {
				h := v.(map[string]decimal.Decimal)
				expect(t, "USDT", h["USDT"], "-26333.207589999998")
				expect(t, "BTC", h["BTC"], "1.014")
			}},
		{RouteHoldingV2, func(ctx context.Context, c *Client) (any, error) { return c.HoldingV2(ctx, true) },
			"/v2/client/holding", "all=true", "rest/v2_client_holding.json", func(t *testing.T, v any) {
				r := v.([]HoldingV2)
				expect(t, "outstanding_holding", r[0].OutstandingHolding, "-0.0008")
				expect(t, "updated_time", r[0].UpdatedTime, "1675220398000")
			}},
		{RouteAccountInfo, func(ctx context.Context, c *Client) (any, error) { return c.AccountInfo(ctx) },
			"/v1/client/info", "", "rest/v1_client_info.json", func(t *testing.T, v any) {
				a := v.(AccountInfo)
				expect(t, "account_mode", a.Application.AccountMode, "FUTURES")
				expect(t, "futures_leverage", a.Application.FuturesLeverage, "5")
				expect(t, "margin_rate", a.MarginRate, "1000")
			}},
		{RouteAccountInfo, func(ctx context.Context, c *Client) (any, error) { return c.AccountInfo(ctx) },
			"/v1/client/info", "", "rest/v1_client_info.ccxt-2022.json", func(t *testing.T, v any) {
				a := v.(AccountInfo)
				expect(t, "taker_fee_rate", a.Application.TakerFeeRate, "5")
				expect(t, "account_mode", a.Application.AccountMode, "PURE_SPOT")
			}},
		{RouteDepositAddress, func(ctx context.Context, c *Client) (any, error) { return c.DepositAddress(ctx, "ETH_USDT") },
			"/v1/asset/deposit", "token=ETH_USDT", "synthetic/v1_asset_deposit.json", func(t *testing.T, v any) {
				expect(t, "address", v.(DepositAddress).Address, "0x31d64B3230f8baDD91dE1710A65DF536aF8f7cDa")
			}},
		{RouteAssetHistory, func(ctx context.Context, c *Client) (any, error) {
			rows, meta, err := c.AssetHistory(ctx, AssetHistoryFilter{Type: "BALANCE", TokenSide: "DEPOSIT", BalanceToken: "USDT", Status: "COMPLETED"})
			return pageOf(rows, meta), err
		}, "/v1/asset/history", "balance_token=USDT&status=COMPLETED&token_side=DEPOSIT&type=BALANCE", "synthetic/v1_asset_history.json", func(t *testing.T, v any) {
			p := v.(listing[AssetHistory])
			if p.Meta.Total != nil {
				t.Errorf("meta without total decoded a total %v", *p.Meta.Total)
			}
			expect(t, "amount", p.Rows[0].Amount, "1000")
			expect(t, "fee_amount", p.Rows[0].FeeAmount, "null")
			expect(t, "application_id (null)", p.Rows[0].ApplicationID, "")
		}},
		{RouteAccountMode, func(ctx context.Context, c *Client) (any, error) { return nil, c.SetAccountMode(ctx, Futures) },
			"/v1/client/account_mode", "account_mode=FUTURES", "synthetic/success_only.json", nil},
		{RouteLeverage, func(ctx context.Context, c *Client) (any, error) {
			return nil, c.SetLeverage(ctx, LeverageRequest{Leverage: 20, Mode: Futures})
		}, "/v1/client/leverage", "leverage=20", "synthetic/success_only.json", nil},
		// Margin interest.
		{RouteInterestRates, func(ctx context.Context, c *Client) (any, error) { return c.InterestRates(ctx) },
			"/v1/token_interest", "", "synthetic/v1_token_interest.json", func(t *testing.T, v any) {
				r := v.([]MarginInterestRate)
				expect(t, "current_annual_base_rate", r[0].CurrentAnnualBaseRate, "0.876%")
				expect(t, "rate", r[0].CurrentAnnualBaseRate.Rate(), "0.00876")
			}},
		{RouteInterestRate, func(ctx context.Context, c *Client) (any, error) { return c.InterestRate(ctx, "btc") },
			"/v1/token_interest/BTC", "", "synthetic/v1_token_interest_token.json", func(t *testing.T, v any) {
				r := v.(MarginInterestRate)
				expect(t, "est_hourly_base_rate", r.EstHourlyBaseRate.Value, "0.0001")
				expect(t, "est_time", r.EstTime, "1632394800000")
			}},
		{RouteInterestHistory, func(ctx context.Context, c *Client) (any, error) {
			rows, meta, err := c.InterestHistory(ctx, InterestHistoryFilter{Token: "USDT", Side: "REPAY", Page: 3})
			return pageOf(rows, meta), err
		}, "/v1/interest/history", "page=3&side=REPAY&token=USDT", "synthetic/v1_interest_history.json", func(t *testing.T, v any) {
			p := v.(listing[InterestHistory])
			expect(t, "interest", p.Rows[0].Interest, "0.0123456")
			expect(t, "side", p.Rows[1].Side, "LOAN")
		}},
		{RouteRepayInterest, func(ctx context.Context, c *Client) (any, error) {
			return nil, c.RepayInterest(ctx, "USDT", dec("12.5"))
		}, "/v1/interest/repay", "amount=12.5&token=USDT", "synthetic/success_only.json", nil},
		// Futures.
		{RouteFundingFeeHistory, func(ctx context.Context, c *Client) (any, error) {
			rows, meta, err := c.FundingFeeHistory(ctx, FundingFeeFilter{Symbol: "PERP_BTC_USDT"})
			return pageOf(rows, meta), err
		}, "/v1/funding_fee/history", "symbol=PERP_BTC_USDT", "synthetic/v1_funding_fee_history.json", func(t *testing.T, v any) {
			p := v.(listing[FundingFee])
			expect(t, "funding_fee", p.Rows[0].FundingFee, "0.18")
			expect(t, "payment_type", p.Rows[0].PaymentType, "Pay")
		}},
		{RoutePositions, func(ctx context.Context, c *Client) (any, error) { return c.Positions(ctx) },
			"/v1/positions", "", "rest/v1_positions.json", func(t *testing.T, v any) {
				p := v.(Positions)
				expect(t, "current_margin_ratio", p.CurrentMarginRatio, "0.8")
				expect(t, "free_collateral", p.FreeCollateral, "80")
				expect(t, "holding", p.Positions[0].Holding, "1.23")
				expect(t, "est_liq_price", p.Positions[0].EstLiqPrice, "40000")
			}},
		{RoutePositions, func(ctx context.Context, c *Client) (any, error) { return c.Positions(ctx) },
			"/v1/positions", "", "rest/v1_positions.ccxt-2022.json", func(t *testing.T, v any) {
				p := v.(Positions)
				expect(t, "mark_price", p.Positions[0].MarkPrice, "22.68")
				expect(t, "timestamp", p.Positions[0].Timestamp, "1652231044920")
			}},
		{RoutePosition, func(ctx context.Context, c *Client) (any, error) { return c.Position(ctx, "PERP_BTC_USDT") },
			"/v1/position/PERP_BTC_USDT", "", "rest/v1_position_symbol.json", func(t *testing.T, v any) {
				p := v.(Position)
				expect(t, "pending_short_qty", p.PendingShortQty, "0.23")
				expect(t, "pnl_24_h", p.PnL24h, "20")
			}},
		// Subaccounts.
		{RouteSubAccounts, func(ctx context.Context, c *Client) (any, error) { return c.SubAccounts(ctx) },
			"/v1/sub_account/all", "", "synthetic/v1_sub_account_all.json", func(t *testing.T, v any) {
				r := v.([]SubAccount)
				expect(t, "account", r[0].Account, "2")
				expect(t, "created_time", r[1].CreatedTime, "1606897312563")
			}},
		{RouteSubAccountAssets, func(ctx context.Context, c *Client) (any, error) { return c.SubAccountAssets(ctx) },
			"/v1/sub_account/assets", "", "synthetic/v1_sub_account_assets.json", func(t *testing.T, v any) {
				expect(t, "usdt_balance", v.([]SubAccountAssets)[1].USDTBalance, "1240.21")
			}},
		{RouteSubAccountDetail, func(ctx context.Context, c *Client) (any, error) {
			return c.SubAccountAssetDetail(ctx, "6b43de5c-0955-4887-9862-d84e4689f9fe")
		}, "/v1/sub_account/asset_detail", "application_id=6b43de5c-0955-4887-9862-d84e4689f9fe", "synthetic/v1_sub_account_asset_detail.json", func(t *testing.T, v any) {
			d := v.(SubAccountAssetDetail)
			expect(t, "WOO holding", d.Balances["WOO"].Holding, "4172706.29647137")
			expect(t, "WOO staked", d.Balances["WOO"].Staked, "51370692")
			expect(t, "account", d.Account, "Main")
		}},
		{RouteIPRestriction, func(ctx context.Context, c *Client) (any, error) {
			rows, meta, err := c.IPRestrictions(ctx, IPRestrictionFilter{APIKey: "75KX9j4tOQg7eSUbhIxNqQ=="})
			return pageOf(rows, meta), err
		}, "/v1/sub_account/ip_restriction", "api_key=75KX9j4tOQg7eSUbhIxNqQ%3D%3D", "synthetic/v1_sub_account_ip_restriction.json", func(t *testing.T, v any) {
			p := v.(listing[IPRestriction])
			expect(t, "ip_list", p.Rows[0].IPList, "60.248.33.61,1.2.3.4")
			expect(t, "restrict", p.Rows[0].Restrict, "true")
		}},
		{RouteTransferHistory, func(ctx context.Context, c *Client) (any, error) {
			rows, meta, err := c.TransferHistory(ctx, TransferFilter{Page: 1})
			return pageOf(rows, meta), err
		}, "/v1/asset/main_sub_transfer_history", "page=1", "synthetic/v1_asset_main_sub_transfer_history.json", func(t *testing.T, v any) {
			p := v.(listing[Transfer])
			expect(t, "records_per_page", p.Meta.RecordsPerPage, "5")
			expect(t, "amount", p.Rows[0].Amount, "1000000")
			expect(t, "to_user", p.Rows[0].ToUser, "dev")
		}},
		{RouteTransfer, func(ctx context.Context, c *Client) (any, error) {
			return c.Transfer(ctx, TransferRequest{Token: "USDT", Amount: dec("1000"),
				FromApplicationID: "0f1bd3cd-dba2-4563-b8bb-0adb1bfb83a3", ToApplicationID: "c01e6940-a735-4022-9b6c-9d3971cdfdfa"})
		}, "/v1/asset/main_sub_transfer", // the body ccxt's static request test expects for this call
			"amount=1000&from_application_id=0f1bd3cd-dba2-4563-b8bb-0adb1bfb83a3&to_application_id=c01e6940-a735-4022-9b6c-9d3971cdfdfa&token=USDT",
			"synthetic/v1_asset_main_sub_transfer.json", func(t *testing.T, v any) {
				expect(t, "id", v.(int64), "200")
			}},
	}
}

// listing bundles the two results of a paged method.
type listing[T any] struct {
	Rows []T
	Meta Meta
}

func pageOf[T any](rows []T, meta Meta) listing[T] { return listing[T]{rows, meta} }

// TestEveryEndpoint calls every endpoint against a loopback server and
// checks the request on the wire and the decoded reply, for the reply as
// recorded, with all numbers as strings, and with numeric strings as
// numbers.
func TestEveryEndpoint(t *testing.T) {
	lb := newLoopback(t)
	clk := newFakeClock(true)
	c := newTestClient(lb, clk, WithLimiter(nil))
	keyless := NewClient(lb.endpoints(), Credentials{}, WithClock(clk), WithLimiter(nil))
	covered := map[string]bool{}
	for _, tc := range endpointCases() {
		covered[tc.route.Name] = true
		t.Run(tc.route.Name+"/"+tc.reply, func(t *testing.T) {
			var first any
			for _, enc := range []string{"original", "strings", "numbers"} {
				body := encodings(t, testkit.ReadTestdata(t, tc.reply))[enc]
				lb.answer(reply{status: 200, body: body})
				clk.Advance(time.Millisecond)
				client := c
				if keylessRoutes[tc.route] {
					client = keyless
				}
				v, err := tc.call(context.Background(), client)
				if err != nil {
					t.Fatalf("%s encoding: %v", enc, err)
				}
				reqs := lb.requests()
				if len(reqs) != 1 {
					t.Fatalf("%d requests, want 1", len(reqs))
				}
				prefix := "/base"
				if tc.route.History {
					prefix = "/hist"
				}
				if keylessRoutes[tc.route] {
					checkUnsigned(t, reqs[0], prefix+tc.path, tc.params)
				} else {
					checkSigned(t, reqs[0], tc.route.Method, prefix+tc.path, tc.params, clk.Now())
				}
				if enc == "original" {
					first = v
					if tc.check != nil {
						tc.check(t, v)
					}
				} else if !reflect.DeepEqual(v, first) {
					t.Errorf("%s encoding decoded differently:\n got %+v\nwant %+v", enc, v, first)
				}
			}
		})
	}
	for _, r := range Routes {
		if !covered[r.Name] {
			t.Errorf("endpoint %s (%s %s) has no test", r.Name, r.Method, r.Path)
		}
	}
}
