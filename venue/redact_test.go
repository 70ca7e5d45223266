package venue

import (
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"testing"
)

const leakSecret = "s3cr3t-DO-NOT-PRINT"

// leaks reports whether out holds the secret as text or in hex.
func leaks(out string) bool {
	hexed := hex.EncodeToString([]byte(leakSecret))
	return strings.Contains(out, leakSecret) || strings.Contains(strings.ToLower(out), hexed)
}

var verbs = []string{"%v", "%+v", "%#v", "%s", "%q", "%x", "%X", "%d", "%10.3s", "%T %v"}

// Every type holding the secret redacts it in every verb, also nested in
// structs and slices, wrapped in errors and as a panic value.
func TestSecretsRedactedInEveryVerb(t *testing.T) {
	creds := Credentials{APIKey: "key", APISecret: leakSecret, ApplicationID: "app"}
	client := NewClient(Endpoints{BaseURL: "http://127.0.0.1:1"}, creds, WithLimiter(nil))
	type holder struct {
		Creds  Credentials
		Client *Client
	}
	values := map[string]any{
		"Credentials":  creds,
		"*Credentials": &creds,
		"*Client":      client,
		"struct":       holder{creds, client},
		"*struct":      &holder{creds, client},
		"slice":        []Credentials{creds},
		"map":          map[string]*Client{"c": client},
	}
	for name, v := range values {
		for _, verb := range verbs {
			if out := fmt.Sprintf(verb, v); leaks(out) {
				t.Errorf("%s with %s prints the secret: %s", name, verb, out)
			}
		}
		err := fmt.Errorf("wrapped: %v: %w", v, errors.New("x"))
		if leaks(err.Error()) {
			t.Errorf("%s in an error prints the secret: %v", name, err)
		}
		if out := panicText(v); leaks(out) {
			t.Errorf("%s as a panic prints the secret: %s", name, out)
		}
	}
	if out := fmt.Sprint(client); !strings.Contains(out, "(redacted)") || !strings.Contains(out, "127.0.0.1") {
		t.Fatalf("the client's text says nothing useful: %s", out)
	}
	if out := fmt.Sprintf("%#v", creds); !strings.Contains(out, `APIKey:"key"`) || !strings.Contains(out, "(redacted)") {
		t.Fatalf("%%#v: %s", out)
	}
}

// panicText is what a recover that prints its value shows.
func panicText(v any) (out string) {
	defer func() { out = fmt.Sprint(recover()) }()
	panic(v)
}
