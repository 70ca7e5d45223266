// Package loadgen drives `tradedeck serve` with real SSH clients
// (x/crypto/ssh, a 160x48 PTY each) and measures what N viewers cost the
// server: CPU and RSS of its process, the venue connections it holds
// (counted by the venue), bytes per second per viewer, a late joiner's
// first full frame, and the input-to-frame delay of healthy sessions
// while one session never reads. `make bench-serve` runs it against the
// binary (tools/benchserve); a short smoke of it runs in `make test`.
package loadgen

import (
	"errors"
	"fmt"
	"io"
	"net"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/charmbracelet/x/ansi"
	gossh "golang.org/x/crypto/ssh"
)

// Width and Height are every session's PTY size.
const Width, Height = 160, 48

// Target is a running server.
type Target struct {
	Addr   string
	Signer gossh.Signer // an authorized key
	PID    int          // the server's process, for CPU and RSS (/proc)
	// VenueConns counts the venue's Websocket connections, seen from the
	// venue (the simulator's stream server).
	VenueConns func() int
}

// Options of one run.
type Options struct {
	Sessions int           // viewers kept open
	Warmup   time.Duration // after every viewer's first frame, before measuring
	Measure  time.Duration // the measuring window
	Probes   int           // input round trips per probed session (frame delay)
	Timeout  time.Duration // bound on any single wait (first frame, probe)
}

// Result is one run's figures.
type Result struct {
	Market         string // the caller's label: calm, busy
	Sessions       int
	CPUPercent     float64 // of one core, over the window
	RSSMB          float64 // at the end of the window
	VenueConns     int     // at the end of the window
	BytesPerViewer float64 // per second, mean over viewers
	FirstFrame     time.Duration
	DelayHealthy   time.Duration // median input-to-frame delay, nobody stalled
	DelayWithStall time.Duration // the same while one session never reads
}

// Run opens o.Sessions viewers, measures, then adds a late joiner and a
// stalled session, and closes everything it opened.
func Run(t Target, o Options) (Result, error) {
	if o.Timeout == 0 {
		o.Timeout = 30 * time.Second
	}
	if o.Probes == 0 {
		o.Probes = 5
	}
	r := Result{Sessions: o.Sessions}
	var viewers []*Viewer
	defer func() {
		for _, v := range viewers {
			v.Close()
		}
	}()
	for range o.Sessions {
		v, err := Open(t, io.Discard)
		if err != nil {
			return r, err
		}
		viewers = append(viewers, v)
	}
	for _, v := range viewers {
		if err := v.WaitFirstFrame(o.Timeout); err != nil {
			return r, err
		}
	}
	time.Sleep(o.Warmup) // a measuring window, not synchronisation
	cpu0, err := cpuTicks(t.PID)
	if err != nil {
		return r, err
	}
	bytes0 := totalBytes(viewers)
	start := time.Now()
	time.Sleep(o.Measure)
	elapsed := time.Since(start)
	cpu1, err := cpuTicks(t.PID)
	if err != nil {
		return r, err
	}
	r.CPUPercent = 100 * float64(cpu1-cpu0) / clockTicks / elapsed.Seconds()
	r.RSSMB, err = rssMB(t.PID)
	if err != nil {
		return r, err
	}
	if t.VenueConns != nil {
		r.VenueConns = t.VenueConns()
	}
	r.BytesPerViewer = float64(totalBytes(viewers)-bytes0) / elapsed.Seconds() / float64(len(viewers))

	// A late joiner's first complete frame.
	late, err := Open(t, io.Discard)
	if err != nil {
		return r, err
	}
	viewers = append(viewers, late)
	if err := late.WaitFirstFrame(o.Timeout); err != nil {
		return r, err
	}
	r.FirstFrame = late.FirstFrame()

	probed := viewers[:min(len(viewers), 5)]
	if r.DelayHealthy, err = probeDelay(probed, o); err != nil {
		return r, err
	}
	stalled, err := OpenStalled(t, o.Timeout)
	if err != nil {
		return r, err
	}
	viewers = append(viewers, stalled)
	time.Sleep(o.Warmup) // let the server's socket buffers for it fill
	if r.DelayWithStall, err = probeDelay(probed, o); err != nil {
		return r, err
	}
	return r, nil
}

// probeDelay is the median time from a key to the frame answering it
// (help opened), over o.Probes round trips on each viewer.
func probeDelay(vs []*Viewer, o Options) (time.Duration, error) {
	var all []time.Duration
	for range o.Probes {
		for _, v := range vs {
			d, err := v.Probe(o.Timeout)
			if err != nil {
				return 0, err
			}
			all = append(all, d)
		}
	}
	sort.Slice(all, func(i, j int) bool { return all[i] < all[j] })
	return all[len(all)/2], nil
}

func totalBytes(vs []*Viewer) int64 {
	var n int64
	for _, v := range vs {
		n += v.bytes.Load()
	}
	return n
}

// stallConn stops reading the socket once stalled: the client's small
// receive buffer and then the server's send buffer fill, and the server's
// writes to that connection block, as for a viewer whose link died
// without a FIN. (Not reading the SSH channel instead would take its 2 MB
// window, minutes at a calm market's rate.)
type stallConn struct {
	net.Conn
	stalled atomic.Bool
	closed  chan struct{}
	once    sync.Once
}

func (c *stallConn) Read(p []byte) (int, error) {
	if c.stalled.Load() {
		<-c.closed
		return 0, net.ErrClosed
	}
	return c.Conn.Read(p)
}

func (c *stallConn) Close() error {
	c.once.Do(func() { close(c.closed) })
	return c.Conn.Close()
}

// OpenStalled opens a viewer that stops reading after its first frame.
func OpenStalled(t Target, timeout time.Duration) (*Viewer, error) {
	raw, err := net.DialTimeout("tcp", t.Addr, 10*time.Second)
	if err != nil {
		return nil, err
	}
	if tc, ok := raw.(*net.TCPConn); ok {
		_ = tc.SetReadBuffer(4096)
	}
	sc := &stallConn{Conn: raw, closed: make(chan struct{})}
	conn, chans, reqs, err := gossh.NewClientConn(sc, t.Addr, clientConfig(t))
	if err != nil {
		raw.Close()
		return nil, err
	}
	v, err := start(gossh.NewClient(conn, chans, reqs), io.Discard)
	if err != nil {
		return nil, err
	}
	if err := v.WaitFirstFrame(timeout); err != nil {
		v.Close()
		return nil, err
	}
	sc.stalled.Store(true)
	return v, nil
}

func clientConfig(t Target) *gossh.ClientConfig {
	return &gossh.ClientConfig{
		User: "bench", Auth: []gossh.AuthMethod{gossh.PublicKeys(t.Signer)},
		HostKeyCallback: gossh.InsecureIgnoreHostKey(), //nolint:gosec // loopback benchmark
		Timeout:         10 * time.Second,
	}
}

// Viewer is one SSH session on a PTY.
type Viewer struct {
	client  *gossh.Client
	session *gossh.Session
	stdin   io.WriteCloser
	opened  time.Time
	bytes   atomic.Int64

	mu    sync.Mutex
	tail  []byte // the last bytes received, escape sequences and all
	first time.Duration
	seen  chan struct{} // signalled on every write
}

// FirstFramePattern is what the first complete frame holds: the book with
// its spread (a synced book) and the status bar.
var FirstFramePattern = []string{"Book ", "spread", "market "}

// Open dials and starts a shell on a 160x48 PTY; out receives the
// output after it is counted. env is sent to the server first (ssh
// SetEnv: NAME=value).
func Open(t Target, out io.Writer, env ...string) (*Viewer, error) {
	c, err := gossh.Dial("tcp", t.Addr, clientConfig(t))
	if err != nil {
		return nil, err
	}
	return start(c, out, env...)
}

// start opens the PTY session on a connected client.
func start(c *gossh.Client, out io.Writer, env ...string) (*Viewer, error) {
	s, err := c.NewSession()
	if err != nil {
		c.Close()
		return nil, err
	}
	for _, kv := range env {
		k, val, _ := strings.Cut(kv, "=")
		if err := s.Setenv(k, val); err != nil {
			c.Close()
			return nil, err
		}
	}
	v := &Viewer{client: c, session: s, seen: make(chan struct{}, 1)}
	s.Stdout = counter{v, out}
	s.Stderr = io.Discard
	if v.stdin, err = s.StdinPipe(); err != nil {
		c.Close()
		return nil, err
	}
	if err := s.RequestPty("xterm-256color", Height, Width, gossh.TerminalModes{}); err != nil {
		c.Close()
		return nil, err
	}
	v.opened = time.Now()
	if err := s.Shell(); err != nil {
		c.Close()
		return nil, err
	}
	return v, nil
}

// counter counts and keeps the tail of what a viewer receives, then
// passes it on.
type counter struct {
	v   *Viewer
	out io.Writer
}

const tailBytes = 256 << 10

func (c counter) Write(p []byte) (int, error) {
	v := c.v
	v.bytes.Add(int64(len(p)))
	v.mu.Lock()
	v.tail = append(v.tail, p...)
	if len(v.tail) > tailBytes {
		v.tail = append(v.tail[:0], v.tail[len(v.tail)-tailBytes/2:]...)
	}
	if v.first == 0 && containsAll(ansi.Strip(string(v.tail)), FirstFramePattern) {
		v.first = time.Since(v.opened)
	}
	v.mu.Unlock()
	select {
	case v.seen <- struct{}{}:
	default:
	}
	return c.out.Write(p)
}

func containsAll(s string, want []string) bool {
	for _, w := range want {
		if !strings.Contains(s, w) {
			return false
		}
	}
	return true
}

// WaitFirstFrame waits until the first complete frame arrived.
func (v *Viewer) WaitFirstFrame(timeout time.Duration) error {
	return v.waitUntil(timeout, func() bool { return v.first != 0 }, "first frame")
}

// FirstFrame is the time from the shell request to the first complete
// frame.
func (v *Viewer) FirstFrame() time.Duration {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.first
}

// waitUntil waits, woken by every write, until cond (called under v.mu).
func (v *Viewer) waitUntil(timeout time.Duration, cond func() bool, what string) error {
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	for {
		v.mu.Lock()
		ok := cond()
		v.mu.Unlock()
		if ok {
			return nil
		}
		select {
		case <-v.seen:
		case <-deadline.C:
			v.mu.Lock()
			seen := ansi.Strip(string(v.tail[max(0, len(v.tail)-1500):]))
			v.mu.Unlock()
			return fmt.Errorf("loadgen: no %s within %v; last received:\n%s", what, timeout, seen)
		}
	}
}

// Probe types ":" and a token into the command line and times the frame
// that shows it, then closes the line (esc). The renderer sends only the
// cells that changed, so each token differs from the previous one in
// every cell (a rotation of rare letters), and it is looked for as a
// subsequence of the text received (a frame may interleave it with
// other cells).
func (v *Viewer) Probe(timeout time.Duration) (time.Duration, error) {
	const alphabet = "jqxzvkw"
	k := int(probeSeq.Add(1))
	token := make([]byte, len(alphabet)-1)
	for i := range token {
		token[i] = alphabet[(k+i)%len(alphabet)]
	}
	v.mu.Lock()
	mark := len(v.tail)
	v.mu.Unlock()
	start := time.Now()
	if _, err := v.stdin.Write(append([]byte(":"), token...)); err != nil {
		return 0, err
	}
	err := v.waitUntil(timeout, func() bool {
		if mark > len(v.tail) { // the tail was trimmed: search all of it
			mark = 0
		}
		return subsequence(ansi.Strip(string(v.tail[mark:])), token)
	}, "probe frame")
	d := time.Since(start)
	if err != nil {
		return 0, err
	}
	if _, err := v.stdin.Write([]byte("\x1b")); err != nil {
		return 0, err
	}
	return d, nil
}

// subsequence reports whether want's bytes appear in s in order.
func subsequence(s string, want []byte) bool {
	i := 0
	for j := 0; j < len(s) && i < len(want); j++ {
		if s[j] == want[i] {
			i++
		}
	}
	return i == len(want)
}

var probeSeq atomic.Int64

// Close ends the session.
func (v *Viewer) Close() {
	_ = v.session.Close()
	_ = v.client.Close()
}

// ErrNoProc is returned where /proc is missing (not Linux).
var ErrNoProc = errors.New("loadgen: /proc not available")
