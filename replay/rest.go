package replay

import (
	"net/http"
	"strconv"
	"strings"

	"tradedeck/record"
)

func (s *Server) routes(mux *http.ServeMux) {
	mux.HandleFunc("/ws/stream/", s.serveStream(false))
	private := s.serveStream(true)
	mux.HandleFunc("/v2/ws/private/stream/", func(w http.ResponseWriter, r *http.Request) {
		if p := s.paperFor(r, true); p != nil {
			p.ServeHTTP(w, r)
			return
		}
		private(w, r)
	})
	mux.HandleFunc("/", s.serveREST)
}

// serveREST answers a REST request from the state at the playback
// position: the order book from the newest recorded full book, anything
// else from the newest recorded reply to the same request. Orders and
// every other change are refused: nothing trades in a replay, unless a
// paper account is attached (AttachPaper): then it answers every request
// but the market's.
func (s *Server) serveREST(w http.ResponseWriter, r *http.Request) {
	if p := s.paperFor(r, false); p != nil {
		p.ServeHTTP(w, r)
		return
	}
	if r.Method != http.MethodGet {
		writeError(w, http.StatusForbidden, -1002, "trading is disabled in a replay")
		return
	}
	key := normalizeKey(record.RequestKey(r.Method, r.URL.Path, r.URL.RawQuery))
	s.mu.Lock()
	var body []byte
	if sym, ok := strings.CutPrefix(pathOf(key), "/v1/orderbook/"); ok {
		body = s.state.bookReply(sym)
	} else {
		body = s.state.rest[key]
	}
	s.mu.Unlock()
	if body == nil {
		writeError(w, http.StatusNotFound, -1003, "not in the recording: "+key)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(body) // a client gone mid-reply has nothing to hear
}

func writeError(w http.ResponseWriter, status, code int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write([]byte(`{"success":false,"code":` + strconv.Itoa(code) + `,"message":` + strconv.Quote(msg) + `}`)) // as above
}
