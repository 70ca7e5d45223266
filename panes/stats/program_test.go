package stats

import (
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/teatest/v2"
)

// host runs the pane as a whole program, the way the dashboard embeds it,
// and reports every result it routes.
type host struct {
	pane    Model
	results chan ResultMsg
}

func (h *host) Init() tea.Cmd { return h.pane.Init() }

func (h *host) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		h.pane.SetSize(msg.Width, msg.Height)
	case tea.KeyPressMsg:
		if msg.String() == "q" {
			return h, tea.Quit
		}
	case ResultMsg:
		defer func() { h.results <- msg }()
	}
	var cmd tea.Cmd
	h.pane, cmd = h.pane.Update(msg)
	return h, cmd
}

func (h *host) View() tea.View { return tea.NewView(h.pane.View()) }

// The real runtime: Init's fetch and ticker run as commands, keys switch
// the selection, results come back as messages.
func TestInProgram(t *testing.T) {
	ts := newTestServer(t)
	now := fixedNow
	m := New(newCache(ts, &now), Options{RefreshEvery: 50 * time.Millisecond})
	m.Focus()
	h := &host{pane: m, results: make(chan ResultMsg, 64)}
	tm := teatest.NewTestModel(t, h, teatest.WithInitialTermSize(120, 40))
	wait := func(network, period string) {
		t.Helper()
		deadline := time.After(10 * time.Second)
		for {
			select {
			case r := <-h.results:
				if r.Network == network && r.Period == period && r.Snapshot.HasData() {
					return
				}
			case <-deadline:
				t.Fatalf("no result for %s %s", network, period)
			}
		}
	}
	wait("bsc", "1w")
	wait("bsc", "1w") // the ticker asks again (the cache answers)
	tm.Send(tea.KeyPressMsg{Code: 'n', Text: "n"})
	wait("avax", "1w")
	tm.Send(tea.KeyPressMsg{Code: ']', Text: "]"})
	wait("avax", "1m")
	tm.Send(tea.KeyPressMsg{Code: 'q', Text: "q"})
	final := tm.FinalModel(t, teatest.WithFinalTimeout(10*time.Second)).(*host)
	v := ansi.Strip(final.pane.View())
	for _, want := range []string{"[avax]", "[1m]", "Sources by volume, avax 1m", "Oct 23", "$0"} {
		if !strings.Contains(v, want) {
			t.Errorf("final view lacks %q:\n%s", want, v)
		}
	}
}
