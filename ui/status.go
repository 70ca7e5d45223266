package ui

import (
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"charm.land/bubbles/v2/key"

	"tradedeck/feed"
	"tradedeck/panes/common"
	"tradedeck/theme"
)

// statusBar is the line above the help: per-stream state, latency and
// message rate, the rate-limit budget, the newest notice or last error,
// and the clock. Rebuilt on a stream's state change, notices and each
// second (the clock, with the latency and rate figures: healthNews).
//
// A notice takes the room first: the health fields shrink to their short
// forms to make room for it, and one that still does not fit goes on in a
// second line, drawn on the help line's row for the notice's lifetime.
type statusBar struct {
	cachedLine
	second string // the notice's second line, "" when it fits on one
	cmd    bool   // drawn while the command line held the help row
}

// cachedLine is a bottom line drawn once per change or width.
type cachedLine struct {
	valid bool
	w     int
	out   string
}

func (c *cachedLine) invalidate() { c.valid = false }

// cached reports whether out is the line for width w; when it is not, it
// takes w and the caller draws out anew.
func (c *cachedLine) cached(w int) bool {
	if c.valid && c.w == w {
		return true
	}
	c.valid, c.w = true, w
	return false
}

func (s *statusBar) line(m *Model, w int) string {
	if s.cmd != m.cmdActive {
		s.cmd = m.cmdActive
		s.invalidate()
	}
	if s.cached(w) {
		return s.out
	}
	t := m.c.Theme
	s.second = ""
	clock := " " + m.c.Clock().UTC().Format("15:04:05") + " UTC "
	l, lastErr := s.health(m, false)
	if n := len(m.notices); n > 0 {
		nt := m.notices[n-1]
		text := " " + nt.text
		if w-l.Width()-len(clock) < utf8.RuneCountInString(text) {
			l, _ = s.health(m, true)
		}
		room := w - l.Width() - len(clock)
		st := noticeStyle(t, nt.level)
		switch {
		case room <= 4:
		case m.cmdActive: // the command line has the help row: one line, cut
			l.Styled(st, common.Fit(text, room, t.Glyphs.Ellipsis))
		default:
			head, rest := splitWords(text, room)
			l.Styled(st, head)
			if rest != "" {
				var l2 common.Line
				l2.Styled(st, common.Fit(" "+rest, w, t.Glyphs.Ellipsis))
				s.second = l2.String(w)
			}
		}
	} else if room := w - l.Width() - len(clock); lastErr != "" && room > 10 {
		l.Styled(t.StatusErr, common.Fit(" last error: "+lastErr, room, t.Glyphs.Ellipsis))
	}
	if l.Width() > w-len(clock) {
		s.out = truncate(l.String(l.Width()), w, "")
		return s.out
	}
	l.Styled(t.StatusBar, spaces(w-len(clock)-l.Width()))
	l.Styled(t.StatusKey, clock)
	s.out = l.String(w)
	return s.out
}

// healthNews reports whether the streams' health moved in what the status
// bar shows at once: a stream's state, retry delay, reconnects or error.
// Their once-a-second figures (latency, message rate) are drawn with the
// clock, which redraws the line every second: a figure that moved alone
// costs no frame of its own between two of the clock's.
func healthNews(was, now []feed.Health) bool {
	if len(was) != len(now) {
		return true
	}
	for i := range now {
		a, b := &was[i], &now[i]
		if a.Stream != b.Stream || a.State != b.State || a.RetryIn != b.RetryIn || a.Reconnects != b.Reconnects || a.Err != b.Err {
			return true
		}
	}
	return false
}

// health draws each stream's state and the REST budget, and returns the
// last error they carry. The short form keeps what a trader must see at
// a glance (each stream's dot, the word of a state other than live, the
// budget's numbers) and drops latency, message rate, reconnect count and
// retry delay.
func (s *statusBar) health(m *Model, short bool) (common.Line, string) {
	t := m.c.Theme
	var l common.Line
	bar := t.StatusBar
	if len(m.store.Health) == 0 {
		l.Styled(bar, " feed ").Styled(t.StatusWarn, "connecting"+t.Glyphs.Ellipsis)
	}
	lastErr := ""
	for _, h := range m.store.Health {
		st := t.StatusOK
		switch h.State {
		case feed.Connected:
		case feed.Connecting, feed.StreamStale, feed.Reconnecting:
			st = t.StatusWarn
		default:
			st = t.StatusErr
		}
		l.Styled(bar, " "+h.Stream+" ").Styled(st, t.Glyphs.Dot)
		if !short || h.State != feed.Connected { // short: a live stream is its dot alone
			l.Styled(st, " "+streamState(h.State))
		}
		if !short {
			if h.State == feed.Reconnecting && h.RetryIn > 0 {
				l.Styled(st, " in "+h.RetryIn.Round(100*time.Millisecond).String())
			}
			if h.State == feed.Connected {
				l.Styled(bar, " "+strconv.FormatInt(h.Latency.Milliseconds(), 10)+"ms "+strconv.FormatFloat(h.MsgsPerSec, 'f', 0, 64)+"/s")
			}
			if h.Reconnects > 0 {
				l.Styled(bar, " rc "+strconv.FormatUint(h.Reconnects, 10))
			}
		}
		l.Styled(bar, " "+t.Glyphs.V)
		if h.Err != "" {
			lastErr = h.Stream + ": " + h.Err
		}
	}
	if m.opts.Budget != nil {
		if b := m.opts.Budget(); b != "" {
			if short { // the numbers; the group they belong to goes
				b, _, _ = strings.Cut(b, " ")
			} else {
				l.Styled(bar, " budget")
			}
			l.Styled(bar, " ").Styled(t.StatusKey, b).Styled(bar, " "+t.Glyphs.V)
		}
	}
	if m.store.LastError != "" {
		lastErr = m.store.LastError
	}
	return l, lastErr
}

func noticeStyle(t *theme.Theme, level common.NoticeLevel) string {
	switch level {
	case common.NoticeWarn:
		return t.StatusWarn
	case common.NoticeError:
		return t.StatusErr
	case common.NoticeInfo:
		return t.StatusKey
	}
	return t.StatusOK
}

// splitWords cuts s after at most n cells, at a space when there is one
// (s is a notice: plain text); rest is what did not fit, "" when all did.
func splitWords(s string, n int) (head, rest string) {
	r := []rune(s)
	if len(r) <= n {
		return s, ""
	}
	cut := n
	if i := strings.LastIndexByte(string(r[:n+1]), ' '); i > 0 {
		cut = utf8.RuneCountInString(string(r[:n+1])[:i])
	}
	return string(r[:cut]), strings.TrimLeft(string(r[cut:]), " ")
}

// helpLine is the short help at the bottom.
type helpLine struct{ cachedLine }

func (h *helpLine) line(m *Model, w int) string {
	if h.cached(w) {
		return h.out
	}
	k := m.c.Keys
	switch {
	case len(m.dialogs) > 0:
		// The dialog takes every key and names its own: of the grid's
		// keys only ctrl+c still works (gate.go).
		h.out = drawKeys(m, w, []key.Binding{key.NewBinding(key.WithKeys("ctrl+c"), key.WithHelp("ctrl+c", "quit"))}, nil, nil)
	case m.page != "":
		// A page takes tab and z itself (keys.go): no pane to cycle or zoom.
		local := append(m.pages[m.page].ShortHelp(), k.Back)
		h.out = h.draw(m, w, []key.Binding{k.Help, k.Search, k.Command}, local, []key.Binding{k.Back})
	default:
		local := m.panes[m.focus].ShortHelp()
		local = append(local, m.trader.FooterHelp(k, m.tradeFocus())...)
		for _, hk := range m.hooks {
			local = append(local, hk.Help(m)...)
		}
		zoom := zoomHelp(k, m.zoom)
		var keep []key.Binding
		if m.zoom { // the way back out of a zoomed pane stays on screen
			keep = append(keep, zoom)
		}
		h.out = h.draw(m, w, []key.Binding{k.Help, k.Search, k.Command, k.NextPane, zoom}, local, keep)
	}
	return h.out
}

// draw lays out the focused pane's keys (local) first, whatever the
// width: they are what the user came to the pane for, and they stay where
// the eye finds them when the focus moves. Then the globals and quit in
// the room the local keys leave, and last keep (keys that must stay on
// screen, such as unzoom) and "? help", the entry point to every key, whose
// room is kept: at 80 columns the globals collapse to it.
func (h *helpLine) draw(m *Model, w int, globals, local, keep []key.Binding) string {
	k := m.c.Keys
	same := func(bs []key.Binding) func(key.Binding) bool {
		return func(b key.Binding) bool {
			return slices.ContainsFunc(bs, func(o key.Binding) bool { return o.Help() == b.Help() })
		}
	}
	tail := slices.DeleteFunc(slices.Clone(keep), same(local))
	tail = append(tail, k.Help)
	fill := slices.DeleteFunc(append(slices.Clone(globals), k.Quit), same(tail))
	return drawKeys(m, w, local, fill, tail)
}

// zoomHelp is the zoom key as it acts now: on a zoomed pane it and esc
// unzoom.
func zoomHelp(k *common.KeyMap, zoomed bool) key.Binding {
	if !zoomed {
		return k.Zoom
	}
	b := key.NewBinding(key.WithKeys(append(k.Zoom.Keys(), k.Back.Keys()...)...))
	b.SetEnabled(k.Zoom.Enabled())
	if hk := k.Zoom.Help().Key; hk != "" {
		if bk := k.Back.Help().Key; bk != "" {
			hk += "/" + bk
		}
		b.SetHelp(hk, "unzoom")
	}
	return b
}

// drawKeys lays bindings out on one line: as many of bs as fit, then
// when all of them did, as many of fill, then every one of tail, whose
// room is kept.
func drawKeys(m *Model, w int, bs, fill, tail []key.Binding) string {
	var l common.Line
	l.Space(1)
	room := w - keysWidth(m, tail) + 1
	for i, group := range [][]key.Binding{bs, fill} {
		all := true
		for _, b := range group {
			n := keyWidth(m, b)
			if n == 0 {
				continue
			}
			if l.Width()+n > room {
				all = false
				break
			}
			drawKey(m, &l, b)
		}
		if i == 0 && !all {
			break // a pane key left out: no global takes its place
		}
	}
	for _, b := range tail {
		if keyWidth(m, b) > 0 && l.Width()+keyWidth(m, b) <= w {
			drawKey(m, &l, b)
		}
	}
	return l.String(w)
}

func drawKey(m *Model, l *common.Line, b key.Binding) {
	t := m.c.Theme
	hp := b.Help()
	l.Styled(t.Accent, keyLabel(hp.Key, t.Glyphs.ASCII)).Space(1).Styled(t.Muted, hp.Desc).Space(2)
}

// keyWidth is the cells a binding takes on the help line (0: not shown).
func keyWidth(m *Model, b key.Binding) int {
	hp := b.Help()
	if !b.Enabled() || hp.Key == "" {
		return 0
	}
	return len([]rune(keyLabel(hp.Key, m.c.Theme.Glyphs.ASCII))) + 1 + len([]rune(hp.Desc)) + 2
}

// keysWidth is the cells of bindings on the help line, its margin included.
func keysWidth(m *Model, bs []key.Binding) int {
	n := 1
	for _, b := range bs {
		n += keyWidth(m, b)
	}
	return n
}

var asciiKeys = strings.NewReplacer("↑", "up", "↓", "down", "←", "left", "→", "right")

// keyLabel is a binding's help key, spelled out in ASCII mode.
func keyLabel(k string, ascii bool) string {
	if ascii {
		return asciiKeys.Replace(k)
	}
	return k
}

// streamState names a stream state (feed's String panics on unknown ones).
func streamState(s feed.StreamState) string {
	if s <= feed.Stopped {
		return s.String()
	}
	return "state " + strconv.Itoa(int(s))
}
