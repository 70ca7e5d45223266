// Package swapstats is the simulator's swap statistics service: GET /stat and
// GET /source_stat as described in docs/stats.md, with deterministic,
// plausible and self-consistent series for six networks and six periods.
//
// It is a real HTTP handler; mount it anywhere (the sim serves it under
// /woofi with http.StripPrefix) and talk to it over a socket.
package swapstats

import (
	"math/rand/v2"
	"net"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// TxCount says how trade counts are spelled: the documented "txs", the newer
// "txns", or both at once (the recorded real sample carries both).
type TxCount string

const (
	TxsField  TxCount = "txs"
	TxnsField TxCount = "txns"
	BothField TxCount = "both"
)

// Wire chooses between the encodings real servers have been seen to use.
type Wire struct {
	TxCount TxCount
	// NumbersAsJSON sends ids, timestamps, counts and volumes as bare JSON
	// numbers instead of strings.
	NumbersAsJSON bool
}

// DefaultRateLimit is the public service's limit, per client IP.
const DefaultRateLimit = 120

// Server serves the statistics. It is safe for concurrent use.
type Server struct {
	seed  int64
	clock func() time.Time

	mu      sync.Mutex
	wire    Wire
	series  map[string]*series
	limiter *limiter
}

// New returns a server whose numbers depend only on seed and on the time
// clock reports (complete hours and days before it are served).
func New(seed int64, clock func() time.Time) *Server {
	if clock == nil {
		clock = time.Now
	}
	s := &Server{seed: seed, clock: clock, wire: Wire{TxCount: TxsField}, series: map[string]*series{}}
	s.limiter = newLimiter(DefaultRateLimit, time.Now)
	for _, n := range Networks {
		s.series[n] = newSeries(seed, n)
	}
	return s
}

// SetWire changes the encoding of later replies.
func (s *Server) SetWire(w Wire) {
	if w.TxCount == "" {
		w.TxCount = TxsField
	}
	s.mu.Lock()
	s.wire = w
	s.mu.Unlock()
}

// SetRateLimit sets the requests allowed per minute and client IP; 0 or less
// disables the limit.
func (s *Server) SetRateLimit(perMinute int) {
	s.mu.Lock()
	s.limiter = newLimiter(perMinute, time.Now)
	s.mu.Unlock()
}

// Handler serves GET /stat and GET /source_stat.
func (s *Server) Handler() http.Handler { return http.HandlerFunc(s.serveHTTP) }

func (s *Server) serveHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	wire, lim := s.wire, s.limiter
	s.mu.Unlock()
	var route func(*http.Request, Wire, []byte) ([]byte, *apiError)
	switch r.URL.Path {
	case "/stat":
		route = s.stat
	case "/source_stat":
		route = s.sourceStat
	default:
		writeError(w, http.StatusNotFound, "no such endpoint: "+r.URL.Path)
		return
	}
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET")
		writeError(w, http.StatusMethodNotAllowed, "method "+r.Method+" not allowed, use GET")
		return
	}
	if wait, ok := lim.allow(clientIP(r)); !ok {
		w.Header().Set("Retry-After", strconv.Itoa(int((wait+time.Second-1)/time.Second)))
		writeError(w, http.StatusTooManyRequests, "rate limit exceeded: "+strconv.Itoa(lim.perMinute)+" requests per minute")
		return
	}
	body, apiErr := route(r, wire, make([]byte, 0, 4096))
	if apiErr != nil {
		writeError(w, apiErr.status, apiErr.msg)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(body) // a client gone mid-reply has nothing to be told
}

type apiError struct {
	status int
	msg    string
}

func badRequest(msg string) *apiError { return &apiError{http.StatusBadRequest, msg} }

func writeError(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	b := append([]byte(`{"status":"error","message":`), strconv.Quote(msg)...)
	_, _ = w.Write(append(b, '}')) // as in reply: the client may be gone
}

func clientIP(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}

// params reads and checks network and period. For /source_stat an empty
// network means every network together.
func params(r *http.Request, networkRequired bool) (network, period string, e *apiError) {
	q := r.URL.Query()
	network = strings.ToLower(q.Get("network"))
	period = q.Get("period")
	if period == "" {
		period = "1m"
	}
	switch {
	case network == "" && networkRequired:
		return "", "", badRequest("network is required: one of " + strings.Join(Networks, ", "))
	case network != "" && !slices.Contains(Networks, network):
		return "", "", badRequest("unknown network " + strconv.Quote(network) + ": one of " + strings.Join(Networks, ", "))
	case !slices.Contains(Periods, period):
		return "", "", badRequest("unknown period " + strconv.Quote(period) + ": one of " + strings.Join(Periods, ", "))
	}
	return network, period, nil
}

// lastHours returns the 24 complete hours before now. Hours of the current
// day come from the day's full totals (generated ahead, not committed), and
// only elapsed ones are served, so sums agree once the day shows as a row.
func (s *Server) lastHours(network string, now int64) []hourStat {
	to := now - now%3600
	from := to - 24*3600
	ser := s.series[network]
	ser.upTo(to)
	out := make([]hourStat, 0, 24)
	for start := from - from%86400; start < to; start += 86400 {
		d, ok := ser.dayAt(start)
		if !ok {
			continue
		}
		for _, h := range ser.hours(d) {
			if h.start >= from && h.start < to {
				out = append(out, h)
			}
		}
	}
	return out
}

// dayAt returns the day starting at start: a committed one, or the next one
// generated without advancing the walks (so committing it later gives the
// same numbers).
func (s *series) dayAt(start int64) (dayStat, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	launch := s.prof.launch.Unix()
	if start < launch {
		return dayStat{}, false
	}
	i := int((start - launch) / 86400)
	switch {
	case i < len(s.days):
		return s.days[i], true
	case i > len(s.days):
		return dayStat{}, false
	}
	pcg := *s.pcg
	lv, lt, ls := s.logVol, s.logTVL, s.logSize
	d := s.nextDay(start)
	*s.pcg = pcg
	s.logVol, s.logTVL, s.logSize = lv, lt, ls
	return d, true
}

// lastDays returns the complete days of a daily period.
func (s *Server) lastDays(network, period string, now int64) []dayStat {
	days := s.series[network].upTo(now)
	if n, ok := periodDays[period]; ok && len(days) > n {
		days = days[len(days)-n:]
	}
	return days
}

func (s *Server) stat(r *http.Request, wire Wire, b []byte) ([]byte, *apiError) {
	network, period, e := params(r, true)
	if e != nil {
		return nil, e
	}
	now := s.clock().Unix()
	b = append(b, `{"status":"ok","data":[`...)
	if period == "1d" {
		for i, h := range s.lastHours(network, now) {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendRow(b, wire, h.start/3600, h.start, h.volume, h.traders, h.txs, -1)
		}
	} else {
		for i, d := range s.lastDays(network, period, now) {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendRow(b, wire, d.start/86400, d.start, d.volume, d.traders, d.txs, d.turnover)
		}
	}
	return append(b, "]}"...), nil
}

// appendRow writes one /stat record; turnover < 0 means the hourly shape.
func appendRow(b []byte, wire Wire, id, ts, volume, traders, txs, turnover int64) []byte {
	b = append(b, `{"id":`...)
	b = appendInt(b, wire, id)
	b = append(b, `,"timestamp":`...)
	b = appendInt(b, wire, ts)
	b = append(b, `,"volume_usd":`...)
	b = appendVolume(b, wire, volume)
	b = append(b, `,"traders":`...)
	b = appendInt(b, wire, traders)
	b = appendTxs(b, wire, txs, wire.NumbersAsJSON)
	if turnover >= 0 {
		b = append(b, `,"turnover_rate_percentage":`...)
		b = appendScaled(b, turnover, 4)
	}
	return append(b, '}')
}

func appendTxs(b []byte, wire Wire, txs int64, bare bool) []byte {
	for _, name := range [...]TxCount{TxsField, TxnsField} {
		if wire.TxCount == name || wire.TxCount == BothField {
			b = append(b, `,"`...)
			b = append(b, name...)
			b = append(b, `":`...)
			b = appendInt(b, Wire{NumbersAsJSON: bare}, txs)
		}
	}
	return b
}

func appendInt(b []byte, wire Wire, v int64) []byte {
	if wire.NumbersAsJSON {
		return strconv.AppendInt(b, v, 10)
	}
	b = append(b, '"')
	b = strconv.AppendInt(b, v, 10)
	return append(b, '"')
}

// appendVolume writes micro-USD as USD x 10^18: the digits followed by twelve
// zeros, exact and never through a float.
func appendVolume(b []byte, wire Wire, micro int64) []byte {
	if !wire.NumbersAsJSON {
		b = append(b, '"')
	}
	b = strconv.AppendInt(b, micro, 10)
	if micro != 0 {
		b = append(b, "000000000000"...)
	}
	if !wire.NumbersAsJSON {
		b = append(b, '"')
	}
	return b
}

// appendScaled writes v/10^dec as a JSON number with trailing zeros trimmed.
func appendScaled(b []byte, v int64, dec int) []byte {
	if v < 0 {
		b = append(b, '-')
		v = -v
	}
	p := int64(1)
	for range dec {
		p *= 10
	}
	b = strconv.AppendInt(b, v/p, 10)
	frac := v % p
	if frac == 0 {
		return b
	}
	digits := strconv.FormatInt(frac+p, 10)[1:]
	return append(b, "."+strings.TrimRight(digits, "0")...)
}

// source is one route volume arrives through.
type source struct {
	id, name string
	weight   float64 // typical share
}

var sources = []source{
	{"1", "WOOFi", 0.9}, {"2", "1inch", 1.3}, {"3", "0x", 0.7}, {"4", "ParaSwap", 0.6},
	{"5", "OpenOcean", 0.45}, {"6", "KyberSwap", 0.4}, {"7", "Odos", 0.35}, {"8", "LI.FI", 0.2},
	{"9", "Firebird", 0.12}, {"10", "Others", 0.25},
}

// sourceShares returns the source weights of a network in a period: fixed
// per (seed, network) with a period-dependent drift, so shorter periods
// differ a little from longer ones; some sources are absent on some networks.
func (s *Server) sourceShares(network, period string) []float64 {
	ser := s.series[network]
	r := rand.New(rand.NewPCG(ser.seed, 0x50c))
	drift := rand.New(rand.NewPCG(ser.seed, uint64(slices.Index(Periods, period))+1))
	w := make([]float64, len(sources))
	for i, src := range sources {
		base := src.weight * (0.4 + 1.2*r.Float64())
		if src.name != "WOOFi" && src.name != "Others" && r.Float64() < 0.15 {
			base = 0 // this aggregator does not route on this network
		}
		w[i] = base * (0.85 + 0.3*drift.Float64())
	}
	return w
}

type sourceRow struct {
	src    source
	volume int64
	txs    int64
	pct    int64 // hundredths of a percent
}

func (s *Server) sourceStat(r *http.Request, wire Wire, b []byte) ([]byte, *apiError) {
	network, period, e := params(r, false)
	if e != nil {
		return nil, e
	}
	now := s.clock().Unix()
	networks := Networks
	if network != "" {
		networks = []string{network}
	}
	rows := make([]sourceRow, len(sources))
	for i := range rows {
		rows[i].src = sources[i]
	}
	for _, n := range networks {
		vol, txs := s.periodTotals(n, period, now)
		w := s.sourceShares(n, period)
		total := 0.0
		for _, x := range w {
			total += x
		}
		vs, ts := split(vol, w, total), split(txs, w, total)
		for i := range rows {
			rows[i].volume += vs[i]
			rows[i].txs += ts[i]
		}
	}
	rows = slices.DeleteFunc(rows, func(r sourceRow) bool { return r.volume == 0 && r.txs == 0 })
	percentages(rows)
	slices.SortStableFunc(rows, func(a, b sourceRow) int {
		if a.volume != b.volume {
			if a.volume > b.volume {
				return -1
			}
			return 1
		}
		return 0
	})
	b = append(b, `{"status":"ok","data":[`...)
	for i, row := range rows {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"id":`...)
		b = append(b, strconv.Quote(row.src.id)...)
		b = append(b, `,"name":`...)
		b = append(b, strconv.Quote(row.src.name)...)
		b = append(b, `,"volume_usd":`...)
		b = appendVolume(b, wire, row.volume)
		b = appendTxs(b, wire, row.txs, true) // documented as an Integer here
		b = append(b, `,"percentage":`...)
		b = appendScaled(b, row.pct, 2)
		b = append(b, '}')
	}
	return append(b, "]}"...), nil
}

// percentages sets each row's share of the volume in hundredths of a percent
// so that they sum to exactly 100.00 (largest remainder method).
func percentages(rows []sourceRow) {
	var total int64
	w := make([]float64, len(rows))
	for i, r := range rows {
		total += r.volume
		w[i] = float64(r.volume)
	}
	if total == 0 {
		return
	}
	for i, p := range split(10000, w, float64(total)) {
		rows[i].pct = p
	}
}

// periodTotals sums volume and trades over a period, the same rows /stat
// serves for it.
func (s *Server) periodTotals(network, period string, now int64) (vol, txs int64) {
	if period == "1d" {
		for _, h := range s.lastHours(network, now) {
			vol += h.volume
			txs += h.txs
		}
		return
	}
	for _, d := range s.lastDays(network, period, now) {
		vol += d.volume
		txs += d.txs
	}
	return
}
