package control

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"sync"
	"time"

	"github.com/shopspring/decimal"

	"tradedeck/algo"
)

// ErrGone: the engine's process hung up (it ended, or cut this view off).
var ErrGone = errors.New("the engine's process is gone")

// CallTimeout bounds one request (a preview reads the venue).
const CallTimeout = 20 * time.Second

// Client is a view of an engine another process runs: the methods of
// *algo.Engine the screens and `tradedeck algo` use, sent over the
// engine's socket. Safe for concurrent use.
type Client struct {
	conn *net.UnixConn
	info Info
	by   string // who this view says it is (Confirm.By when empty)

	mu      sync.Mutex
	nextID  uint64
	pending map[uint64]chan Response
	subs    map[*clientSub]struct{}
	subbed  bool
	last    []algo.Algo // the last snapshot, kept when the engine goes
	err     error       // why the connection ended
	done    chan struct{}
	enc     *json.Encoder
	writeMu sync.Mutex
}

type clientSub struct {
	ch chan algo.Event
}

// Dial connects to the engine's socket at path and asks who runs it. By
// names this view in the engine's database and audit ("tradedeck algo").
func Dial(ctx context.Context, path, by string) (*Client, error) {
	var d net.Dialer
	nc, err := d.DialContext(ctx, "unix", path)
	if err != nil {
		return nil, err
	}
	c := &Client{conn: nc.(*net.UnixConn), by: by, pending: map[uint64]chan Response{}, subs: map[*clientSub]struct{}{},
		done: make(chan struct{})}
	c.enc = json.NewEncoder(c.conn)
	go c.read()
	var info Info
	if err := c.callInto(ctx, Request{Op: OpHello}, &info); err != nil {
		c.Close()
		return nil, err
	}
	c.info = info
	return c, nil
}

// Info is who runs the engine, as it said when this view connected.
func (c *Client) Info() Info { return c.info }

// Done is closed when the engine's process hangs up; Err says why.
func (c *Client) Done() <-chan struct{} { return c.done }

// Err is why the connection ended (nil while it is up).
func (c *Client) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

// Close hangs up.
func (c *Client) Close() error { return c.conn.Close() }

// read dispatches the engine's lines until the connection ends.
func (c *Client) read() {
	sc := bufio.NewScanner(c.conn)
	sc.Buffer(make([]byte, 0, 64<<10), MaxResponse)
	for sc.Scan() {
		var r Response
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			c.end(fmt.Errorf("%w: the engine sent a line this view cannot read: %v", ErrGone, err))
			return
		}
		switch {
		case r.Event != nil:
			c.event(*r.Event)
		case r.ID == 0 && r.Error != "":
			c.end(fmt.Errorf("%w: %s", ErrGone, r.Error)) // refused at the door
			return
		default:
			c.mu.Lock()
			ch := c.pending[r.ID]
			delete(c.pending, r.ID)
			c.mu.Unlock()
			if ch != nil {
				ch <- r
			}
		}
	}
	err := sc.Err()
	if err == nil {
		err = ErrGone
	} else {
		err = fmt.Errorf("%w: %v", ErrGone, err)
	}
	c.end(err)
}

// end records why the connection ended, fails every call waiting, and
// closes the subscribers' channels.
func (c *Client) end(err error) {
	c.conn.Close()
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.err != nil {
		return
	}
	c.err = err
	for id, ch := range c.pending {
		ch <- Response{ID: id, Error: err.Error(), Code: "gone"}
		delete(c.pending, id)
	}
	for s := range c.subs {
		close(s.ch)
		delete(c.subs, s)
	}
	close(c.done)
}

func (c *Client) event(ev algo.Event) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for s := range c.subs {
		select {
		case s.ch <- ev:
		default: // a slow reader loses events, as the engine's own do
		}
	}
}

// call sends req and waits for its answer.
func (c *Client) call(ctx context.Context, req Request) (Response, error) {
	ch := make(chan Response, 1)
	c.mu.Lock()
	if c.err != nil {
		err := c.err
		c.mu.Unlock()
		return Response{}, err
	}
	c.nextID++
	req.ID = c.nextID
	c.pending[req.ID] = ch
	c.mu.Unlock()
	c.writeMu.Lock()
	_ = c.conn.SetWriteDeadline(time.Now().Add(writeTimeout))
	err := c.enc.Encode(req)
	c.writeMu.Unlock()
	if err != nil {
		// The engine may have hung up with a reason (refused at the
		// door): the reader reads it before the connection's end.
		select {
		case <-c.done:
		case <-time.After(time.Second):
			c.end(fmt.Errorf("%w: %v", ErrGone, err))
		}
	}
	select {
	case r := <-ch:
		if r.Code == "gone" {
			return r, c.Err()
		}
		if r.Error != "" {
			return r, remoteError(r)
		}
		return r, nil
	case <-ctx.Done():
		c.mu.Lock()
		delete(c.pending, req.ID)
		c.mu.Unlock()
		return Response{}, fmt.Errorf("the engine did not answer %s in time: %w", req.Op, ctx.Err())
	}
}

func (c *Client) callInto(ctx context.Context, req Request, out any) error {
	r, err := c.call(ctx, req)
	if err != nil {
		return err
	}
	if out == nil {
		return nil
	}
	if err := json.Unmarshal(r.Data, out); err != nil {
		return fmt.Errorf("the engine's answer to %s: %w", req.Op, err)
	}
	return nil
}

func (c *Client) do(req Request, out any) error {
	ctx, cancel := context.WithTimeout(context.Background(), CallTimeout)
	defer cancel()
	return c.callInto(ctx, req, out)
}

// Preview asks the engine what s would do.
func (c *Client) Preview(s algo.Spec) (algo.Preview, error) {
	var p algo.Preview
	err := c.do(Request{Op: OpPreview, Spec: &s, Line: s.String()}, &p)
	return p, err
}

// Add asks the engine to arm s.
func (c *Client) Add(s algo.Spec, cf algo.Confirm) (algo.Algo, error) {
	by := cf.By
	if by == "" {
		by = c.by
	}
	var a algo.Algo
	err := c.do(Request{Op: OpAdd, Spec: &s, Line: s.String(), FireIfThrough: cf.FireIfThrough, By: by}, &a)
	return a, err
}

// AddLine asks the engine to parse and arm a grammar line.
func (c *Client) AddLine(line string, cf algo.Confirm) (algo.Algo, error) {
	by := cf.By
	if by == "" {
		by = c.by
	}
	var a algo.Algo
	err := c.do(Request{Op: OpAdd, Line: line, FireIfThrough: cf.FireIfThrough, By: by}, &a)
	return a, err
}

// Cancel asks the engine to cancel one algo, for why ("": the user).
func (c *Client) Cancel(id algo.ID, why string) error {
	return c.do(Request{Op: OpCancel, Algo: id, Why: why, By: c.by}, nil)
}

// CancelAll asks the engine to cancel the algos of sc.
func (c *Client) CancelAll(sc algo.Scope) error {
	return c.do(Request{Op: OpCancelAll, Symbol: sc.Symbol, Why: sc.Why, By: c.by}, nil)
}

// StopAlgos is CancelAll for desk.Config.Algos.
func (c *Client) StopAlgos(symbol, why string) error {
	return c.CancelAll(algo.Scope{Symbol: symbol, Why: why})
}

// AmendTrigger asks the engine to move a trigger.
func (c *Client) AmendTrigger(id algo.ID, leg algo.Leg, price decimal.Decimal) error {
	return c.do(Request{Op: OpAmend, Algo: id, Leg: leg, Price: &price, By: c.by}, nil)
}

// Resolve answers an algo that needs a decision.
func (c *Client) Resolve(id algo.ID, d algo.Decision) error {
	return c.do(Request{Op: OpResolve, Algo: id, Decision: d, By: c.by}, nil)
}

// Pause asks the engine to pause a working order.
func (c *Client) Pause(id algo.ID, why string) error {
	return c.do(Request{Op: OpPause, Algo: id, Why: why, By: c.by}, nil)
}

// Resume asks the engine to resume a paused working order.
func (c *Client) Resume(id algo.ID) error {
	return c.do(Request{Op: OpResume, Algo: id, By: c.by}, nil)
}

// Tighten asks the engine to tighten a trailing stop's trail.
func (c *Client) Tighten(id algo.ID, percent, distance decimal.Decimal) error {
	return c.do(Request{Op: OpTighten, Algo: id, Percent: &percent, Distance: &distance, By: c.by}, nil)
}

// Snapshot is the engine's list of algos; once the engine is gone, the
// last one it gave (SnapshotErr says why).
func (c *Client) Snapshot() []algo.Algo {
	list, _ := c.SnapshotErr()
	return list
}

// SnapshotErr is Snapshot with the reason it is not fresh.
func (c *Client) SnapshotErr() ([]algo.Algo, error) {
	var list []algo.Algo
	if err := c.do(Request{Op: OpSnapshot}, &list); err != nil {
		c.mu.Lock()
		defer c.mu.Unlock()
		return c.last, err
	}
	c.mu.Lock()
	c.last = list
	c.mu.Unlock()
	return list, nil
}

// Protection is what protects each position, as the engine says; once it
// is gone, nothing does (nil).
func (c *Client) Protection() []algo.Protection {
	var list []algo.Protection
	if err := c.do(Request{Op: OpProtection}, &list); err != nil {
		return nil
	}
	return list
}

// Subscribe follows the engine's events (buffer n); the channel closes
// when the engine's process hangs up. cancel ends the subscription.
func (c *Client) Subscribe(n int) (<-chan algo.Event, func()) {
	s := &clientSub{ch: make(chan algo.Event, max(n, 1))}
	c.mu.Lock()
	if c.err != nil {
		c.mu.Unlock()
		close(s.ch)
		return s.ch, func() {}
	}
	c.subs[s] = struct{}{}
	first := !c.subbed
	c.subbed = true
	c.mu.Unlock()
	if first {
		go func() { _ = c.do(Request{Op: OpSubscribe}, nil) }()
	}
	return s.ch, func() {
		c.mu.Lock()
		defer c.mu.Unlock()
		if _, ok := c.subs[s]; ok {
			delete(c.subs, s)
			close(s.ch)
		}
	}
}
