package faults

import (
	"net/http"
	"net/http/httptest"
	"testing"
)

func TestSkipUpdate(t *testing.T) {
	in := New(1)
	in.Set(Config{SkipUpdateEvery: 3})
	var skipped []uint64
	for seq := uint64(1); seq <= 9; seq++ {
		if in.SkipUpdate("S", seq, true) {
			skipped = append(skipped, seq)
		}
	}
	if len(skipped) != 3 || skipped[0] != 3 || skipped[2] != 9 {
		t.Fatalf("every 3rd: %v", skipped)
	}
	// nobody subscribed: not a detectable gap, neither skipped nor counted
	if in.SkipUpdate("S", 12, false) || in.Counts().SkippedUpdates != 3 {
		t.Fatalf("unsubscribed push skipped or counted: %+v", in.Counts())
	}
	in.Set(Config{})
	in.SkipNextUpdate("T")
	if in.SkipUpdate("S", 20, true) || !in.SkipUpdate("T", 20, true) || in.SkipUpdate("T", 21, true) {
		t.Fatal("one-shot skip applies to its symbol, once")
	}
	if in.SkippedBySymbol("S") != 3 || in.SkippedBySymbol("T") != 1 || in.Counts().SkippedUpdates != 4 {
		t.Fatalf("per symbol %d/%d, total %+v", in.SkippedBySymbol("S"), in.SkippedBySymbol("T"), in.Counts())
	}
}

func TestNilInjectorInjectsNothing(t *testing.T) {
	var in *Injector
	if in.Stalled(false) || in.StallsStream(true) || in.FrameDelay() != 0 || in.Reorder(4) || in.SkipUpdate("S", 1, true) {
		t.Fatal("nil injector injected")
	}
}

func TestStallTargets(t *testing.T) {
	in := New(1)
	in.Set(Config{StallPrivate: true})
	if in.Stalled(false) || !in.Stalled(true) {
		t.Fatal("private-only stall")
	}
	in.Set(Config{Stall: true})
	if !in.Stalled(false) || !in.Stalled(true) || in.Counts().StalledFrames != 3 {
		t.Fatalf("full stall: %+v", in.Counts())
	}
}

func TestWrapRESTLetsHandshakesThrough(t *testing.T) {
	in := New(1)
	in.Set(Config{REST5xx: 1})
	h := in.WrapREST(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusTeapot) }))
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("GET", "/v1/public/info", nil))
	if rec.Code != 500 || rec.Header().Get("Content-Type") != "application/json" {
		t.Fatalf("REST call: %d", rec.Code)
	}
	req := httptest.NewRequest("GET", "/ws/stream/app", nil)
	req.Header.Set("Upgrade", "websocket")
	rec = httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	if rec.Code != http.StatusTeapot {
		t.Fatalf("handshake answered %d by the fault", rec.Code)
	}
}
