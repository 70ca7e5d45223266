package stream

import "strconv"

// Client frames. Each Append* writes one frame to dst and returns the
// extended buffer, so a connection can reuse one buffer for all its writes.

// AppendSubscribe writes `{"id":ID,"event":"subscribe","topic":TOPIC}`.
func AppendSubscribe(dst []byte, id, topic string) []byte {
	return appendTopicFrame(dst, id, "subscribe", topic)
}

// AppendUnsubscribe writes `{"id":ID,"event":"unsubscribe","topic":TOPIC}`.
func AppendUnsubscribe(dst []byte, id, topic string) []byte {
	return appendTopicFrame(dst, id, "unsubscribe", topic)
}

func appendTopicFrame(dst []byte, id, event, topic string) []byte {
	dst = append(dst, `{"id":`...)
	dst = appendString(dst, id)
	dst = append(dst, `,"event":`...)
	dst = appendString(dst, event)
	dst = append(dst, `,"topic":`...)
	dst = appendString(dst, topic)
	return append(dst, '}')
}

// AppendAuth writes the private stream's auth frame. sign is
// venue.SignWS(secret, timestampMs); the secret itself never gets here.
func AppendAuth(dst []byte, id, apiKey, sign string, timestampMs int64) []byte {
	dst = append(dst, `{"id":`...)
	dst = appendString(dst, id)
	dst = append(dst, `,"event":"auth","params":{"apikey":`...)
	dst = appendString(dst, apiKey)
	dst = append(dst, `,"sign":`...)
	dst = appendString(dst, sign)
	dst = append(dst, `,"timestamp":"`...)
	dst = strconv.AppendInt(dst, timestampMs, 10)
	return append(dst, `"}}`...)
}

// AppendRequestOrderbook writes a one-shot order book snapshot request.
func AppendRequestOrderbook(dst []byte, id, symbol string) []byte {
	dst = append(dst, `{"id":`...)
	dst = appendString(dst, id)
	dst = append(dst, `,"event":"request","params":{"type":"orderbook","symbol":`...)
	dst = appendString(dst, symbol)
	return append(dst, `}}`...)
}

// AppendPing writes `{"event":"ping"}`.
func AppendPing(dst []byte) []byte { return append(dst, `{"event":"ping"}`...) }

// AppendPong writes `{"event":"pong"}`, the answer to a server ping.
func AppendPong(dst []byte) []byte { return append(dst, `{"event":"pong"}`...) }

const hexDigits = "0123456789abcdef"

// appendString writes s as a JSON string, escaping what JSON requires.
func appendString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"' || c == '\\':
			dst = append(dst, '\\', c)
		case c < 0x20:
			dst = append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&15])
		default:
			dst = append(dst, c)
		}
	}
	return append(dst, '"')
}
