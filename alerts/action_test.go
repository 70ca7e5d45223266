package alerts

import (
	"context"
	"errors"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"tradedeck/internal/testkit"
)

func TestParseActions(t *testing.T) {
	cases := []struct{ in, want string }{
		{"SPOT_BTC_USDT above 50000 then pause 12", "SPOT_BTC_USDT last above 50000 once then pause 12"},
		{"btc below 49000 then pause chase 12", "BTC last below 49000 once then pause chase 12"},
		{"btc below 49000 every 5m then cancel #7", "BTC last below 49000 every 5m then cancel 7"},
		{"btc below 49000 THEN Resume 3 every", "BTC last below 49000 every then resume 3"},
		{"btc below 49000 then tighten 12 1%", "BTC last below 49000 once then tighten 12 1%"},
		{"btc below 49000 then tighten trail 12 150", "BTC last below 49000 once then tighten trail 12 150"},
		{"stream market down 30s then pause twap 4", "stream market down 30s every then pause twap 4"},
		{"* order filled then cancel 9 once", "* order filled once then cancel 9"},
	}
	for _, c := range cases {
		a, err := Parse(strings.Fields(c.in), nil)
		if err != nil {
			t.Errorf("%q: %v", c.in, err)
			continue
		}
		if got := a.String(); got != c.want {
			t.Errorf("%q parsed as %q, want %q", c.in, got, c.want)
		}
		again, err := Parse(strings.Fields(a.String()), nil)
		if err != nil || again.String() != a.String() {
			t.Errorf("%q does not parse back: %q %v", a.String(), again.String(), err)
		}
	}
	a, _ := Parse(strings.Fields("btc above 1 then tighten 5 0.5%"), nil)
	if a.Then == nil || a.Then.Verb != VerbTighten || a.Then.Algo != 5 || a.Then.Percent.String() != "0.5" || !a.Then.Distance.IsZero() {
		t.Fatalf("tighten by percent: %+v", a.Then)
	}
	a, _ = Parse(strings.Fields("btc above 1 then tighten 5 150"), nil)
	if a.Then == nil || a.Then.Distance.String() != "150" || !a.Then.Percent.IsZero() {
		t.Fatalf("tighten by distance: %+v", a.Then)
	}
	bad := map[string]string{
		"btc above 1 then":                   "then what?",
		"btc above 1 then explode 3":         "can pause, resume or cancel",
		"btc above 1 then pause":             "which algo?",
		"btc above 1 then pause chase":       "which algo?",
		"btc above 1 then pause x":           "not an algo number",
		"btc above 1 then pause -3":          "not an algo number",
		"btc above 1 then pause 3 sometimes": `unexpected "sometimes"`,
		"btc above 1 then tighten 3":         "to what?",
		"btc above 1 then tighten stop 3 1%": "only a trailing stop",
		"btc above 1 then tighten 3 0%":      "must be positive",
		"btc above 1 then tighten 3 100%":    "below 100",
		"btc above 1 then tighten 3 abc":     "not a number",
		"btc sideways 1 then pause 3":        "expected above, below",
	}
	for in, want := range bad {
		_, err := Parse(strings.Fields(in), nil)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: error %v, want it to say %q", in, err, want)
		}
	}
}

// An alert with an action is added only when the host's check accepts
// the action (nil Check: refused); the engine stamps who added it; each
// firing carries the action, the count and a key naming that firing.
func TestAddChecksTheActionAndFiringsCarryIt(t *testing.T) {
	path := filepath.Join(t.TempDir(), "alerts.json")
	r := newRig(t, NewStore(path))
	a, _ := Parse(strings.Fields("SPOT_BTC_USDT above 100 then pause 12"), nil)
	if _, err := r.e.Add(a); !errors.Is(err, ErrCannotAct) {
		t.Fatalf("no Check: %v, want ErrCannotAct", err)
	}
	var checked []Action
	refuse := errors.New("no algo #12 in this account")
	r = newRigWith(t, Options{Store: NewStore(path), By: "SHA256:key", Check: func(x Action) error {
		checked = append(checked, x)
		if x.Algo == 12 {
			return refuse
		}
		return nil
	}})
	if _, err := r.e.Add(a); !errors.Is(err, refuse) || !strings.Contains(err.Error(), "then pause 12: no algo #12") {
		t.Fatalf("refused action: %v", err)
	}
	if len(r.e.List()) != 0 {
		t.Fatal("a refused alert was stored")
	}
	added := r.add("SPOT_BTC_USDT above 100 every 1m then cancel 7")
	plain := r.add("SPOT_BTC_USDT above 100")
	if added.By != "SHA256:key" || len(checked) != 2 || checked[1].Verb != VerbCancel {
		t.Fatalf("added %+v, checked %+v", added, checked)
	}
	r.trade("SPOT_BTC_USDT", "101")
	got := r.expect("cross", 2, "crossed above 100")
	var withAct, without Fired
	for _, f := range got {
		if f.Alert == added.ID {
			withAct = f
		} else {
			without = f
		}
	}
	if withAct.Action == nil || withAct.Action.String() != "cancel 7" || withAct.By != "SHA256:key" || withAct.N != 1 ||
		!strings.Contains(withAct.Message, "(then cancel 7)") || !strings.HasPrefix(withAct.Key, path+"#") {
		t.Fatalf("firing with an action: %+v", withAct)
	}
	if without.Action != nil || without.Alert != plain.ID || without.Key == withAct.Key {
		t.Fatalf("firing without one: %+v", without)
	}
	// The next firing of the same alert has its own key; the same firing
	// seen by another engine on the same file has the same one.
	r.trade("SPOT_BTC_USDT", "99")
	r.clk.Advance(2 * time.Minute)
	r.trade("SPOT_BTC_USDT", "101")
	second := r.expect("again", 1, "crossed above 100")[0]
	if second.N != 2 || second.Key == withAct.Key {
		t.Fatalf("second firing: %+v (first %q)", second, withAct.Key)
	}
	if err := r.e.Flush(); err != nil {
		t.Fatal(err)
	}
	f, err := NewStore(path).Load()
	if err != nil || f.Alerts[0].Then == nil || f.Alerts[0].Then.Algo != 7 || f.Fired[0].Action == nil {
		t.Fatalf("the action is not in the file: %+v %v", f, err)
	}
	other := newRigWith(t, Options{Store: NewStore(path), Check: func(Action) error { return nil }})
	other.trade("SPOT_BTC_USDT", "99")
	other.clk.Advance(r.clk.Now().Add(2 * time.Minute).Sub(other.clk.Now()))
	other.trade("SPOT_BTC_USDT", "101")
	r.trade("SPOT_BTC_USDT", "99")
	r.clk.Advance(2 * time.Minute)
	r.trade("SPOT_BTC_USDT", "101")
	mine, theirs := r.expect("third here", 1, "above"), other.expect("third there", 1, "above")
	if mine[0].Key != theirs[0].Key || mine[0].N != 3 {
		t.Fatalf("one firing, two keys: %q %q", mine[0].Key, theirs[0].Key)
	}
}

// The runner does each firing once, in order, off the caller's
// goroutine; an action's outcome is shown whatever the channels (a
// refusal as an error); a full queue says what was not done.
func TestActsRunsEachFiringOnceAndShowsOutcomes(t *testing.T) {
	d := NewDeliverer(Channels{}) // every visible channel off
	var mu sync.Mutex
	var done []int
	release := make(chan struct{})
	acts := NewActs(func(_ context.Context, f Fired) Outcome {
		<-release
		mu.Lock()
		done = append(done, f.Alert)
		mu.Unlock()
		if f.Alert == 2 {
			return Outcome{Fired: f, Text: "alert 2: pause 12 refused", Err: errors.New("algo #12 is done")}
		}
		return Outcome{Fired: f, Text: "alert " + strconv.Itoa(f.Alert) + " ok"}
	}, d)
	act := &Action{Verb: VerbPause, Algo: 12}
	acts.Queue(Fired{Alert: 1, Action: act})
	acts.Queue(Fired{Alert: 2, Action: act})
	acts.Queue(Fired{Alert: 3}) // no action: recorded, nothing shown
	for i := 0; i < ActsQueue-3; i++ {
		acts.Queue(Fired{Alert: 100, Action: act})
	}
	acts.Queue(Fired{Alert: 999, Action: act}) // the queue is full
	n := <-d.Notes()
	if n.Level != NoteError || !strings.Contains(n.Text, "alert 999: its action (pause 12) not done: too many firings") {
		t.Fatalf("full queue: %+v", n)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go acts.Run(ctx)
	close(release)
	n = <-d.Notes()
	if n.Level != NoteAction || !n.Show || n.Text != "alert 1 ok" || n.Outcome == nil || n.Fired.Alert != 1 {
		t.Fatalf("first outcome: %+v", n)
	}
	n = <-d.Notes()
	if n.Level != NoteError || !n.Show || n.Outcome == nil || n.Outcome.Err == nil {
		t.Fatalf("refusal: %+v", n)
	}
	testkit.WaitFor(t, "the queue done", 10*time.Second, func() bool {
		mu.Lock()
		defer mu.Unlock()
		return len(done) == ActsQueue
	})
	mu.Lock()
	defer mu.Unlock()
	if done[0] != 1 || done[1] != 2 || done[2] != 3 {
		t.Fatalf("order: %v", done[:3])
	}
}

// A firing names itself as an algo's reason without the action its
// message already ends with, and with who added the alert.
func TestFiredCause(t *testing.T) {
	act := &Action{Verb: VerbCancel, Kind: "chase", Algo: 12}
	f := Fired{Alert: 3, Message: "PERP_ETH_USDT last 3501 crossed above 3500 (then cancel chase 12)", Action: act}
	if got, want := f.Cause(), "alert 3 (PERP_ETH_USDT last 3501 crossed above 3500)"; got != want {
		t.Fatalf("%q, want %q", got, want)
	}
	f.By = "SHA256:abc"
	if got, want := f.Cause(), "alert 3 of SHA256:abc (PERP_ETH_USDT last 3501 crossed above 3500)"; got != want {
		t.Fatalf("%q, want %q", got, want)
	}
}
