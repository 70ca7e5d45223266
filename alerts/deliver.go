package alerts

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync/atomic"
	"syscall"
	"time"
)

// Channels says how alerts reach the trader; each can be switched off.
type Channels struct {
	Notice  bool // a notice on screen (a line on stdout headless)
	Bell    bool // the terminal bell
	Desktop bool // a desktop notification through the terminal (OSC 9 / 777)
	// OSC is the desktop notification sequence: "9", "777" or "both".
	OSC string
	// Tmux wraps the desktop sequence for tmux's passthrough (the
	// terminal runs inside tmux; needs `set -g allow-passthrough on`).
	Tmux bool
	// Command is the hook: program and arguments, run without a shell.
	Command []string
	// Timeout kills a hook that runs longer (0: DefaultHookTimeout).
	Timeout time.Duration
}

// DefaultHookTimeout bounds a hook run.
const DefaultHookTimeout = 10 * time.Second

// Hook environment variables.
const (
	EnvSymbol  = "TRADEDECK_ALERT_SYMBOL"
	EnvKind    = "TRADEDECK_ALERT_KIND"
	EnvValue   = "TRADEDECK_ALERT_VALUE"
	EnvMessage = "TRADEDECK_ALERT_MESSAGE"
)

// NoteLevel ranks a Note.
type NoteLevel uint8

const (
	NoteAlert  NoteLevel = iota // an alert fired
	NoteError                   // a channel failed (the hook, the queue); an alert's action refused or failed
	NoteAction                  // an alert's action was done (Outcome says what)
)

// Note is one thing to show: an alert that fired or a delivery failure.
type Note struct {
	Level NoteLevel
	Text  string
	Fired *Fired
	// Show: draw it as a notice (the notice channel is on, or it is an
	// error, which is always shown).
	Show bool
	// Terminal is what to write to the terminal as is: the bell and the
	// desktop notification sequences ("" for none).
	Terminal string
	// Outcome is what an alert's action did (NoteAction, or NoteError for
	// a refusal); nil for other notes.
	Outcome *Outcome
}

// Deliverer passes fired alerts to the channels. Deliver never blocks:
// notes queue for the screen (or stdout), hook runs queue for the one
// hook worker; a full queue drops and says so.
type Deliverer struct {
	ch      Channels
	notes   chan Note
	hooks   chan Fired
	dropped atomic.Int64
}

// NewDeliverer returns a deliverer; call Run for the hook.
func NewDeliverer(ch Channels) *Deliverer {
	if ch.Timeout <= 0 {
		ch.Timeout = DefaultHookTimeout
	}
	return &Deliverer{ch: ch, notes: make(chan Note, 256), hooks: make(chan Fired, 64)}
}

// Notes is what to show, in order.
func (d *Deliverer) Notes() <-chan Note { return d.notes }

// Deliver queues one fired alert for every channel.
func (d *Deliverer) Deliver(f Fired) {
	d.Show(f)
	if len(d.ch.Command) > 0 {
		select {
		case d.hooks <- f:
		default:
			d.note(Note{Level: NoteError, Show: true, Text: "alert hook busy: not run for: " + f.Message})
		}
	}
}

// Show queues one fired alert for the screen's channels only (notice,
// bell, desktop), not the hook: what many screens of one server show of
// an event whose hook the server runs once.
func (d *Deliverer) Show(f Fired) {
	n := Note{Level: NoteAlert, Text: f.Message, Fired: &f, Show: d.ch.Notice}
	if d.ch.Bell {
		n.Terminal += "\a"
	}
	if d.ch.Desktop {
		n.Terminal += DesktopSequence(d.ch.OSC, d.ch.Tmux, "tradedeck alert", f.Message)
	}
	d.note(n)
}

func (d *Deliverer) note(n Note) {
	if n.Terminal == "" && !n.Show && n.Level == NoteAlert {
		return // every visible channel is off
	}
	select {
	case d.notes <- n:
	default:
		d.dropped.Add(1) // the reader is gone or far behind
	}
}

// Report shows an error of the alerts themselves (the file, the disk).
func (d *Deliverer) Report(err error) {
	if err != nil {
		d.note(Note{Level: NoteError, Show: true, Text: "alerts: " + err.Error()})
	}
}

// Dropped counts notes nobody read in time.
func (d *Deliverer) Dropped() int64 { return d.dropped.Load() }

// Run runs the hook, one alert at a time, until ctx ends.
func (d *Deliverer) Run(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case f := <-d.hooks:
			if err := RunHook(ctx, d.ch.Command, d.ch.Timeout, f); err != nil {
				d.note(Note{Level: NoteError, Show: true, Text: err.Error()})
			}
		}
	}
}

// ErrHookTimeout: the hook ran past its timeout and was killed.
var ErrHookTimeout = errors.New("timed out")

// RunHook runs the hook command for f without a shell, with the alert in
// its environment, and kills it (and anything it started) at timeout.
func RunHook(ctx context.Context, command []string, timeout time.Duration, f Fired) error {
	if len(command) == 0 {
		return nil
	}
	cmd := exec.Command(command[0], command[1:]...)
	cmd.Env = append(os.Environ(),
		EnvSymbol+"="+f.Symbol, EnvKind+"="+string(f.Kind), EnvValue+"="+f.Value, EnvMessage+"="+f.Message)
	var out tailBuffer
	cmd.Stdout, cmd.Stderr = &out, &out
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} // its own group: killed whole
	cmd.WaitDelay = time.Second
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("alert hook %s: %w", command[0], err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	t := time.NewTimer(timeout)
	defer t.Stop()
	var err error
	select {
	case err = <-done:
	case <-t.C:
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		<-done //nolint:errcheck // the wait error of a hook we killed says only that (and "_ =" here is staticcheck S1005)
		return fmt.Errorf("alert hook %s %w after %s and was killed", command[0], ErrHookTimeout, timeout)
	case <-ctx.Done():
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		<-done //nolint:errcheck // the wait error of a hook we killed says only that (and "_ =" here is staticcheck S1005)
		return nil
	}
	if err != nil {
		msg := fmt.Sprintf("alert hook %s failed: %v", command[0], err)
		if s := strings.TrimSpace(out.String()); s != "" {
			msg += ": " + oneLine(s)
		}
		return errors.New(msg)
	}
	return nil
}

// tailBuffer keeps the last bytes a hook wrote (bounded memory).
type tailBuffer struct{ b []byte }

const tailLimit = 512

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.b = append(t.b, p...)
	if len(t.b) > tailLimit {
		t.b = append(t.b[:0], t.b[len(t.b)-tailLimit:]...)
	}
	return len(p), nil
}

func (t *tailBuffer) String() string { return string(bytes.ToValidUTF8(t.b, []byte("?"))) }

func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > 200 {
		s = string(r[len(r)-200:])
	}
	return s
}

// DesktopSequence is the desktop notification escape sequence: OSC 9
// (iTerm2, kitty, WezTerm, Ghostty...), OSC 777 (urxvt, foot, VTE,
// Ghostty...) or both, wrapped for tmux's passthrough when tmux is set.
// Control characters in the text are removed, so an alert message cannot
// smuggle its own escape sequence.
func DesktopSequence(osc string, tmux bool, title, body string) string {
	title, body = clean(title, true), clean(body, false)
	var seqs []string
	if osc == "9" || osc == "both" {
		seqs = append(seqs, "\x1b]9;"+title+": "+body+"\x07")
	}
	if osc != "9" {
		seqs = append(seqs, "\x1b]777;notify;"+title+";"+body+"\x07")
	}
	out := ""
	for _, s := range seqs {
		if tmux {
			s = "\x1bPtmux;" + strings.ReplaceAll(s, "\x1b", "\x1b\x1b") + "\x1b\\"
		}
		out += s
	}
	return out
}

func clean(s string, field bool) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0):
			return ' '
		case field && r == ';':
			return ','
		}
		return r
	}, s)
}

// AutoOSC picks the desktop notification sequence from the terminal's
// environment: OSC 9 for the terminals known to show it, else OSC 777.
func AutoOSC(getenv func(string) string) string {
	switch getenv("TERM_PROGRAM") {
	case "iTerm.app", "WezTerm", "ghostty":
		return "9"
	}
	switch getenv("TERM") {
	case "xterm-kitty", "xterm-ghostty":
		return "9"
	}
	return "777"
}

// InTmux reports whether the terminal is a tmux pane: TMUX is set, or
// TERM is tmux's own (which, unlike TMUX, reaches a server over SSH).
func InTmux(getenv func(string) string) bool {
	return getenv("TMUX") != "" || strings.HasPrefix(getenv("TERM"), "tmux")
}
