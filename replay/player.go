package replay

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"time"

	"tradedeck/record"
	"tradedeck/venue/stream"
)

// cursor reads the recording from its start.
type cursor struct {
	f   *os.File
	rd  *record.Reader
	env stream.Envelope
	// held is a record read but not yet delivered (its time has not come).
	held    record.Record
	hasHeld bool
}

func openCursor(path string) (*cursor, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	rd, err := record.NewReader(f)
	if err != nil {
		f.Close()
		return nil, err
	}
	return &cursor{f: f, rd: rd}, nil
}

func (c *cursor) close() {
	c.rd.Close()
	c.f.Close()
}

// next returns the next record (held first); io.EOF at the end, a
// truncated tail included (Summarize reported it).
func (c *cursor) next() (record.Record, error) {
	if c.hasHeld {
		c.hasHeld = false
		return c.held, nil
	}
	r, err := c.rd.Next()
	var fe *record.FormatError
	if errors.As(err, &fe) && fe.Truncated {
		return r, io.EOF
	}
	return r, err
}

func (c *cursor) hold(r record.Record) { c.held, c.hasHeld = r, true }

// envelope parses a stream frame's envelope (nil when malformed).
func (c *cursor) envelope(r record.Record) *stream.Envelope {
	if r.Kind != record.Market && r.Kind != record.Private {
		return nil
	}
	if stream.ParseEnvelope(r.Data, &c.env) != nil {
		return nil
	}
	return &c.env
}

// lookback is how much recording before a jump's target is folded into
// the state: enough to hold each symbol's last full book push (the venue
// sends one a second).
const lookback = 10 * time.Second

// seek opens a fresh cursor and folds the recording's prelude (the REST
// replies before its first frame), then the records from shortly before
// recorded time to (0: none), into a new state, without sending.
func (s *Server) seek(to int64) (*cursor, *state, int64, error) {
	c, err := openCursor(s.opts.Path)
	if err != nil {
		return nil, nil, 0, err
	}
	st := newState()
	r, err := c.fold(st, 0)
	if err == nil && to > 0 && r.Time < to {
		if off, ok := s.blockBefore(to - int64(lookback)); ok && off > c.rd.BlockOffset() {
			c.hasHeld = false
			err = c.rd.SeekBlock(c.f, off)
		}
		if err == nil {
			r, err = c.fold(st, to)
		}
	}
	if errors.Is(err, io.EOF) {
		return c, st, s.summary.Last, nil
	}
	if err != nil {
		c.close()
		return nil, nil, 0, err
	}
	return c, st, r.Time, nil
}

// fold applies records to st until the first stream frame at or after
// recorded time to, which it holds (unsent) and returns.
func (c *cursor) fold(st *state, to int64) (record.Record, error) {
	for {
		r, err := c.next()
		if err != nil {
			return r, err
		}
		isStream := r.Kind == record.Market || r.Kind == record.Private
		if isStream && r.Time >= to {
			r = r.Clone()
			c.hold(r)
			return r, nil
		}
		st.apply(r, c.envelope(r))
	}
}

// blockBefore is the offset of the last block whose first frame is at or
// before recorded time t.
func (s *Server) blockBefore(t int64) (int64, bool) {
	b := s.summary.Blocks
	i := sort.Search(len(b), func(i int) bool { return b[i].First > t })
	if i == 0 {
		return 0, false
	}
	return b[i-1].Offset, true
}

// play is the player: it waits for subscribers, then delivers each record
// when the clock reaches its time, obeying pause, step, speed and jumps.
func (s *Server) play(ctx context.Context) error {
	c := s.cur // Open folded the state up to the start
	defer func() { c.close() }()
	var (
		st  *state
		pos int64
		err error
	)
	if !s.awaitClients(ctx) {
		return ctx.Err()
	}
	for {
		if to, ok := s.takeSeek(); ok {
			c.close()
			if c, st, pos, err = s.seek(to); err != nil {
				return err
			}
			s.mu.Lock()
			s.state, s.pos, s.ended, s.stats.Jumps = st, pos, false, s.stats.Jumps+1
			s.started = false
			s.mu.Unlock()
			// The feeds reconnect and resync at the new position; the clock
			// waits for them, so no frame plays to nobody.
			s.closeClients()
			if !s.awaitClients(ctx) {
				return ctx.Err()
			}
			continue
		}
		r, err := c.next()
		if errors.Is(err, io.EOF) {
			s.markEnded()
			if !s.sleepUntilWoken(ctx) {
				return ctx.Err()
			}
			continue
		}
		if err != nil {
			return fmt.Errorf("replay: %w", err)
		}
		isStream := r.Kind == record.Market || r.Kind == record.Private
		if isStream {
			switch due, ok := s.waitFor(ctx, r.Time); {
			case !ok:
				return ctx.Err()
			case !due:
				c.hold(r.Clone()) // a jump came first
				continue
			}
		}
		s.deliver(r, c.envelope(r))
	}
}

// subscribers counts the open market streams that subscribed something.
func (s *Server) subscribers() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for cl := range s.clients {
		if !cl.private && cl.hasTopics() && !cl.ended() {
			n++
		}
	}
	return n
}

// awaitClients holds the clock until Clients market streams subscribed,
// plus Settle for their remaining subscriptions.
func (s *Server) awaitClients(ctx context.Context) bool {
	for s.subscribers() < s.opts.Clients {
		if !s.sleepUntilWoken(ctx) {
			return false
		}
	}
	select {
	case <-ctx.Done():
		return false
	case <-time.After(s.opts.Settle):
	}
	s.mu.Lock()
	s.started = true
	s.stats.Started = s.opts.Now()
	s.reanchorLocked(s.pos)
	s.mu.Unlock()
	return true
}

func (s *Server) sleepUntilWoken(ctx context.Context) bool {
	select {
	case <-ctx.Done():
		return false
	case <-s.wake:
		return true
	}
}

func (s *Server) takeSeek() (int64, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	to := s.seekTo
	s.seekTo = 0
	return to, to != 0
}

func (s *Server) markEnded() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.ended {
		s.ended = true
		s.stats.Ended = s.opts.Now()
		select {
		case <-s.done:
		default:
			close(s.done)
		}
	}
}

// waitFor blocks until recorded time t is due. due is false when a jump
// was asked meanwhile; ok is false when ctx ended.
func (s *Server) waitFor(ctx context.Context, t int64) (due, ok bool) {
	var timer *time.Timer
	defer func() {
		if timer != nil {
			timer.Stop()
		}
	}()
	for {
		s.mu.Lock()
		var wait time.Duration
		switch {
		case s.seekTo != 0:
			s.mu.Unlock()
			return false, true
		case s.paused && s.steps > 0:
			s.steps--
		case s.paused:
			wait = -1 // until woken
		case s.speed != Max:
			if ahead := t - s.nowLocked(); ahead > 0 {
				wait = time.Duration(float64(ahead) / s.speed)
			}
		}
		if wait == 0 {
			s.pos = max(s.pos, t)
			if s.paused || s.speed == Max {
				s.reanchorLocked(s.pos)
			}
			s.mu.Unlock()
			return true, true
		}
		s.mu.Unlock()
		var tc <-chan time.Time
		if wait > 0 {
			if timer == nil {
				timer = time.NewTimer(wait)
			} else {
				timer.Reset(wait)
			}
			tc = timer.C
		}
		select {
		case <-ctx.Done():
			return false, false
		case <-s.wake:
		case <-tc:
		}
	}
}

// wants reports whether cl gets frames of topic. A client of the
// all-symbol "bbos" or "tickers" (the dashboard's watchlist reads those)
// gets the recorded per-symbol @bbo and @ticker frames when the recording
// does not hold the all-symbol topic itself: the feed reads both shapes,
// and recordings stay small.
func (s *Server) wants(cl *client, topic string) bool {
	if cl.subscribed(topic) {
		return true
	}
	_, kind, ok := strings.Cut(topic, "@")
	if !ok {
		return false
	}
	all := map[string]string{"bbo": "bbos", "ticker": "tickers"}[kind]
	return all != "" && s.summary.Topics[all] == 0 && cl.subscribed(all)
}

// deliver folds r into the state and sends stream frames to their
// subscribers (blocking on slow ones: at Max speed the readers set the
// pace).
func (s *Server) deliver(r record.Record, env *stream.Envelope) {
	s.mu.Lock()
	s.state.apply(r, env)
	if r.Kind != record.Market && r.Kind != record.Private {
		s.mu.Unlock()
		return
	}
	s.stats.Frames++
	var targets []*client
	if env != nil {
		private := r.Kind == record.Private
		topic := string(env.Topic)
		for cl := range s.clients {
			if cl.private == private && s.wants(cl, topic) {
				targets = append(targets, cl)
			}
		}
	}
	s.mu.Unlock()
	if len(targets) == 0 {
		return
	}
	frame := append([]byte(nil), r.Data...)
	for _, cl := range targets {
		cl.send(frame)
	}
}
