package replay

import (
	"fmt"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strings"
)

// A replay may carry a paper account: a venue on loopback (the
// simulator following this replay's market) that holds the account's
// orders, balances and positions. With one attached, the requests of the
// account (every signed read, every order and cancel) and the private
// stream go to it; the market (public reads, the market stream) stays the
// recording's. Nothing is ever forwarded anywhere but that loopback venue.

// AttachPaper sends the account's requests and the private stream to the
// paper venue at base (http://127.0.0.1:PORT).
func (s *Server) AttachPaper(base string) error {
	u, err := url.Parse(base)
	if err != nil || u.Scheme != "http" || !loopbackHost(u.Hostname()) {
		return fmt.Errorf("replay: a paper venue must be on loopback over http, not %q", base)
	}
	p := httputil.NewSingleHostReverseProxy(u) // forwards Websocket upgrades too
	s.mu.Lock()
	s.paper = p
	s.mu.Unlock()
	return nil
}

func loopbackHost(h string) bool {
	return h == "127.0.0.1" || h == "::1" || h == "localhost"
}

// paperFor is the paper venue that answers r (nil: the recording does).
func (s *Server) paperFor(r *http.Request, private bool) http.Handler {
	s.mu.Lock()
	p := s.paper
	s.mu.Unlock()
	if p == nil || (!private && marketPath(r.Method, r.URL.Path)) {
		return nil
	}
	return p
}

// marketPath: a read of the market, answered from the recording.
func marketPath(method, path string) bool {
	if method != http.MethodGet {
		return false
	}
	return strings.HasPrefix(path, "/v1/public/") || strings.HasPrefix(path, "/v1/orderbook/") ||
		path == "/v1/kline" || strings.HasPrefix(path, "/stats")
}
