package app

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"tradedeck/algo"

	"tradedeck/alerts"
	"tradedeck/config"
	"tradedeck/desk"
	"tradedeck/feed"
	"tradedeck/feed/hub"
	"tradedeck/internal/app/proc"
	"tradedeck/venue"
)

// alertChannels are the configured channels for a terminal with env
// getenv (the local one, or an SSH client's).
func alertChannels(c config.Alerts, getenv func(string) string) alerts.Channels {
	osc := c.DesktopOSC
	if osc == "" || osc == "auto" {
		osc = alerts.AutoOSC(getenv)
	}
	return alerts.Channels{Notice: c.Notice, Bell: c.Bell, Desktop: c.Desktop, OSC: osc, Tmux: alerts.InTmux(getenv),
		Command: c.Command, Timeout: c.HookTimeout()}
}

// HeadlessOptions are a headless host's: the venue, the alerts file and
// how what fires is printed.
type HeadlessOptions struct {
	VenueChoice
	Config config.Config // loaded from VenueChoice.Config by the caller (its warnings shown there)
	Alerts *alerts.Store
	Trade  bool // the host may trade (a headless engine that sends orders); false: read-only
	JSON   bool // one JSON object per alert that fires, instead of a line
	// Desk: also run the protective-orders engine of the account (`tradedeck
	// desk`), printing each of its events; refused when another process
	// runs it already. It implies Trade.
	Desk bool
	Out  io.Writer // what fires; nil: stdout
	Log  io.Writer // start, feed errors, alerts' errors; nil: stderr
}

// Headless is a process with no screen on one venue (`tradedeck alerts`
// without a subcommand): the venue's feed hub, and the alert engine on it
// at full rate, delivering to stdout, the bell, the desktop and the hook.
// A headless engine that trades (issue 25's protective orders) joins the
// same host: it opens the venue once, and every part sees one feed.
type Headless struct {
	Venue   *Venue
	Alerts  *alerts.Engine
	deliver *alerts.Deliverer
	member  *alerts.Member
	session *hub.Session
	opts    HeadlessOptions
	algos   *Algos       // Desk: the engine of the account
	acts    *alerts.Acts // the account's side of what fired (alerts that act)
	actor   *alertActor
}

// StartHeadless opens the venue as the dashboard would (read-only unless
// Trade) and starts its alert engine on the feed.
func StartHeadless(ctx context.Context, o HeadlessOptions) (*Headless, error) {
	if o.Out == nil {
		o.Out = os.Stdout
	}
	if o.Log == nil {
		o.Log = os.Stderr
	}
	v, err := OpenVenue(ctx, Options{VenueChoice: o.VenueChoice, ReadOnly: !o.Trade && !o.Desk, FPS: HeadlessFPS}, o.Config)
	if err != nil {
		return nil, err
	}
	var algos *Algos
	if o.Desk {
		if algos, err = startDeskEngine(ctx, v, o.Log); err != nil {
			v.Close()
			return nil, err
		}
	}
	ch := alertChannels(o.Config.Alerts, os.Getenv)
	ch.Notice = true // the line on stdout is the point
	if f, ok := o.Out.(*os.File); o.JSON || !ok || !isTerminal(f) {
		ch.Bell, ch.Desktop = false, false // escape sequences would garble a log or a pipe
	}
	h := &Headless{Venue: v, deliver: alerts.NewDeliverer(ch), member: v.alerts.Join(), opts: o, algos: algos, actor: newAlertActor(v)}
	ao := alerts.Options{Store: o.Alerts, Cooldown: o.Config.Alerts.CooldownDuration(), OnFire: h.deliver.Deliver,
		OnSymbols: h.member.Track, OnError: func(err error) { fmt.Fprintln(o.Log, "tradedeck alerts:", err) }}
	h.acts = h.actor.wire(&ao, h.deliver)
	e, err := alerts.NewEngine(ao)
	if err != nil {
		h.member.Leave()
		if algos != nil {
			algos.Close()
		}
		v.Close()
		return nil, err
	}
	h.Alerts = e
	h.member.Attach(e) // the venue's feed, shown at full rate to the engine
	// A session that shows nothing: its Updates carry the feed's errors.
	h.session = v.Hub.Join(ctx, feed.View{})
	return h, nil
}

// Run prints each alert that fires (and runs the hook), and with Desk
// each event of the engine, until ctx ends, and returns once the last
// firings are saved.
func (h *Headless) Run(ctx context.Context) error {
	fmt.Fprintf(h.opts.Log, "tradedeck alerts: %d alerts from %s on %s\n", len(h.Alerts.List()), h.opts.Alerts.Path(), h.Venue.Label)
	ctx, cancel := context.WithCancel(ctx)
	saved := make(chan struct{})
	go h.deliver.Run(ctx)
	go h.acts.Run(ctx)
	var events <-chan algo.Event
	if h.algos != nil {
		ch, stop := h.algos.Subscribe(1024)
		defer stop()
		events = ch
		go deliverAlgoEvents(ctx, h.algos, h.deliver.Deliver)
	}
	go func() { h.Alerts.Run(ctx); close(saved) }()
	checked := false
	checkSymbols := func() {
		if rules := h.Venue.Hub.Feed().Symbols(); !checked && len(rules) > 0 {
			checked = true
			warnUnknownSymbols(h.opts.Log, rules, h.Alerts.Symbols())
		}
	}
	err := printAlerts(ctx, h.opts.Out, h.opts.Log, h.session.Updates(), h.deliver, events, h.opts.JSON, checkSymbols)
	cancel()
	<-saved // what fired is in the file before we exit
	return err
}

// Desk is a trading desk on the host's venue and feed, for a headless
// part that sends orders; nil without API keys or when the host is
// read-only (Trade unset, or the config's read_only).
func (h *Headless) Desk() *desk.Desk {
	if h.Venue.readOnly {
		return nil
	}
	return h.Venue.newDesk()
}

// Close stops the engine (what moved is journaled, the lock dropped),
// leaves the feed and closes the venue.
func (h *Headless) Close() {
	if h.algos != nil {
		h.algos.Close()
	}
	h.session.Close()
	h.member.Leave()
	h.actor.close()
	h.Venue.Close()
}

// RunHeadless runs a headless host until ctrl-c or SIGTERM.
func RunHeadless(ctx context.Context, o HeadlessOptions) error {
	ctx, stop := proc.Interruptible(ctx)
	defer stop()
	stopProfiles, err := proc.StartProfiles() // proc/diag_profile.go: -tags profile only
	if err != nil {
		return err
	}
	defer stopProfiles()
	h, err := StartHeadless(ctx, o)
	if err != nil {
		return err
	}
	defer h.Close()
	return h.Run(ctx)
}

// printAlerts writes each note as a line until the feed stops.
func printAlerts(ctx context.Context, w, log io.Writer, updates <-chan feed.Update, d *alerts.Deliverer, events <-chan algo.Event,
	asJSON bool, onUpdate func()) error {
	enc := json.NewEncoder(w)
	for {
		select {
		case <-ctx.Done():
			return nil
		case ev, ok := <-events:
			if !ok {
				events = nil
				continue
			}
			if err := printAlgoEvent(w, ev, asJSON); err != nil {
				return err
			}
		case u, ok := <-updates:
			if !ok {
				updates = nil
				continue
			}
			onUpdate()
			for _, ev := range u.Events {
				if ev.Kind == feed.EventError {
					fmt.Fprintln(log, "tradedeck alerts: feed:", ev.Text)
				}
			}
		case n := <-d.Notes():
			if n.Outcome != nil {
				if err := printOutcome(w, enc, n.Outcome, asJSON); err != nil {
					return err
				}
				continue
			}
			if n.Level == alerts.NoteError {
				fmt.Fprintln(log, "tradedeck alerts:", n.Text)
				continue
			}
			if n.Fired != nil && n.Fired.Kind == alerts.KindAlgo {
				if _, err := io.WriteString(w, n.Terminal); err != nil { // its line is the event's, printed above
					return err
				}
				continue
			}
			if asJSON && n.Fired != nil {
				if err := enc.Encode(n.Fired); err != nil {
					return err
				}
				continue
			}
			x := n.Fired
			fmt.Fprintf(w, "%s%s #%d %s %s %s\n", n.Terminal, x.Time.Local().Format("2006-01-02 15:04:05"), x.Alert, x.Kind, x.Value, x.Message)
		}
	}
}

// OutcomeJSON is what an alert's action did, as `tradedeck alerts --json`
// and `tradedeck desk --json` print it.
type OutcomeJSON struct {
	Time   time.Time `json:"time"`
	Event  string    `json:"event"` // "alert action"
	Alert  int       `json:"alert"`
	Action string    `json:"action"`
	Algo   int64     `json:"algo"`
	OK     bool      `json:"ok"`   // done; false: refused or failed (Text says why)
	Text   string    `json:"text"` // the line a trader reads
	// Elsewhere: another process sharing the alerts file did it.
	Elsewhere bool   `json:"elsewhere,omitempty"`
	By        string `json:"by,omitempty"`
}

// printOutcome writes what an alert's action did: a line on stdout (a
// refusal too: it is the trader's news, not the process's error), or a
// JSON object.
func printOutcome(w io.Writer, enc *json.Encoder, o *alerts.Outcome, asJSON bool) error {
	f := o.Fired
	if asJSON {
		j := OutcomeJSON{Time: f.Time, Event: "alert action", Alert: f.Alert, OK: o.Err == nil, Text: o.Text, Elsewhere: o.Elsewhere, By: f.By}
		if f.Action != nil {
			j.Action, j.Algo = f.Action.String(), f.Action.Algo
		}
		return enc.Encode(j)
	}
	word := "done"
	switch {
	case o.Elsewhere:
		word = "elsewhere"
	case o.Err != nil:
		word = "REFUSED"
	}
	_, err := fmt.Fprintf(w, "%s #%d action %s %s\n", f.Time.Local().Format("2006-01-02 15:04:05"), f.Alert, word, o.Text)
	return err
}

// warnUnknownSymbols says which alerts watch a symbol the venue does not
// list (`alerts add` cannot check offline): they would never fire.
func warnUnknownSymbols(w io.Writer, rules []venue.SymbolRule, watched []string) {
	known := map[string]bool{}
	for _, r := range rules {
		known[r.Symbol] = true
	}
	for _, s := range watched {
		if !known[s] {
			fmt.Fprintf(w, "tradedeck alerts: the venue has no symbol %s: its alerts will not fire\n", s)
		}
	}
}

func isTerminal(f *os.File) bool {
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// startDeskEngine runs the engine of the venue's account in this process
// (`tradedeck desk`), or says which process runs it already.
func startDeskEngine(ctx context.Context, v *Venue, log io.Writer) (*Algos, error) {
	if !v.Credentials.HasKeys() {
		return nil, fmt.Errorf("desk: no API keys (%s, %s): the engine sends orders", config.EnvAPIKey, config.EnvAPISecret)
	}
	if v.readOnly {
		return nil, fmt.Errorf("desk: %s: the engine sends orders, so it does not run read-only", v.why)
	}
	a, err := v.StartAlgos(ctx, AlgoOptions{Host: "desk", MayRun: true, Log: func(s string) {
		// The engine's own lines (journal, REST trouble) start with
		// "algo"; its events are printed on stdout already.
		if strings.HasPrefix(s, "algo") || strings.HasPrefix(s, "engine") {
			fmt.Fprintln(log, "tradedeck desk:", s)
		}
	}})
	if err != nil {
		return nil, err
	}
	if place, where := a.Place(); place != PlaceStarting && place != PlaceHere {
		a.Close()
		return nil, fmt.Errorf("desk: the engine of this account already runs in %s: one engine per account (tradedeck algo list|add|cancel talk to it)", where)
	}
	v.Algos = a
	ready := a.Ready()
	go func() {
		select {
		case <-ready:
			fmt.Fprintf(log, "tradedeck desk: engine ready on %s (%d algos); socket %s\n", v.Label, len(a.Snapshot()), a.paths.Socket)
		case <-ctx.Done():
		}
	}()
	return a, nil
}
