package ws

import (
	"context"
	"encoding/json"
)

// privateFrame is a private frame waiting for the journal: it reports state
// that is in journal records up to seq.
type privateFrame struct {
	key string
	b   []byte
	seq int64
}

// outboxSize bounds the private frames waiting for an fsync; past it the
// private streams are closed to reconnect and reconcile, as after a backlog.
const outboxSize = 8192

// Close reason when the journal cannot make changes durable any more.
const reasonJournal = "the venue cannot record changes durably: reconnect and reconcile"

// publishPrivate encodes a frame of a private topic and queues it for the
// outbox. The journal sequence is read after the state the frame reports
// was read, so waiting for it covers that state. It never blocks.
func (s *Server) publishPrivate(key, topic string, ts int64, data any) {
	b, err := json.Marshal(push{Topic: topic, Ts: ts, Data: data})
	if err != nil {
		return
	}
	f := privateFrame{key: key, b: b, seq: s.ex.JournalSeq()}
	select {
	case s.outbox <- f:
	default:
		s.eventDrops.Add(1)
		s.closePrivate(reasonBacklog)
	}
}

// runOutbox sends private frames in the order they were queued, each only
// once its journal record is on disk: a client never sees an order, a fill
// or a balance the venue could forget in a crash (kill -9). Frames queued
// while one fsync runs go out together after it (group commit), so the wait
// is shared; without a journal they go out at once.
func (s *Server) runOutbox(ctx context.Context) {
	var durable int64
	for {
		select {
		case <-ctx.Done():
			return
		case f := <-s.outbox:
			if f.seq > durable {
				if err := s.ex.WaitDurable(f.seq); err != nil {
					s.closePrivate(reasonJournal)
					continue
				}
				durable = f.seq
			}
			s.hub.publish(f.key, f.b)
		}
	}
}
