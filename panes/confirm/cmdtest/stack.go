package cmdtest

import (
	tea "charm.land/bubbletea/v2"

	"tradedeck/panes/common"
)

// Stack drives dialogs the way the root model does: OpenDialogMsg pushes,
// CloseDialogMsg pops, keys go to the top dialog (or OnKey when there is
// none), every other message to all dialogs and to OnMsg; commands run
// synchronously (REST calls included), their messages delivered in order.
type Stack struct {
	Dialogs []common.Dialog
	Notices []common.NoticeMsg
	Seen    []tea.Msg // every other message delivered
	W, H    int
	OnKey   func(tea.KeyPressMsg) tea.Cmd
	OnMsg   func(tea.Msg) tea.Cmd
}

// Top is the top dialog, or nil.
func (s *Stack) Top() common.Dialog {
	if len(s.Dialogs) == 0 {
		return nil
	}
	return s.Dialogs[len(s.Dialogs)-1]
}

// LastNotice is the text of the newest notice.
func (s *Stack) LastNotice() string {
	if len(s.Notices) == 0 {
		return ""
	}
	return s.Notices[len(s.Notices)-1].Text
}

// Run executes cmd and delivers its messages.
func (s *Stack) Run(cmd tea.Cmd) {
	for _, m := range Run(cmd) {
		s.Deliver(m)
	}
}

// Deliver routes one message.
func (s *Stack) Deliver(msg tea.Msg) {
	switch m := msg.(type) {
	case common.OpenDialogMsg:
		m.Dialog.SetSize(s.W, s.H)
		s.Dialogs = append(s.Dialogs, m.Dialog)
		return
	case common.CloseDialogMsg:
		if len(s.Dialogs) > 0 {
			s.Dialogs = s.Dialogs[:len(s.Dialogs)-1]
		}
		return
	case common.NoticeMsg:
		s.Notices = append(s.Notices, m)
		return
	case tea.KeyPressMsg:
		if top := s.Top(); top != nil {
			_, cmd := top.Update(m)
			s.Run(cmd)
		} else if s.OnKey != nil {
			s.Run(s.OnKey(m))
		}
		return
	}
	s.Seen = append(s.Seen, msg)
	var cmds []tea.Cmd
	for i, d := range s.Dialogs {
		nd, cmd := d.Update(msg)
		s.Dialogs[i] = nd
		cmds = append(cmds, cmd)
	}
	if s.OnMsg != nil {
		cmds = append(cmds, s.OnMsg(msg))
	}
	for _, c := range cmds {
		s.Run(c)
	}
}

// Press delivers named keys ("enter", "tab", "shift+tab", "up", "down",
// "left", "right", "esc", "backspace", "pgup", "pgdown", "space") or
// single characters.
func (s *Stack) Press(keys ...string) {
	for _, k := range keys {
		s.Deliver(Key(k))
	}
}

// Type delivers each character of text as a key.
func (s *Stack) Type(text string) {
	for _, r := range text {
		s.Deliver(tea.KeyPressMsg{Code: r, Text: string(r)})
	}
}

var named = map[string]tea.KeyPressMsg{
	"enter": {Code: tea.KeyEnter}, "tab": {Code: tea.KeyTab}, "shift+tab": {Code: tea.KeyTab, Mod: tea.ModShift},
	"up": {Code: tea.KeyUp}, "down": {Code: tea.KeyDown}, "left": {Code: tea.KeyLeft}, "right": {Code: tea.KeyRight},
	"esc": {Code: tea.KeyEscape}, "backspace": {Code: tea.KeyBackspace}, "pgup": {Code: tea.KeyPgUp},
	"pgdown": {Code: tea.KeyPgDown}, "space": {Code: tea.KeySpace, Text: " "},
}

// Key is the key press of a name or a single character.
func Key(k string) tea.KeyPressMsg {
	if m, ok := named[k]; ok {
		return m
	}
	r := []rune(k)[0]
	return tea.KeyPressMsg{Code: r, Text: string(r)}
}
