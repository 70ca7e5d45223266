package ui

import (
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"tradedeck/panes/common"
	"tradedeck/panes/confirm"
	"tradedeck/panes/confirm/cmdtest"
	"tradedeck/panes/panetest"
	"tradedeck/theme"
)

type fakePaper struct{ resets int }

func (p *fakePaper) Reset() error { p.resets++; return nil }

// :paper reset asks a strong confirmation and resets only on y, after the
// grace period; it is refused without a paper venue and when read-only.
func TestPaperResetCommand(t *testing.T) {
	pc := &fakePaper{}
	now := panetest.Now
	th, _ := theme.New("dark", false)
	m := New(Options{Venue: "PAPER", Symbol: "SPOT_ETH_USDT", Watchlist: []string{"SPOT_ETH_USDT"}, Theme: th,
		Keys: panetest.Keys(), Paper: pc, Now: func() time.Time { return now }})
	m.Update(tea.WindowSizeMsg{Width: 200, Height: 50})
	if !strings.Contains(m.Render(), " PAPER ") {
		t.Fatal("no PAPER badge")
	}
	open, ok := cmdtest.Find[common.OpenDialogMsg](cmdtest.Run(m.Run("paper reset")))
	if !ok {
		t.Fatal(":paper reset opened nothing")
	}
	dlg := open.Dialog.(*confirm.Model)
	if !dlg.Strong() || !strings.Contains(dlg.View(), "Reset the paper account") {
		t.Fatalf("not the strong reset confirmation:\n%s", dlg.View())
	}
	_, cmd := dlg.Update(cmdtest.Key("y")) // within the grace period: ignored
	cmdtest.Run(cmd)
	if pc.resets != 0 {
		t.Fatal("reset within the grace period")
	}
	now = now.Add(time.Second)
	_, cmd = dlg.Update(cmdtest.Key("y"))
	msgs := cmdtest.Run(cmd)
	if pc.resets != 1 {
		t.Fatalf("y did not reset (%d)", pc.resets)
	}
	r, ok := cmdtest.Find[paperResetMsg](msgs)
	if !ok {
		t.Fatal("no reset result")
	}
	_, cmd = m.Update(r)
	if n, ok := cmdtest.Find[common.NoticeMsg](cmdtest.Run(cmd)); !ok || !strings.Contains(n.Text, "paper account reset") {
		t.Fatalf("notice %+v", n)
	}

	for _, c := range []struct {
		name string
		m    *Model
		want string
	}{
		{"not paper", paperRoot(t, "", nil), "for a paper venue"},
		{"read-only", paperRoot(t, "read-only mode", pc), "read-only"},
	} {
		n, ok := cmdtest.Find[common.NoticeMsg](cmdtest.Run(c.m.Run("paper reset")))
		if !ok || !strings.Contains(n.Text, c.want) {
			t.Fatalf("%s: %+v", c.name, n)
		}
	}
}

// paperRoot is a root model on a paper venue's control (nil: none).
func paperRoot(t *testing.T, readOnly string, pc PaperControl) *Model {
	t.Helper()
	th, _ := theme.New("dark", false)
	m := New(Options{Venue: "PAPER", Symbol: "SPOT_ETH_USDT", Watchlist: []string{"SPOT_ETH_USDT"}, Theme: th,
		Keys: panetest.Keys(), ReadOnly: readOnly, Paper: pc, Now: panetest.Clock})
	m.Update(tea.WindowSizeMsg{Width: 200, Height: 50})
	return m
}
