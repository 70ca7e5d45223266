// Package venue is the venue's API: wire types, request signing, the REST
// client for every endpoint, error codes and client-side rate limits.
// It has no UI and starts no goroutines of its own. "The spec" in this
// module's comments is the venue's public API documentation (WOO X API
// docs, https://docs.woox.io/); where the real venue differs from it, the
// recorded replies in testdata/ are what the code follows.
package venue

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"net/url"
	"sort"
	"strconv"
	"strings"
)

// Header names of a signed request.
const (
	HeaderKey       = "x-api-key"
	HeaderTimestamp = "x-api-timestamp"
	HeaderSignature = "x-api-signature"
)

// CanonicalParams renders params sorted by name as `name=value&...` with
// form-urlencoding. This exact text is both what is signed and what is
// sent, so the two can never disagree.
func CanonicalParams(params url.Values) string {
	if len(params) == 0 {
		return ""
	}
	keys := make([]string, 0, len(params))
	for k := range params {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	for _, k := range keys {
		for _, v := range params[k] {
			if b.Len() > 0 {
				b.WriteByte('&')
			}
			b.WriteString(url.QueryEscape(k))
			b.WriteByte('=')
			b.WriteString(url.QueryEscape(v))
		}
	}
	return b.String()
}

// Sign returns the lower-case hex HMAC-SHA256 of `canonical|timestamp`
// keyed with secret, as the venue expects in x-api-signature.
func Sign(secret, canonical string, timestampMs int64) string {
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write([]byte(canonical))
	mac.Write([]byte{'|'})
	mac.Write(strconv.AppendInt(nil, timestampMs, 10))
	return hex.EncodeToString(mac.Sum(nil))
}

// SignWS is the Websocket private-stream auth signature: the query string
// and body are both blank, so only `|timestamp` is signed.
func SignWS(secret string, timestampMs int64) string {
	return Sign(secret, "", timestampMs)
}

// VerifySignature reports whether sig (lower- or upper-case hex) is the
// signature of canonical at timestampMs, in constant time.
func VerifySignature(secret, canonical string, timestampMs int64, sig string) bool {
	want := Sign(secret, canonical, timestampMs)
	return hmac.Equal([]byte(want), []byte(strings.ToLower(sig)))
}
