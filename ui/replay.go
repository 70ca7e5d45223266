package ui

import (
	"strconv"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"tradedeck/panes/common"
)

// ReplayControl is the playback of a replayed recording (Options.Replay:
// the dashboard is replaying a recording, tradedeck replay).
type ReplayControl interface {
	TogglePause() (paused bool)
	Step()
	Speed() float64 // 0: max
	SetSpeed(float64)
	JumpBy(time.Duration)
}

// ReplaySpeeds are the speeds the faster/slower keys step through; 0 is max.
var ReplaySpeeds = []float64{0.25, 0.5, 1, 2, 4, 8, 16, 64, 0}

// replayKeys are the playback keys; none is bound elsewhere.
var replayKeys = struct{ pause, step, faster, slower, back, forward key.Binding }{
	pause:   key.NewBinding(key.WithKeys("space"), key.WithHelp("space", "pause/play")),
	step:    key.NewBinding(key.WithKeys("o"), key.WithHelp("o", "step one frame")),
	faster:  key.NewBinding(key.WithKeys("}"), key.WithHelp("}", "faster")),
	slower:  key.NewBinding(key.WithKeys("{"), key.WithHelp("{", "slower")),
	back:    key.NewBinding(key.WithKeys("("), key.WithHelp("(", "back 10s")),
	forward: key.NewBinding(key.WithKeys(")"), key.WithHelp(")", "ahead 10s")),
}

func newReplayHook(m *Model) Hook { return &replayHook{rc: m.opts.Replay} }

// replayHook gives a replayed dashboard its playback keys; without a
// ReplayControl it does nothing.
type replayHook struct{ rc ReplayControl }

func (h *replayHook) Init(*Model) tea.Cmd                              { return nil }
func (h *replayHook) Update(*Model, tea.Msg) tea.Cmd                   { return nil }
func (h *replayHook) Command(*Model, string, []string) (bool, tea.Cmd) { return false, nil }

func (h *replayHook) Help(*Model) []key.Binding {
	if h.rc == nil {
		return nil
	}
	k := replayKeys
	return []key.Binding{k.pause, k.step, k.slower, k.faster, k.back, k.forward}
}

func (h *replayHook) Key(_ *Model, msg tea.KeyPressMsg) (bool, tea.Cmd) {
	if h.rc == nil {
		return false, nil
	}
	k := replayKeys
	switch {
	case key.Matches(msg, k.pause):
		if h.rc.TogglePause() {
			return true, common.Notify(common.NoticeInfo, "replay paused (space plays, o steps)")
		}
		return true, common.Notify(common.NoticeInfo, "replay playing at "+SpeedLabel(h.rc.Speed()))
	case key.Matches(msg, k.step):
		h.rc.Step()
	case key.Matches(msg, k.faster), key.Matches(msg, k.slower):
		s := nextSpeed(h.rc.Speed(), key.Matches(msg, k.faster))
		h.rc.SetSpeed(s)
		return true, common.Notify(common.NoticeInfo, "replay speed "+SpeedLabel(s))
	case key.Matches(msg, k.back):
		h.rc.JumpBy(-10 * time.Second)
	case key.Matches(msg, k.forward):
		h.rc.JumpBy(10 * time.Second)
	default:
		return false, nil
	}
	return true, nil
}

// nextSpeed is the neighbour of s in ReplaySpeeds.
func nextSpeed(s float64, faster bool) float64 {
	i := 0
	for i < len(ReplaySpeeds) && ReplaySpeeds[i] != s {
		i++
	}
	if i == len(ReplaySpeeds) {
		i = 2 // an unlisted speed: restart from 1x
	}
	if faster {
		return ReplaySpeeds[min(i+1, len(ReplaySpeeds)-1)]
	}
	return ReplaySpeeds[max(i-1, 0)]
}

// SpeedLabel is "4x", "0.5x" or "max".
func SpeedLabel(s float64) string {
	if s == 0 {
		return "max"
	}
	return strconv.FormatFloat(s, 'f', -1, 64) + "x"
}
