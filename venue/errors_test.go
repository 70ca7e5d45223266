package venue

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"tradedeck/internal/testkit"
)

// TestRecordedErrors serves every recorded error body with its HTTP status
// and checks the typed error and the helpers, through a wrapping layer so
// errors.As is what finds them.
func TestRecordedErrors(t *testing.T) {
	cases := []struct {
		file                  string
		status                int
		code                  Code
		name, msg             string
		retry, auth, rejected bool
	}{
		{"rest/error_-1000.ccxt.json", 500, CodeUnknown, "UNKNOWN", "An internal error has occurred", true, false, false},
		{"rest/error_-1001.json", 401, CodeInvalidSignature, "INVALID_SIGNATURE", "order_price must be a positive number", false, true, false},
		{"rest/error_-1002_unauthorized.json", 401, CodeUnauthorized, "UNAUTHORIZED", "The request is unauthorized.", false, true, false},
		{"rest/error_-1011_maintenance.ccxt.json", 400, CodeRPCNotConnect, "RPC_NOT_CONNECT", "under maintenance", true, false, false},
		{"rest/error_-1012.ccxt.json", 400, CodeRPCReject, "RPC_REJECT", "Amount is required", true, false, false},
		{"rest/error_intro_-1005.json", 400, CodeInvalidParam, "INVALID_PARAM", "order_price must be a positive number", false, false, false},
	}
	lb := newLoopback(t)
	c := newTestClient(lb, newFakeClock(true), WithLimiter(nil))
	for _, tc := range cases {
		t.Run(tc.file, func(t *testing.T) {
			for enc, body := range encodings(t, testkit.ReadTestdata(t, tc.file)) {
				lb.answer(reply{status: tc.status, body: body})
				_, err := c.AccountInfo(context.Background())
				wrapped := fmt.Errorf("refreshing: %w", err)
				var ae *APIError
				if !errors.As(wrapped, &ae) {
					t.Fatalf("%s: error %T %v is not an *APIError", enc, err, err)
				}
				if ae.HTTPStatus != tc.status || ae.Code != tc.code || ae.Name != tc.name || !strings.Contains(ae.Message, tc.msg) {
					t.Errorf("%s: got %+v", enc, ae)
				}
				if IsRetryable(wrapped) != tc.retry || IsAuth(wrapped) != tc.auth || IsFilterReject(wrapped) != tc.rejected {
					t.Errorf("%s: retryable=%v auth=%v filter=%v", enc, IsRetryable(wrapped), IsAuth(wrapped), IsFilterReject(wrapped))
				}
				text := err.Error()
				for _, part := range []string{fmt.Sprint(int(tc.code)), tc.name, tc.msg, tc.code.Info().Meaning, "GET /v1/client/info"} {
					if !strings.Contains(text, part) {
						t.Errorf("%s: error text %q lacks %q", enc, text, part)
					}
				}
				assertNoSecrets(t, text, lb)
			}
		})
	}
}

// assertNoSecrets fails when text holds the secret or a signature sent.
func assertNoSecrets(t *testing.T, text string, lb *loopback) {
	t.Helper()
	if strings.Contains(text, testSecret) {
		t.Errorf("error text holds the secret: %q", text)
	}
	for _, r := range lb.requests() {
		if r.Sig != "" && strings.Contains(text, r.Sig) {
			t.Errorf("error text holds a signature: %q", text)
		}
	}
}

// TestErrorTable checks each code of the table gets its name, meaning and
// classification.
func TestErrorTable(t *testing.T) {
	lb := newLoopback(t)
	c := newTestClient(lb, newFakeClock(true), WithLimiter(nil), WithRetryOn429(false))
	for code, info := range Codes {
		lb.answer(reply{status: info.HTTPStatus, body: fmt.Appendf(nil, `{"success":false,"code":%d,"message":"detail %d"}`, code, code)})
		_, err := c.Tokens(context.Background())
		var ae *APIError
		if !errors.As(err, &ae) || ae.Code != code || ae.Name != info.Name || ae.HTTPStatus != info.HTTPStatus {
			t.Errorf("code %d: %v", code, err)
			continue
		}
		if !strings.Contains(err.Error(), info.Meaning) {
			t.Errorf("code %d: %q lacks the meaning", code, err)
		}
		wantRetry := code == -1000 || code == -1003 || code == -1011 || code == -1012
		wantAuth := code == -1001 || code == -1002
		wantFilter := code <= -1101 && code >= -1105
		if IsRetryable(err) != wantRetry || IsAuth(err) != wantAuth || IsFilterReject(err) != wantFilter {
			t.Errorf("code %d: retryable=%v auth=%v filter=%v", code, IsRetryable(err), IsAuth(err), IsFilterReject(err))
		}
		if IsNotFound(err) != (code == CodeResourceNotFound) || IsRateLimited(err) != (code == CodeTooManyRequest) {
			t.Errorf("code %d: notfound/ratelimited wrong", code)
		}
	}
}

// TestMalformedErrorBodies: whatever a proxy or a broken server answers,
// the caller gets a clear *APIError with the HTTP status.
func TestMalformedErrorBodies(t *testing.T) {
	cases := []struct {
		name   string
		status int
		body   string
		want   []string
		retry  bool
	}{
		{"html 502", 502, "<html><head><title>502 Bad Gateway</title></head><body><center><h1>502 Bad Gateway</h1></center><hr><center>nginx</center></body></html>",
			[]string{"HTTP 502", "Bad Gateway", "non-JSON body", "nginx"}, true},
		{"empty 503", 503, "", []string{"HTTP 503", "Service Unavailable", "empty body"}, true},
		{"truncated json 500", 500, `{"success":false,"code":-10`, []string{"HTTP 500", "non-JSON body"}, false},
		{"json without code 400", 400, `{"success":false}`, []string{"HTTP 400", "without an error code"}, false},
		{"bad code type", 400, `{"success":false,"code":{"x":1},"message":"m"}`, []string{"HTTP 400", "non-JSON body"}, false},
		{"success false on 200", 200, `{"success":false,"code":"-1006","message":"order not found"}`, []string{"HTTP 200", "-1006", "RESOURCE_NOT_FOUND", "order not found"}, false},
		{"plain text 429", 429, "slow down", []string{"HTTP 429", "Too Many Requests", "slow down"}, true},
		{"binary 500", 500, "\x00\x01\xff\xfe{", []string{"HTTP 500"}, false},
		{"unlisted code", 418, `{"success":false,"code":-4242,"message":"teapot"}`, []string{"HTTP 418", "-4242", "UNLISTED", "teapot"}, false},
	}
	lb := newLoopback(t)
	c := newTestClient(lb, newFakeClock(true), WithLimiter(nil), WithRetryOn429(false))
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			lb.answer(reply{status: tc.status, body: []byte(tc.body)})
			_, err := c.Holding(context.Background())
			var ae *APIError
			if !errors.As(err, &ae) {
				t.Fatalf("error %T %v", err, err)
			}
			if ae.HTTPStatus != tc.status {
				t.Errorf("status %d", ae.HTTPStatus)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("%q lacks %q", err, w)
				}
			}
			if IsRetryable(err) != tc.retry {
				t.Errorf("retryable = %v", IsRetryable(err))
			}
			if strings.ContainsAny(err.Error(), "\x00\n<>") {
				t.Errorf("unsanitised error text %q", err)
			}
			assertNoSecrets(t, err.Error(), lb)
		})
	}
}

// A 200 reply that is not the expected JSON is a clear error, not a panic
// or a zero value taken for data.
func TestUndecodableSuccess(t *testing.T) {
	lb := newLoopback(t)
	c := newTestClient(lb, newFakeClock(true), WithLimiter(nil))
	lb.answer(reply{status: 200, body: []byte(`{"success":true,"rows":[{"quote_min":"abc"}]}`)})
	_, err := c.SymbolRules(context.Background())
	if err == nil || !strings.Contains(err.Error(), "HTTP 200 reply not understood") {
		t.Fatalf("err = %v", err)
	}
	lb.answer(reply{status: 200, body: []byte(`<html>maintenance</html>`)})
	if _, err := c.SymbolRules(context.Background()); err == nil {
		t.Fatal("HTML accepted as rows")
	}
}

func TestTransportErrors(t *testing.T) {
	lb := newLoopback(t)
	c := newTestClient(lb, newFakeClock(true), WithLimiter(nil))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := c.Holding(ctx)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled context: %v", err)
	}
	lb.srv.Close()
	_, err = c.Holding(context.Background())
	if err == nil || !strings.Contains(err.Error(), "GET /base/v1/client/holding") {
		t.Fatalf("closed server: %v", err)
	}
	assertNoSecrets(t, err.Error(), lb)
}

// Without keys public endpoints go out unsigned and private ones are
// refused before anything is sent.
func TestNoCredentials(t *testing.T) {
	lb := newLoopback(t)
	c := NewClient(lb.endpoints(), Credentials{}, WithLimiter(nil))
	lb.answer(reply{status: 200, body: testkit.ReadTestdata(t, "rest/v1_public_info.json")})
	if _, err := c.SymbolRules(context.Background()); err != nil {
		t.Fatal(err)
	}
	r := lb.requests()[0]
	if r.Key != "" || r.Sig != "" || r.TS != "" {
		t.Errorf("unsigned request carried auth headers: %+v", r)
	}
	lb.answer()
	if _, err := c.Holding(context.Background()); !errors.Is(err, ErrNoCredentials) {
		t.Fatalf("private without keys: %v", err)
	}
	if n := len(lb.requests()); n != 0 {
		t.Fatalf("%d requests sent without keys", n)
	}
	if c.CanTrade() {
		t.Error("CanTrade without keys")
	}
}

func TestNoAddress(t *testing.T) {
	c := NewClient(Endpoints{BaseURL: "http://127.0.0.1:1"}, Credentials{}, WithLimiter(nil))
	_, _, err := c.HistKline(context.Background(), HistKlineRequest{Symbol: "SPOT_BTC_USDT", Type: "1h", StartTime: day})
	if err == nil || !strings.Contains(err.Error(), "no address") {
		t.Fatalf("err = %v", err)
	}
}

func TestRetryAfterHeader(t *testing.T) {
	h := http.Header{}
	h.Set("Retry-After", "3")
	if d := retryAfter(h, GroupPublic); d.Seconds() != 3 {
		t.Fatalf("Retry-After 3 -> %v", d)
	}
	if d := retryAfter(http.Header{}, GroupAccountInfo); d.Minutes() != 1 {
		t.Fatalf("default for a 60 s group -> %v", d)
	}
}
