package feed

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"tradedeck/venue"
)

// A venue that cannot be reached for the symbol rules must show as
// reconnecting with the reason, not as "connecting" forever.
func TestRulesUnavailableShowsReconnecting(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "bad gateway", http.StatusBadGateway)
	}))
	defer srv.Close()
	ep := venue.Endpoints{BaseURL: srv.URL, WSMarketURL: strings.Replace(srv.URL, "http", "ws", 1)}
	f := New(Config{Endpoints: ep, REST: venue.NewClient(ep, venue.Credentials{ApplicationID: "app"}), Symbol: "SPOT_BTC_USDT"})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	go func() { _ = f.Run(ctx) }()
	for {
		select {
		case u := <-f.Updates():
			for _, h := range u.Health {
				if h.Stream == StreamMarket && h.State == Reconnecting {
					if h.RetryIn <= 0 || !strings.Contains(h.Err, "symbol rules") || !strings.Contains(h.Err, "502") {
						t.Fatalf("reconnecting without a reason or delay: %+v", h)
					}
					return
				}
			}
		case <-ctx.Done():
			t.Fatal("the market stream never showed reconnecting while the symbol rules failed")
		}
	}
}
