// Package rest serves the simulated venue's REST API (the WOO X v1/v2 REST
// API, https://docs.woox.io/; docs/sim.md says what is served) over
// an *exchange.Exchange: signed requests checked as the real venue checks
// them, its rate limits, parameters, paging and reply shapes, with numbers
// as JSON numbers or, on request, as strings like recorded real replies.
package rest

import (
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"tradedeck/sim/exchange"
	"tradedeck/venue"
)

// Options configure the REST server.
type Options struct {
	StringNumbers bool             // every number as a JSON string
	Clock         func() time.Time // nil: the exchange's clock
	NoRateLimits  bool             // for load tests of the venue itself
	TimestampSkew time.Duration    // allowed request time difference; 0: the venue's 300 s
	Logger        *slog.Logger     // requests are logged at debug level; nil: not at all
	// StrictParams refuses unknown parameters on reads too (-1004), for
	// testing clients; by default reads ignore them, as the real venue does.
	// Writes always refuse them: an ignored order parameter would trade
	// differently from what the client meant.
	StrictParams bool
	// OrderLatency holds every new order this long before it meets the
	// book (a paper venue's stand-in for the way to a real one).
	OrderLatency time.Duration
}

// Server is the REST API.
type Server struct {
	ex      *exchange.Exchange
	opts    Options
	limits  *limiter
	now     func() time.Time
	symbols map[string]bool // listed symbols: only these key a rate-limit counter
	held    atomic.Int64    // orders waiting out OrderLatency
}

// New creates the REST server for ex.
func New(ex *exchange.Exchange, opts Options) *Server {
	s := &Server{ex: ex, opts: opts, limits: newLimiter(), now: opts.Clock, symbols: map[string]bool{}}
	for _, sym := range ex.Symbols() {
		s.symbols[sym] = true
	}
	if s.now == nil {
		s.now = func() time.Time { return time.UnixMilli(ex.Now()) }
	}
	if s.opts.TimestampSkew <= 0 {
		s.opts.TimestampSkew = 300 * time.Second
	}
	return s
}

// access is who may call an endpoint.
type access int

const (
	public   access = iota // no signature; limited per IP
	private                // signed by any key
	mainOnly               // signed by a main account's key
)

type handler func(c *call) (obj, error)

type route struct {
	method, path string
	access       access
	limit        limit
	params       []string // every accepted parameter name
	h            handler
}

// Register mounts every endpoint on mux: the REST API at its paths and the
// historical kline under histPrefix (the public history base URL's path).
// Every path no handler on mux claims (/v3/balances, /, a wrong method on
// a known path) gets the venue's JSON 404 with -1006, not net/http's
// plain-text "404 page not found": clients parse every error body as JSON.
// Handlers mounted later on mux (Websocket streams, swap stats) are more
// specific and still win.
func (s *Server) Register(mux *http.ServeMux, histPrefix string) {
	for _, r := range s.routes(histPrefix) {
		mux.Handle(r.method+" "+r.path, s.wrap(r))
	}
	mux.HandleFunc("/", s.notFound)
}

func (s *Server) notFound(w http.ResponseWriter, r *http.Request) {
	s.writeError(w, http.StatusNotFound, &exchange.Error{Code: venue.CodeResourceNotFound, Message: "no endpoint " + r.Method + " " + r.URL.Path})
}

// call is one request being served.
type call struct {
	s       *Server
	r       *http.Request
	params  url.Values
	account *exchange.Account
	apiKey  string
}

func (s *Server) wrap(rt route) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c := &call{s: s, r: r}
		start := time.Now()
		defer func() {
			// a bug must cost one request a -1000 reply, never the connection or the venue
			if p := recover(); p != nil {
				if s.opts.Logger != nil {
					s.opts.Logger.Error("rest: handler panic", "method", r.Method, "path", r.URL.Path, "panic", p)
				}
				s.fail(w, &exchange.Error{Code: venue.CodeUnknown, Message: "internal error"})
			}
		}()
		err := s.serve(c, rt, w)
		if err != nil {
			s.fail(w, err)
		}
		s.logRequest(c, start, err)
	})
}

func (s *Server) serve(c *call, rt route, w http.ResponseWriter) error {
	params, raw, err := readParams(c.r)
	if err != nil {
		return err
	}
	c.params = params
	if rt.access != public {
		if err := s.authenticate(c, raw); err != nil {
			return err
		}
		if rt.access == mainOnly && !c.account.IsMain() {
			return &exchange.Error{Code: venue.CodeUnauthorized, Message: "this endpoint is for main accounts only"}
		}
	}
	if err := s.unknownParams(c, rt); err != nil {
		return err
	}
	if err := s.rateLimit(c, rt); err != nil {
		return err
	}
	body, err := rt.h(c)
	if rt.access != public {
		// what the reply acknowledges, or shows of an account (a fill the
		// market made, read back), must survive a crash: wait for the journal
		if derr := s.ex.Durable(); derr != nil {
			return &exchange.Error{Code: venue.CodeUnknown, Message: "the venue could not record the change durably: " + derr.Error()}
		}
	}
	if err != nil {
		return err
	}
	s.write(w, http.StatusOK, append(obj{{"success", true}}, body...))
	return nil
}

// unknownParams refuses parameters the route does not take, or on reads
// (unless StrictParams) drops them: they were signed over, and are ignored.
func (s *Server) unknownParams(c *call, rt route) error {
	for name := range c.params {
		if slices.Contains(rt.params, name) {
			continue
		}
		if rt.method != http.MethodGet || s.opts.StrictParams {
			return &exchange.Error{Code: venue.CodeUnknownParam, Message: "unknown parameter " + name}
		}
		delete(c.params, name)
	}
	return nil
}

func (s *Server) rateLimit(c *call, rt route) error {
	if s.opts.NoRateLimits || (c.account != nil && c.account.Internal()) {
		return nil
	}
	l := rt.limit
	var key string
	switch l.scope {
	case perIP:
		key = clientIP(c.r)
	case perKey:
		key = c.apiKey
	case perSymbol:
		// an unlisted symbol (refused by the handler) shares one counter per key
		key = c.apiKey + "|"
		if sym := c.params.Get("symbol"); s.symbols[sym] {
			key += sym
		}
	case perUser:
		key = c.account.ApplicationID()
	}
	ok, wait := s.limits.allow(l, l.name+"|"+key, s.now().UnixMilli())
	if !ok {
		return &exchange.Error{Code: venue.CodeTooManyRequest, Message: "rate limit " + l.name + " exceeded: " +
			strconv.Itoa(l.n) + " per " + l.window.String() + "; retry in " + wait.Round(time.Millisecond).String()}
	}
	return nil
}

// maxBody bounds a request body; venue requests are small forms.
const maxBody = 1 << 16

// Bounds of one parameter: the longest the venue takes is an address (128).
const (
	maxParamName  = 64
	maxParamValue = 256
)

// readParams collects the request's parameters: the query string, plus
// for POST and DELETE the form-encoded body (DELETE parameters may come in
// either, as known clients differ). A JSON object body is accepted too.
// raw is the parameter text as received, for signature checks.
func readParams(r *http.Request) (url.Values, []string, error) {
	params := url.Values{}
	var raws []string
	add := func(text string) error {
		vals, err := url.ParseQuery(text)
		if err != nil {
			return &exchange.Error{Code: venue.CodeInvalidParam, Message: "malformed parameters"}
		}
		for k, v := range vals {
			if len(k) > maxParamName || len(v[0]) > maxParamValue {
				return &exchange.Error{Code: venue.CodeInvalidParam, Message: "parameter too long: names up to " +
					strconv.Itoa(maxParamName) + " and values up to " + strconv.Itoa(maxParamValue) + " characters"}
			}
			if len(v) > 1 || params.Has(k) {
				return &exchange.Error{Code: venue.CodeInvalidParam, Message: "parameter " + k + " given more than once"}
			}
			params[k] = v
		}
		if text != "" {
			raws = append(raws, text)
		}
		return nil
	}
	if err := add(r.URL.RawQuery); err != nil {
		return nil, nil, err
	}
	if r.Method == http.MethodPost || r.Method == http.MethodDelete || r.Method == http.MethodPut {
		body, err := io.ReadAll(io.LimitReader(r.Body, maxBody+1))
		if err != nil {
			return nil, nil, &exchange.Error{Code: venue.CodeInvalidParam, Message: "cannot read the request body"}
		}
		if len(body) > maxBody {
			return nil, nil, &exchange.Error{Code: venue.CodeInvalidParam, Message: "request body too large"}
		}
		text := strings.TrimSpace(string(body))
		if strings.HasPrefix(text, "{") {
			text, err = jsonToForm(text)
			if err != nil {
				return nil, nil, err
			}
		}
		if err := add(text); err != nil {
			return nil, nil, err
		}
	}
	return params, raws, nil
}

// jsonToForm turns a flat JSON object into form text.
func jsonToForm(text string) (string, error) {
	dec := json.NewDecoder(strings.NewReader(text))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil {
		return "", &exchange.Error{Code: venue.CodeInvalidParam, Message: "malformed JSON body"}
	}
	vals := url.Values{}
	for k, v := range m {
		switch x := v.(type) {
		case string:
			vals.Set(k, x)
		case json.Number:
			vals.Set(k, x.String())
		case bool:
			vals.Set(k, strconv.FormatBool(x))
		default:
			return "", &exchange.Error{Code: venue.CodeInvalidParam, Message: "parameter " + k + " must be a string or number"}
		}
	}
	return venue.CanonicalParams(vals), nil
}

// authenticate checks the key, its revocation and IP allow-list, the
// timestamp window and the signature, as the venue does.
func (s *Server) authenticate(c *call, raws []string) error {
	key := c.r.Header.Get(venue.HeaderKey)
	sig := c.r.Header.Get(venue.HeaderSignature)
	tsText := c.r.Header.Get(venue.HeaderTimestamp)
	switch {
	case key == "" || sig == "" || tsText == "":
		return &exchange.Error{Code: venue.CodeUnauthorized, Message: "x-api-key, x-api-timestamp and x-api-signature are required"}
	case len(key) > 128 || strings.ContainsAny(key, " \t\r\n"):
		return &exchange.Error{Code: venue.CodeInvalidSignature, Message: "api key in wrong format"}
	case !isHex64(sig):
		return &exchange.Error{Code: venue.CodeInvalidSignature, Message: "signature must be 64 hexadecimal digits"}
	}
	ts, err := strconv.ParseInt(tsText, 10, 64)
	if err != nil {
		return &exchange.Error{Code: venue.CodeInvalidSignature, Message: "x-api-timestamp must be milliseconds since the epoch"}
	}
	info, ok := s.ex.LookupKey(key)
	if !ok {
		return &exchange.Error{Code: venue.CodeUnauthorized, Message: "api key invalid"}
	}
	if info.Revoked {
		return &exchange.Error{Code: venue.CodeUnauthorized, Message: "api key revoked"}
	}
	if len(info.IPs) > 0 && !slices.Contains(info.IPs, clientIP(c.r)) {
		return &exchange.Error{Code: venue.CodeUnauthorized, Message: "request IP not allowed for this api key"}
	}
	skew := s.now().UnixMilli() - ts
	if skew < 0 {
		skew = -skew
	}
	if skew >= s.opts.TimestampSkew.Milliseconds() {
		return &exchange.Error{Code: venue.CodeUnauthorized, Message: "request timestamp expired"}
	}
	if !signatureOK(info.Secret, c.params, raws, ts, sig) {
		return &exchange.Error{Code: venue.CodeInvalidSignature, Message: "signature mismatch"}
	}
	c.account, c.apiKey = info.Account, key
	return nil
}

// signatureOK accepts a signature over the received parameters in their
// canonical form (sorted, form-encoded as venue.CanonicalParams writes
// them) or over the received text itself with its pairs sorted, so clients
// that encode characters differently still verify.
func signatureOK(secret string, params url.Values, raws []string, ts int64, sig string) bool {
	if venue.VerifySignature(secret, venue.CanonicalParams(params), ts, sig) {
		return true
	}
	var pairs []string
	for _, raw := range raws {
		for p := range strings.SplitSeq(raw, "&") {
			if p != "" {
				pairs = append(pairs, p)
			}
		}
	}
	if len(pairs) == 0 {
		return false
	}
	sort.SliceStable(pairs, func(i, j int) bool { return pairName(pairs[i]) < pairName(pairs[j]) })
	return venue.VerifySignature(secret, strings.Join(pairs, "&"), ts, sig)
}

func pairName(p string) string {
	name, _, _ := strings.Cut(p, "=")
	if n, err := url.QueryUnescape(name); err == nil {
		return n
	}
	return name
}

func isHex64(s string) bool {
	if len(s) != 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
			return false
		}
	}
	return true
}

func clientIP(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}

func (s *Server) fail(w http.ResponseWriter, err error) {
	var ve *exchange.Error
	if !errors.As(err, &ve) {
		ve = &exchange.Error{Code: venue.CodeUnknown, Message: "internal error"}
	}
	s.writeError(w, ve.Code.Info().HTTPStatus, ve)
}

func (s *Server) writeError(w http.ResponseWriter, status int, e *exchange.Error) {
	s.write(w, status, obj{{"success", false}, {"code", int(e.Code)}, {"message", e.Message}})
}

func (s *Server) write(w http.ResponseWriter, status int, body obj) {
	enc := encoder{strNumbers: s.opts.StringNumbers}
	enc.value(body)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(enc.buf)
}

// logRequest writes one debug line per request: never parameters,
// headers or signatures, only what identifies the call and its outcome.
func (s *Server) logRequest(c *call, start time.Time, err error) {
	if s.opts.Logger == nil || !s.opts.Logger.Enabled(c.r.Context(), slog.LevelDebug) {
		return
	}
	attrs := []any{"method", c.r.Method, "path", c.r.URL.Path, "from", clientIP(c.r), "took", time.Since(start).Round(time.Microsecond)}
	if c.account != nil {
		attrs = append(attrs, "account", c.account.Name())
	}
	var ve *exchange.Error
	if errors.As(err, &ve) {
		attrs = append(attrs, "code", int(ve.Code), "status", ve.Code.Info().HTTPStatus)
	} else if err == nil {
		attrs = append(attrs, "status", http.StatusOK)
	}
	s.opts.Logger.Debug("rest", attrs...)
}
