package stream

import "bytes"

// Envelope is the outer shape shared by every frame: a push
// (`topic`, `ts`, `data`), a reply (`id`, `event`, `success`, `ts`,
// `errorMsg`, maybe `data`) or a keep-alive (`event` ping/pong). Byte
// slices alias the frame.
type Envelope struct {
	ID         []byte
	Event      []byte
	Topic      []byte
	TS         int64
	HasSuccess bool
	Success    bool
	ErrorMsg   []byte
	Data       []byte // raw JSON value of "data", nil when absent (see ParseEnvelope)
}

// IsPush reports whether the frame is a topic push.
func (e *Envelope) IsPush() bool { return len(e.Topic) > 0 && len(e.Event) == 0 }

// IsPing reports a server keep-alive ping, which must be answered by a pong.
func (e *Envelope) IsPing() bool { return string(e.Event) == "ping" }

// IsPong reports the server's answer to our ping.
func (e *Envelope) IsPong() bool { return string(e.Event) == "pong" }

// ParseEnvelope reads the outer fields of frame into e without allocating.
// For a push whose topic and ts precede its data (every venue push), the
// scan stops at the data: Data then runs to the end of the frame and any
// members after it are not read; topic decoders stop at the end of the
// data value and report malformed data.
func ParseEnvelope(frame []byte, e *Envelope) error {
	*e = Envelope{}
	s := scanner{b: frame}
	s.object()
	for k, ok := s.firstKey(); ok; k, ok = s.nextKey() {
		switch string(k) {
		case "topic":
			e.Topic = s.str()
		case "ts":
			e.TS = s.intVal()
		case "data":
			if len(e.Topic) > 0 && e.TS != 0 {
				// A push names its topic and ts first: the data is the
				// rest of the frame, decoded (and checked) by its topic's
				// decoder. This saves a second pass over the hot frames.
				e.Data = trimValue(s.b[s.i:])
				return nil
			}
			e.Data = s.skip()
		case "event":
			e.Event = s.str()
		case "id":
			e.ID = unquote(s.scalar())
		case "success":
			e.HasSuccess = true
			e.Success = s.boolVal()
		case "errorMsg":
			e.ErrorMsg = unquote(s.scalar())
		default:
			s.skip()
		}
	}
	return s.err
}

// trimValue cuts the envelope's closing brace and spaces off the remainder
// of a frame that starts with the data value.
func trimValue(b []byte) []byte {
	b = bytes.TrimSpace(b)
	if n := len(b); n > 0 && b[n-1] == '}' {
		b = bytes.TrimRight(b[:n-1], " \t\r\n")
	}
	return bytes.TrimLeft(b, " \t\r\n")
}

// SplitTopic splits "SPOT_BTC_USDT@orderbookupdate" into symbol and kind;
// account-wide topics ("executionreport", "tickers") have no symbol.
func SplitTopic(topic []byte) (symbol, kind []byte) {
	if at := bytes.IndexByte(topic, '@'); at >= 0 {
		return topic[:at], topic[at+1:]
	}
	return nil, topic
}
