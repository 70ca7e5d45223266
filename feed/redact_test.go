package feed_test

import (
	"fmt"
	"strings"
	"testing"

	"tradedeck/feed"
	"tradedeck/feed/hub"
	"tradedeck/venue"
)

// A Feed and a Hub hold the credentials in unexported fields, where fmt
// cannot call the redacting methods: they must redact themselves, in
// every verb, alone or inside another value.
func TestFeedAndHubNeverPrintTheSecret(t *testing.T) {
	const secret = "s3cr3t-do-not-print"
	f := feed.New(feed.Config{Endpoints: venue.Endpoints{BaseURL: "http://127.0.0.1:1"},
		Credentials: venue.Credentials{APIKey: "k", APISecret: secret, ApplicationID: "a"}})
	h := hub.New(f)
	type holder struct {
		F *feed.Feed
		h *hub.Hub
	}
	for _, v := range []any{f, h, holder{f, h}, &holder{f, h}, []*feed.Feed{f}} {
		for _, verb := range []string{"%v", "%+v", "%#v", "%s", "%q", "%x", "%X", "%d"} {
			if out := fmt.Sprintf(verb, v); strings.Contains(out, secret) || strings.Contains(out, fmt.Sprintf("%x", secret)) {
				t.Errorf("%T with %s prints the secret: %s", v, verb, out)
			}
		}
	}
}
