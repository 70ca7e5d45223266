package app

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	"tradedeck/alerts"
	"tradedeck/algo"
	"tradedeck/algo/store"
)

// Alerts that act (docs/alerts.md "Alerts that act"): an alert may pause,
// resume or cancel an algo of the account, or tighten a trailing stop.
// The alerts package keeps the action; this side checks it when the alert
// is added, and for every firing writes a row in the desk's database
// (alert_firings) and does the action on the account's engine, once.

// alertActor is the account's side of one alert engine (a dashboard's,
// a served session's, the headless host's).
type alertActor struct {
	// src is the engine as this screen uses it: a served session's is
	// audited with its key, an SSH viewer's refuses every change.
	src AlgoSource
	log *firingLog // the account's database; nil: no keys, nothing to record in
	// refuse says why nothing here may act ("": it may): read-only, a
	// replay (recorded data never acts on an engine).
	refuse string
	audit  *Audit // serve's trade audit; nil elsewhere
	// board and own: the other screens of the process hear each outcome
	// (own is this engine's deliverer, which Acts tells itself).
	board *actBoard
	own   *alerts.Deliverer
}

// errNoActor refuses an action where the account has no engine here: no
// API keys, or the engine could not start.
var errNoActor = errors.New("no engine of the account in this process (it needs the account's API keys): an alert cannot act here")

// newAlertActor is the actor of a dashboard or host on v.
func newAlertActor(v *Venue) *alertActor {
	x := &alertActor{src: v.algoSource(), audit: v.audit, board: v.actBoard}
	switch {
	case v.scratchAlerts:
		x.refuse = "alerts on recorded data only notify: an alert acts on a real engine, never from a replay"
	case v.readOnly:
		x.refuse = v.why + ": an alert may not act on algos here"
	}
	if v.Algos != nil && v.Algos.dir != "" && !v.scratchAlerts {
		x.log = &firingLog{a: v.Algos}
	}
	return x
}

// wire makes an alert engine's options act through x: Check for the
// alerts added, and every firing queued for the returned runner. Run the
// runner next to the engine.
func (x *alertActor) wire(o *alerts.Options, d *alerts.Deliverer) *alerts.Acts {
	if x == nil {
		return nil
	}
	x.own = d
	x.board.join(d)
	acts := alerts.NewActs(x.do, d)
	o.Check = x.check
	tell := o.OnFire
	o.OnFire = func(f alerts.Fired) {
		if tell != nil {
			tell(f)
		}
		acts.Queue(f)
	}
	return acts
}

// close closes what x opened (its handle on the database).
func (x *alertActor) close() {
	if x != nil {
		x.board.leave(x.own)
		x.log.close()
	}
}

// check accepts an alert's action when the algo exists in the account and
// the engine would do the action to it now (Options.Check).
func (x *alertActor) check(act alerts.Action) error {
	if err := x.cannotAct(); err != nil {
		return err
	}
	a, err := x.find(act)
	if err != nil {
		return err
	}
	return vetAction(act, a)
}

// find is the algo act names in the account's engine now.
func (x *alertActor) find(act alerts.Action) (algo.Algo, error) {
	return findAlgo(x.src.Snapshot(), act)
}

// vetAction refuses what the engine would refuse of act on a: a finished
// algo, pausing a protective order, tightening what is not a trailing
// stop or loosening one.
func vetAction(act alerts.Action, a algo.Algo) error {
	if a.State.Final() {
		return fmt.Errorf("algo #%d is %s already", a.ID, a.State)
	}
	switch act.Verb {
	case alerts.VerbPause, alerts.VerbResume:
		if !working(a) {
			return fmt.Errorf("algo #%d is a %s: %w", a.ID, a.Spec.Label(), algo.ErrNotPausable)
		}
	case alerts.VerbTighten:
		if a.Spec.Kind != algo.KindTrail {
			return fmt.Errorf("algo #%d is a %s: only a trailing stop can be tightened", a.ID, a.Spec.Label())
		}
		now, asked := a.Spec.TrailPercent, act.Percent
		unit := "%"
		if act.Distance.IsPositive() {
			now, asked, unit = a.Spec.TrailDistance, act.Distance, ""
		}
		if now.IsPositive() && asked.GreaterThanOrEqual(now) {
			return fmt.Errorf("a trail of %s%s is not tighter than #%d's %s%s", asked, unit, a.ID, now, unit)
		}
	}
	return nil
}

// working reports a working order (chase, scale, TWAP): the kinds that
// pause. An algo read from the database has its spec, not its progress.
func working(a algo.Algo) bool { return a.Work != nil || a.Spec.Kind.Working() }

// do records f in the desk's database and does its action (alerts.Doer).
// The row is written (the firing claimed) before the action: of two
// processes that fire the same alert, the one whose row is first acts,
// and a restart that fires again what fired just before the crash finds
// the row and does not act twice.
func (x *alertActor) do(_ context.Context, f alerts.Fired) alerts.Outcome {
	o := alerts.Outcome{Fired: f}
	if f.Action != nil && x.cannotAct() != nil {
		// Not claimed: a process sharing the alerts file that runs (or
		// views) the account's engine does it, if one runs.
		o.Err = fmt.Errorf("not done here: %w", x.cannotAct())
		o.Text = fmt.Sprintf("alert %d: %s %v", f.Alert, f.Action, o.Err)
		return o
	}
	row := store.AlertFiringRow{At: f.Time, AlertID: f.Alert, Symbol: f.Symbol, Kind: string(f.Kind), Value: f.Value,
		Message: f.Message, By: f.By, Claim: f.Key}
	if f.Action != nil {
		row.Action, row.AlgoID, row.Result = f.Action.String(), f.Action.Algo, store.FiringPending
	}
	id, claimed, err := x.log.claim(row)
	switch {
	case err != nil:
		// Not recorded; the action is done anyway: the trader relies on it.
		o.Err = fmt.Errorf("alert %d: not recorded in the database: %w", f.Alert, err)
		o.Text = o.Err.Error()
	case !claimed:
		o.Elsewhere = true
		if f.Action != nil {
			o.Text = fmt.Sprintf("alert %d: %s taken already (by another process sharing the alerts file, or before a restart)", f.Alert, f.Action)
			if r, ok := x.log.recorded(f.Key); ok {
				o.Text += ": " + r.Result
			}
		}
		return o
	}
	if f.Action == nil {
		return o
	}
	text, aerr := x.act(*f.Action, f)
	result := store.FiringDone + ": " + text
	if aerr != nil {
		result = store.FiringRefused + ": " + aerr.Error()
	}
	if id != 0 {
		if err := x.log.result(id, result); err != nil && o.Err == nil {
			o.Err = fmt.Errorf("alert %d: result not recorded in the database: %w", f.Alert, err)
		}
	}
	x.audit.Record(auditKey(f.By), "alert "+string(f.Action.Verb), fmt.Sprintf("alert %d (%s) then %s", f.Alert, f.Message, f.Action), aerr)
	switch {
	case aerr != nil:
		o.Err = aerr
		o.Text = fmt.Sprintf("alert %d: %s refused: %v", f.Alert, f.Action, aerr)
	case o.Err != nil:
		o.Text = fmt.Sprintf("alert %d: %s (%v)", f.Alert, text, o.Err)
	default:
		o.Text = fmt.Sprintf("alert %d: %s", f.Alert, text)
	}
	x.board.tell(o, x.own)
	return o
}

// cannotAct says why nothing here may act (nil: it may).
func (x *alertActor) cannotAct() error {
	switch {
	case x.refuse != "":
		return errors.New(x.refuse)
	case x.src == nil:
		return errNoActor
	}
	return nil
}

// act does one action: the algo is found again (one that finished since
// the alert was added is reported, not acted on), then the engine does it.
func (x *alertActor) act(act alerts.Action, f alerts.Fired) (string, error) {
	a, err := x.find(act)
	if err != nil {
		return "", fmt.Errorf("%w: not acted on", err)
	}
	if a.State.Final() {
		return "", fmt.Errorf("algo #%d finished meanwhile (%s): not acted on", a.ID, a.State)
	}
	id := algo.ID(act.Algo)
	switch act.Verb {
	case alerts.VerbPause:
		why := fmt.Sprintf("alert %d: %s", f.Alert, f.Message)
		if f.By != "" {
			why += " (alert by " + f.By + ")"
		}
		return fmt.Sprintf("paused algo #%d %s", id, a.Spec.Label()), x.src.Pause(id, why)
	case alerts.VerbResume:
		return fmt.Sprintf("resumed algo #%d %s", id, a.Spec.Label()), x.src.Resume(id)
	case alerts.VerbCancel:
		return fmt.Sprintf("cancelled algo #%d %s", id, a.Spec.Label()), x.src.Cancel(id, "cancelled by "+f.Cause())
	case alerts.VerbTighten:
		trail := act.Distance.String()
		if act.Percent.IsPositive() {
			trail = act.Percent.String() + "%"
		}
		return fmt.Sprintf("tightened algo #%d trail to %s", id, trail), x.src.Tighten(id, act.Percent, act.Distance)
	}
	return "", fmt.Errorf("unknown action %q", act.Verb)
}

// auditKey is who added an alert as the audit names keys.
func auditKey(by string) string {
	if by == "" {
		return "local"
	}
	return by
}

// firingLog is the account's database as alerts write it: the engine's
// own handle when this process runs it, else one opened on the same file
// at the first firing (a view: SQLite takes both processes' writes).
type firingLog struct {
	a *Algos

	mu  sync.Mutex
	own *store.Store
}

func (l *firingLog) db() (*store.Store, error) {
	if l == nil {
		return nil, nil
	}
	if st := l.a.Store(); st != nil {
		return st, nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.own == nil {
		st, err := store.Open(store.Path(l.a.dir))
		if err != nil {
			return nil, err
		}
		l.own = st
	}
	return l.own, nil
}

// claim records a firing unless its key is recorded already; without a
// database (no keys) every firing is this process's own.
func (l *firingLog) claim(r store.AlertFiringRow) (int64, bool, error) {
	st, err := l.db()
	if err != nil || st == nil {
		return 0, err == nil, err
	}
	r.Account = l.a.acct
	return st.ClaimAlertFiring(r)
}

// recorded is the row of a firing another process (or run) claimed.
func (l *firingLog) recorded(claim string) (store.AlertFiringRow, bool) {
	st, err := l.db()
	if err != nil || st == nil {
		return store.AlertFiringRow{}, false
	}
	r, ok, err := st.AlertFiring(claim)
	return r, ok && err == nil
}

func (l *firingLog) result(id int64, result string) error {
	st, err := l.db()
	if err != nil || st == nil {
		return err
	}
	return st.SetAlertFiringResult(id, result)
}

// close closes the handle it opened (never the engine's).
func (l *firingLog) close() {
	if l == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.own != nil {
		_ = l.own.Close()
		l.own = nil
	}
}

// actBoard is every alert engine's deliverer in the process: what one
// screen's alert did to an algo of the account is shown on the others
// (serve's sessions share the account's algos).
type actBoard struct {
	mu sync.Mutex
	ds map[*alerts.Deliverer]struct{}
}

func (b *actBoard) join(d *alerts.Deliverer) {
	if b == nil || d == nil {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.ds == nil {
		b.ds = map[*alerts.Deliverer]struct{}{}
	}
	b.ds[d] = struct{}{}
}

func (b *actBoard) leave(d *alerts.Deliverer) {
	if b == nil {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	delete(b.ds, d)
}

// tell shows o on every screen but except's, naming who set the alert.
func (b *actBoard) tell(o alerts.Outcome, except *alerts.Deliverer) {
	if b == nil {
		return
	}
	if by := o.Fired.By; by != "" {
		o.Text = strings.Replace(o.Text, fmt.Sprintf("alert %d:", o.Fired.Alert), fmt.Sprintf("alert %d of %s:", o.Fired.Alert, short(by)), 1)
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	for d := range b.ds {
		if d != except {
			d.Acted(o)
		}
	}
}

// short is a key's fingerprint shortened for a notice.
func short(fp string) string {
	if r := []rune(fp); len(r) > 16 {
		return string(r[:16]) + "…"
	}
	return fp
}
