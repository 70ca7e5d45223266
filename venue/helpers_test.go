package venue

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/shopspring/decimal"
)

// fakeClock is a Clock for tests. In auto mode Sleep moves time forward at
// once (a test of waiting costs no real time); otherwise Sleep blocks until
// Advance passes its deadline or its context ends.
type fakeClock struct {
	mu      sync.Mutex
	now     time.Time
	auto    bool
	slept   time.Duration
	sleeps  int
	waiters []fakeWaiter
}

type fakeWaiter struct {
	until time.Time
	ch    chan struct{}
}

func newFakeClock(auto bool) *fakeClock {
	return &fakeClock{now: time.UnixMilli(1700000000000), auto: auto}
}

func (f *fakeClock) Now() time.Time {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.now
}

func (f *fakeClock) Sleep(ctx context.Context, d time.Duration) error {
	f.mu.Lock()
	f.sleeps++
	if f.auto {
		f.now = f.now.Add(d)
		f.slept += d
		f.mu.Unlock()
		return ctx.Err()
	}
	w := fakeWaiter{until: f.now.Add(d), ch: make(chan struct{})}
	f.waiters = append(f.waiters, w)
	f.mu.Unlock()
	select {
	case <-w.ch:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Advance moves time and wakes the sleepers whose time has come.
func (f *fakeClock) Advance(d time.Duration) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.now = f.now.Add(d)
	kept := f.waiters[:0]
	for _, w := range f.waiters {
		if !w.until.After(f.now) {
			close(w.ch)
		} else {
			kept = append(kept, w)
		}
	}
	f.waiters = kept
}

// waitSleepers blocks until n goroutines sleep on the clock.
func (f *fakeClock) waitSleepers(t *testing.T, n int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		f.mu.Lock()
		got := len(f.waiters)
		f.mu.Unlock()
		if got >= n {
			return
		}
		time.Sleep(time.Millisecond)
	}
	t.Fatalf("timed out waiting for %d sleepers", n)
}

func (f *fakeClock) totalSlept() time.Duration {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.slept
}

// keepString are keys whose values are strings in the spec even when they
// look like numbers (an account named "2").
var keepString = map[string]bool{
	"account": true, "alias": true, "application_id": true, "external_id": true, "tx_id": true,
	"extra": true, "address": true, "token": true, "api_key": true, "msg": true, "ip_list": true,
	"from_user": true, "to_user": true,
}

// encodings returns the reply in its own form, with every number written
// as a string, and with every numeric string written as a number: the
// client must decode all three to the same values.
func encodings(t testing.TB, data []byte) map[string][]byte {
	t.Helper()
	var v any
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		t.Fatalf("fixture is not JSON: %v", err)
	}
	out := map[string][]byte{"original": data}
	for _, mode := range []string{"strings", "numbers"} {
		b, err := json.Marshal(recode(v, "", mode))
		if err != nil {
			t.Fatal(err)
		}
		out[mode] = b
	}
	return out
}

func recode(v any, key, mode string) any {
	switch x := v.(type) {
	case map[string]any:
		m := make(map[string]any, len(x))
		for k, e := range x {
			m[k] = recode(e, k, mode)
		}
		return m
	case []any:
		s := make([]any, len(x))
		for i, e := range x {
			s[i] = recode(e, key, mode)
		}
		return s
	case json.Number:
		if mode == "strings" {
			return string(x)
		}
	case string:
		if mode == "numbers" && !keepString[key] {
			if _, err := strconv.ParseFloat(x, 64); err == nil {
				return json.Number(x)
			}
		}
	}
	return v
}

// str renders a value for comparison in checks.
func str(v any) string {
	switch x := v.(type) {
	case SecTime:
		return strconv.FormatInt(x.UnixMilli(), 10)
	case MsTime:
		return strconv.FormatInt(x.UnixMilli(), 10)
	case EpochTime:
		return strconv.FormatInt(x.UnixMilli(), 10)
	case decimal.NullDecimal:
		if !x.Valid {
			return "null"
		}
		return x.Decimal.String()
	case interface{ String() string }:
		return x.String()
	}
	return fmt.Sprint(v)
}

// expect compares got (rendered by str) with want, naming the field.
func expect(t *testing.T, field string, got any, want string) {
	t.Helper()
	if s := str(got); s != want {
		t.Errorf("%s = %s, want %s", field, s, want)
	}
}
