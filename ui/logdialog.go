package ui

import (
	"strconv"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"tradedeck/panes/common"
)

// noticeLogSize bounds the notice log: the newest entries are kept.
const noticeLogSize = 500

// logEntry is one notice as it was given, with its time.
type logEntry struct {
	at    time.Time
	level common.NoticeLevel
	text  string
}

// noticeLog keeps every notice in full (the status bar cuts them and
// lets them expire): a ring of the newest noticeLogSize.
type noticeLog struct {
	ring []logEntry
	next int // where the next entry goes once the ring is full
}

func (l *noticeLog) add(e logEntry) {
	if len(l.ring) < noticeLogSize {
		l.ring = append(l.ring, e)
		return
	}
	l.ring[l.next] = e
	l.next = (l.next + 1) % noticeLogSize
}

// entries are the notices, newest first.
func (l *noticeLog) entries() []logEntry {
	out := make([]logEntry, 0, len(l.ring))
	for i := len(l.ring) - 1; i >= 0; i-- {
		out = append(out, l.ring[(l.next+i)%len(l.ring)])
	}
	return out
}

func (m *Model) logNotice(level common.NoticeLevel, text string) {
	if text != "" {
		m.log.add(logEntry{at: m.c.Clock(), level: level, text: text})
	}
}

// orderSet remembers the newest order ids (bounded).
type orderSet struct {
	ids  map[int64]struct{}
	fifo []int64
}

const orderSetSize = 1024

func (s *orderSet) add(id int64) {
	if s.ids == nil {
		s.ids = map[int64]struct{}{}
	}
	if _, ok := s.ids[id]; ok {
		return
	}
	if len(s.fifo) == orderSetSize {
		delete(s.ids, s.fifo[0])
		s.fifo = s.fifo[1:]
	}
	s.ids[id] = struct{}{}
	s.fifo = append(s.fifo, id)
}

func (s *orderSet) has(id int64) bool { _, ok := s.ids[id]; return ok }

// logDialog shows the notice log (":log"): full texts with their times,
// newest first, scrolled with the arrows and pages.
type logDialog struct {
	c       common.Common
	entries []logEntry
	top     int // first line shown
	w, h    int
}

func newLogDialog(c common.Common, entries []logEntry) *logDialog {
	return &logDialog{c: c, entries: entries, w: c.Width, h: c.Height}
}

func (d *logDialog) SetSize(w, h int) { d.w, d.h = w, h }

func (d *logDialog) Update(msg tea.Msg) (common.Dialog, tea.Cmd) {
	k, ok := msg.(tea.KeyPressMsg)
	if !ok {
		return d, nil
	}
	km := d.c.Keys
	page := max(d.rows()-1, 1)
	switch {
	case key.Matches(k, km.Back, km.Quit) || k.String() == "enter":
		return d, common.Close
	case key.Matches(k, km.Up):
		d.top--
	case key.Matches(k, km.Down):
		d.top++
	case key.Matches(k, km.PageUp):
		d.top -= page
	case key.Matches(k, km.PageDown):
		d.top += page
	case key.Matches(k, km.Top):
		d.top = 0
	case key.Matches(k, km.Bottom):
		d.top = len(d.lines())
	}
	d.top = max(0, min(d.top, len(d.lines())-d.rows()))
	return d, nil
}

// width is the dialog's inner width; rows the lines it shows.
func (d *logDialog) width() int { return max(min(d.w-4, 120), 20) }
func (d *logDialog) rows() int  { return max(d.h-2, 1) }

// lines are the entries wrapped to the width, continuation lines indented
// under the text.
func (d *logDialog) lines() []string {
	t := d.c.Theme
	w := d.width() - 2
	var out []string
	if len(d.entries) == 0 {
		return []string{" " + t.Muted + "no notices yet" + t.Text}
	}
	style := map[common.NoticeLevel]string{common.NoticeInfo: t.Text, common.NoticeSuccess: t.Buy,
		common.NoticeWarn: t.Warn, common.NoticeError: t.Error}
	const indent = "          " // "15:04:05  "
	for _, e := range d.entries {
		wrapped := strings.Split(ansi.Wrap(e.text, max(w-len(indent), 10), ""), "\n")
		for i, l := range wrapped {
			lead := t.Muted + e.at.UTC().Format("15:04:05") + "  " + t.Text
			if i > 0 {
				lead = indent
			}
			out = append(out, " "+lead+style[e.level]+l+t.Text)
		}
	}
	return out
}

func (d *logDialog) View() string {
	all := d.lines()
	end := min(d.top+d.rows(), len(all))
	shown := make([]string, 0, d.rows())
	for _, l := range all[min(d.top, len(all)):end] {
		shown = append(shown, truncate(l, d.width(), ""))
	}
	title := "Notices, newest first (" + strconv.Itoa(len(d.entries)) + ")"
	if len(all) > d.rows() { // the scroll keys only when there is more to see
		title += " · ↑↓ pgup/pgdn"
	}
	title += " · esc close"
	return common.Box(d.c.Theme, title, shown, d.width()+2)
}
