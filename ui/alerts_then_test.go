package ui

import (
	"slices"
	"testing"

	"tradedeck/algo"
)

// listAlgos is an engine that lists algos and does nothing else (any
// other call is a test bug: the embedded interface is nil).
type listAlgos struct {
	Algos
	list []algo.Algo
}

func (l listAlgos) Snapshot() []algo.Algo { return l.list }

// `:alert ... then` completes the verbs, then the algos each verb can
// act on: working orders for pause, trailing stops for tighten, any open
// algo for cancel; never a finished one.
func TestAlertThenCompletion(t *testing.T) {
	m := newTestModel(t, 120, 40, false)
	m.opts.Alerts = &AlertDesk{}
	m.opts.Algos = listAlgos{list: []algo.Algo{
		{ID: 3, Spec: algo.Spec{Kind: algo.KindChase}, State: algo.StateWorking},
		{ID: 4, Spec: algo.Spec{Kind: algo.KindTrail}, State: algo.StateArmed},
		{ID: 5, Spec: algo.Spec{Kind: algo.KindStop}, State: algo.StateArmed},
		{ID: 6, Spec: algo.Spec{Kind: algo.KindTWAP}, State: algo.StateCancelled},
	}}
	cases := []struct {
		line string
		want []string
	}{
		{"alert BTC above 100 ", []string{"alert BTC above 100 then "}},
		{"alert BTC above 100", nil},
		{"alert BTC above 100 then ", []string{"alert BTC above 100 then pause ", "alert BTC above 100 then resume ",
			"alert BTC above 100 then cancel ", "alert BTC above 100 then tighten "}},
		{"alert BTC above 100 then ti", []string{"alert BTC above 100 then tighten "}},
		{"alert BTC above 100 then pause ", []string{"alert BTC above 100 then pause 3 "}},
		{"alert BTC above 100 then tighten ", []string{"alert BTC above 100 then tighten 4 "}},
		{"alert BTC above 100 then cancel ", []string{"alert BTC above 100 then cancel 3 ", "alert BTC above 100 then cancel 4 ",
			"alert BTC above 100 then cancel 5 "}},
		{"alert BTC above 100 then cancel 4", []string{"alert BTC above 100 then cancel 4 "}},
		{"symbol BTC then ", nil},
	}
	for _, c := range cases {
		if got := m.alertThenCompletions(c.line); !slices.Equal(got, c.want) {
			t.Errorf("%q: %q, want %q", c.line, got, c.want)
		}
	}
	m.opts.Algos = nil
	if got := m.alertThenCompletions("alert BTC above 100 then "); got != nil {
		t.Errorf("no engine: %q", got)
	}
}
