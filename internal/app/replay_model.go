package app

import (
	"fmt"
	"slices"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"tradedeck/replay"
	"tradedeck/ui"
)

// replayModel is the dashboard with a playback bar on its last line: the
// recorded time being played, the speed, the progress through the file,
// and the playback keys (handled by ui's replay hook).
type replayModel struct {
	inner *ui.Model
	srv   *replay.Server
	w, h  int
}

type replayTick struct{}

func newReplayModel(m *ui.Model, srv *replay.Server) *replayModel {
	return &replayModel{inner: m, srv: srv}
}

func replayTicker() tea.Cmd {
	return tea.Tick(200*time.Millisecond, func(time.Time) tea.Msg { return replayTick{} })
}

func (m *replayModel) Init() tea.Cmd { return tea.Batch(m.inner.Init(), replayTicker()) }

func (m *replayModel) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.w, m.h = msg.Width, msg.Height
		msg.Height = max(msg.Height-1, 1)
		_, cmd := m.inner.Update(msg)
		return m, cmd
	case replayTick:
		return m, replayTicker()
	}
	_, cmd := m.inner.Update(msg)
	return m, cmd
}

func (m *replayModel) View() tea.View {
	v := m.inner.View()
	bar := replayBar(m.srv.Status(), m.w, m.inner.Common().Theme.Glyphs.ASCII)
	if v.Lines != nil {
		v.Lines = append(slices.Clip(v.Lines), bar) // a new slice: the dashboard's rows are never changed
	} else {
		v.Content += "\n" + bar
	}
	return v
}

// replayBar is the playback line: state, recorded time, speed, progress.
func replayBar(st replay.Status, width int, ascii bool) string {
	state := "PLAY"
	switch {
	case !st.Started:
		state = "WAIT"
	case st.Ended:
		state = "END"
	case st.Paused:
		state = "PAUSE"
	}
	span := st.Last.Sub(st.First)
	frac := 0.0
	if span > 0 {
		frac = float64(st.Now.Sub(st.First)) / float64(span)
	}
	frac = min(max(frac, 0), 1)
	left := fmt.Sprintf(" REPLAY %s %s UTC  %s  %s/%s ", state, st.Now.UTC().Format("2006-01-02 15:04:05.000"),
		ui.SpeedLabel(st.Speed), st.Now.Sub(st.First).Truncate(time.Second), span.Truncate(time.Second))
	keys := "  space pause  o step  {/} speed  (/) 10s"
	barW := width - len(left) - len(keys) - 2
	bar := ""
	if barW >= 10 {
		fill, empty := "█", "░"
		if ascii {
			fill, empty = "#", "-"
		}
		n := int(frac * float64(barW))
		bar = "[" + strings.Repeat(fill, n) + strings.Repeat(empty, barW-n) + "]"
	}
	if bar == "" {
		keys = ""
	}
	return ansi.Truncate("\x1b[7m"+left+"\x1b[0m"+bar+keys, width, "")
}
