package stream

import "testing"

// Request frames byte for byte: only what JSON requires is escaped (a
// space or a non-ASCII letter stays as it is).
func TestEncodersExactBytes(t *testing.T) {
	for _, c := range []struct{ got, want string }{
		{string(AppendSubscribe(nil, "a b", "SPOT_BTC_USDT@bbo")), `{"id":"a b","event":"subscribe","topic":"SPOT_BTC_USDT@bbo"}`},
		{string(AppendSubscribe(nil, "q\"\\\x1f\x7fé", "t")), `{"id":"q\"\\\u001f` + "\x7fé" + `","event":"subscribe","topic":"t"}`},
	} {
		if c.got != c.want {
			t.Errorf("got  %s\nwant %s", c.got, c.want)
		}
	}
}
