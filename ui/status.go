package ui

import (
	"strconv"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"

	"tradedeck/feed"
	"tradedeck/panes/common"
)

// statusBar is the line above the help: per-stream state, latency and
// message rate, the rate-limit budget, the newest notice or last error,
// and the clock. Rebuilt on health changes, notices and each second.
type statusBar struct{ cachedLine }

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
	if s.cached(w) {
		return s.out
	}
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
		l.Styled(bar, " "+h.Stream+" ").Styled(st, t.Glyphs.Dot+" "+streamState(h.State))
		if h.State == feed.Reconnecting && h.RetryIn > 0 {
			l.Styled(st, " in "+h.RetryIn.Round(100*time.Millisecond).String())
		}
		if h.State == feed.Connected {
			l.Styled(bar, " "+strconv.FormatInt(h.Latency.Milliseconds(), 10)+"ms "+strconv.FormatFloat(h.MsgsPerSec, 'f', 0, 64)+"/s")
		}
		if h.Reconnects > 0 {
			l.Styled(bar, " rc "+strconv.FormatUint(h.Reconnects, 10))
		}
		l.Styled(bar, " "+t.Glyphs.V)
		if h.Err != "" {
			lastErr = h.Stream + ": " + h.Err
		}
	}
	if m.opts.Budget != nil {
		if b := m.opts.Budget(); b != "" {
			l.Styled(bar, " budget ").Styled(t.StatusKey, b).Styled(bar, " "+t.Glyphs.V)
		}
	}
	if m.store.LastError != "" {
		lastErr = m.store.LastError
	}
	clock := " " + m.c.Clock().UTC().Format("15:04:05") + " UTC "
	room := w - l.Width() - len(clock)
	if n := len(m.notices); n > 0 {
		nt := m.notices[n-1]
		st := t.StatusOK
		switch nt.level {
		case common.NoticeWarn:
			st = t.StatusWarn
		case common.NoticeError:
			st = t.StatusErr
		case common.NoticeInfo:
			st = t.StatusKey
		}
		if room > 4 {
			l.Styled(st, common.Fit(" "+nt.text, room, t.Glyphs.Ellipsis))
		}
	} else if lastErr != "" && room > 10 {
		l.Styled(t.StatusErr, common.Fit(" last error: "+lastErr, room, t.Glyphs.Ellipsis))
	}
	if l.Width() > w-len(clock) {
		s.out = truncate(l.String(l.Width()), w, "")
		return s.out
	}
	l.Styled(bar, spaces(w-len(clock)-l.Width()))
	l.Styled(t.StatusKey, clock)
	s.out = l.String(w)
	return s.out
}

// helpLine is the short help at the bottom.
type helpLine struct{ cachedLine }

func (h *helpLine) line(m *Model, w int) string {
	if h.cached(w) {
		return h.out
	}
	k := m.c.Keys
	var bs []key.Binding
	switch {
	case len(m.dialogs) > 0:
		// The dialog takes every key and names its own: of the grid's
		// keys only ctrl+c still works (gate.go).
		bs = append(bs, key.NewBinding(key.WithKeys("ctrl+c"), key.WithHelp("ctrl+c", "quit")))
		return h.draw(m, w, bs)
	case m.page != "":
		// A page takes tab and z itself (keys.go): no pane to cycle or zoom.
		bs = append(bs, k.Help, k.Search, k.Command)
		bs = append(bs, m.pages[m.page].ShortHelp()...)
		bs = append(bs, k.Back)
	default:
		bs = append(bs, k.Help, k.Search, k.Command, k.NextPane, zoomHelp(k, m.zoom))
		bs = append(bs, m.panes[m.focus].ShortHelp()...)
		bs = append(bs, m.trader.Help(k)...)
		for _, hk := range m.hooks {
			bs = append(bs, hk.Help(m)...)
		}
	}
	return h.draw(m, w, append(bs, k.Quit))
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

// draw lays the bindings out on one line, as many as fit.
func (h *helpLine) draw(m *Model, w int, bs []key.Binding) string {
	t := m.c.Theme
	var l common.Line
	l.Space(1)
	for _, b := range bs {
		if !b.Enabled() {
			continue
		}
		hp := b.Help()
		if hp.Key == "" {
			continue
		}
		k := keyLabel(hp.Key, t.Glyphs.ASCII)
		n := len([]rune(k)) + 1 + len([]rune(hp.Desc)) + 2
		if l.Width()+n > w {
			break
		}
		l.Styled(t.Accent, k).Space(1).Styled(t.Muted, hp.Desc).Space(2)
	}
	h.out = l.String(w)
	return h.out
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
