package ui

import (
	"strconv"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"tradedeck/panes/common"
)

// No action without its screen. Every key passes one gate before any
// routing: while the terminal is smaller than the dashboard, only quit
// works; a dialog (order form, confirmation, account screen, prompt) gets
// keys only when the last frame drew it whole, with the SIM/LIVE badge
// visible. Trading keys, ':' commands and account changes all act through
// such a dialog, so none of them can act on a screen the user cannot see.

// frameShown is what the last frame put on the terminal, recorded by
// Render and read by the gate.
type frameShown struct {
	gen    uint64 // the dialog stack generation the frame drew
	whole  bool   // the top dialog was drawn entirely, nothing over it
	banner bool   // the SIM/LIVE badge was on screen
}

// tooSmall reports whether the screen is below the dashboard's minimum.
func (m *Model) tooSmall() bool { return m.c.Width < MinWidth || m.c.Height < MinHeight }

// stackChanged marks the last frame stale: the dialog stack or the screen
// changed, and the gate waits for the next frame to see the result.
func (m *Model) stackChanged() {
	m.stackGen++
	m.helpBar.invalidate() // the footer names the grid's keys only with no dialog open
}

// gate decides a key before it is routed. handled=true: the key stops
// here (with cmd).
func (m *Model) gate(msg tea.KeyPressMsg) (cmd tea.Cmd, handled bool) {
	k := m.c.Keys
	if msg.String() == "ctrl+c" {
		return tea.Quit, true
	}
	if m.tooSmall() {
		if k != nil && key.Matches(msg, k.Quit) {
			return tea.Quit, true
		}
		m.ignored++ // the too-small screen counts them
		return nil, true
	}
	n := len(m.dialogs)
	if n == 0 || m.dialogDrawn() {
		return nil, false
	}
	if msg.String() == "esc" || (k != nil && key.Matches(msg, k.Back)) {
		// Closing sends nothing: the one key a half-seen dialog takes.
		m.dialogs = m.dialogs[:n-1]
		m.stackChanged()
		return nil, true
	}
	return common.Notify(common.NoticeWarn, "the dialog is not fully on screen: enlarge the terminal, or esc to close it"), true
}

// dialogDrawn reports whether the last frame drew the current top dialog
// whole with the venue badge visible.
func (m *Model) dialogDrawn() bool {
	s := m.shown
	return s.gen == m.stackGen && s.whole && s.banner
}

// pushDialog opens a dialog unless the screen is too small to show it.
func (m *Model) pushDialog(d common.Dialog) {
	if m.tooSmall() {
		m.dropped++ // e.g. a confirmation whose form was closed by a shrink
		return
	}
	d.SetSize(m.c.Width, m.c.Height-headerRows)
	m.dialogs = append(m.dialogs, d)
	m.stackChanged()
}

// popDialog closes the top dialog.
func (m *Model) popDialog() {
	if n := len(m.dialogs); n > 0 {
		m.dialogs = m.dialogs[:n-1]
		m.stackChanged()
	}
}

// shrunk closes what acted on the screen when it fell below the minimum:
// every dialog (nothing they would send is sent) and the command line.
func (m *Model) shrunk() {
	m.dropped += len(m.dialogs)
	if m.cmdActive {
		m.dropped++
		m.cmdActive = false
		m.cmdline.Blur()
	}
	m.dialogs = nil
	m.stackChanged()
}

// grown reports, once the screen is large enough again, what the shrink
// closed.
func (m *Model) grown() {
	m.ignored = 0
	if m.dropped == 0 {
		return
	}
	m.notify(common.NoticeWarn, "the terminal was too small: "+strconv.Itoa(m.dropped)+
		" open dialog(s) closed, nothing was sent")
	m.dropped = 0
}

// tooSmallText is the message of the too-small screen.
func (m *Model) tooSmallText(w, h int) string {
	s := "terminal too small: " + strconv.Itoa(w) + "x" + strconv.Itoa(h) +
		", tradedeck needs at least " + strconv.Itoa(MinWidth) + "x" + strconv.Itoa(MinHeight) +
		". Keys are ignored until it is larger (q quits)."
	if m.dropped > 0 {
		s += " Open dialogs were closed; nothing was sent."
	}
	if m.ignored > 0 {
		s += " " + strconv.Itoa(m.ignored) + " key(s) ignored."
	}
	return s
}
