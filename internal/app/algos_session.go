package app

import (
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/shopspring/decimal"

	"tradedeck/algo"
	"tradedeck/algo/store"
)

// Audit is serve's trade audit: every order, cancel and algo action of a
// session, with its SSH key, in the desk's database (store's audit table,
// next to the engine's algos) and the server's log.
type Audit struct {
	account string
	log     func(key, action, detail string, err error)

	mu sync.Mutex
	st *store.Store
}

// Record logs one action and appends it to the database (committed on
// return; a failure to write is logged, never stops the action, which
// already happened).
func (au *Audit) Record(key, action, detail string, err error) {
	if au == nil {
		return
	}
	if au.log != nil {
		au.log(key, action, detail, err)
	}
	au.Write(key, action, detail, err)
}

// Write appends one action to the database only (its caller logs it).
func (au *Audit) Write(key, action, detail string, err error) {
	if au == nil {
		return
	}
	if err != nil {
		detail += " -> refused: " + err.Error()
	}
	au.mu.Lock()
	st := au.st
	au.mu.Unlock()
	if st == nil {
		return
	}
	if werr := st.AddAudit(store.AuditRow{At: time.Now(), Account: au.account, Key: key, Action: action, Detail: detail}); werr != nil && au.log != nil {
		au.log(key, "audit", "not written to the database", werr)
	}
}

// Close closes the audit's database.
func (au *Audit) Close() {
	if au == nil {
		return
	}
	au.mu.Lock()
	defer au.mu.Unlock()
	if au.st != nil {
		_ = au.st.Close()
		au.st = nil
	}
}

// OpenAudit opens the audit in the database of the venue's account (the
// engine's, wherever it runs: SQLite takes the writes of both processes).
func (a *Algos) OpenAudit(log func(key, action, detail string, err error)) (*Audit, error) {
	au := &Audit{account: a.acct, log: log}
	if a.dir == "" {
		return au, nil // no keys: nothing trades, the log is the audit
	}
	st, err := store.Open(store.Path(a.dir))
	if err != nil {
		return nil, err
	}
	au.st = st
	return au, nil
}

// errViewer refuses an SSH viewer's algo action.
var errViewer = errors.New("SSH viewer: read-only (tradedeck-role=trader lets a key trade)")

// sessionAlgos is the engine as one SSH session uses it: a trader's
// actions go to the engine with the key as their author and into the
// audit; a viewer sees the algos and is refused every change.
type sessionAlgos struct {
	src    AlgoSource
	trader bool
	key    string // the SSH key's fingerprint
	audit  *Audit
}

var _ AlgoSource = sessionAlgos{}

func (s sessionAlgos) act(action, detail string, do func() error) error {
	if !s.trader {
		s.audit.Record(s.key, action, detail, errViewer)
		return errViewer
	}
	err := do()
	s.audit.Record(s.key, action, detail, err)
	return err
}

func (s sessionAlgos) Preview(sp algo.Spec) (algo.Preview, error) { return s.src.Preview(sp) }

func (s sessionAlgos) Add(sp algo.Spec, c algo.Confirm) (algo.Algo, error) {
	var a algo.Algo
	c.By = "ssh " + s.key
	err := s.act("algo add", sp.String(), func() (err error) {
		a, err = s.src.Add(sp, c)
		return err
	})
	return a, err
}

func (s sessionAlgos) Cancel(id algo.ID, why string) error {
	return s.act("algo cancel", fmt.Sprintf("#%d", id), func() error { return s.src.Cancel(id, why) })
}

func (s sessionAlgos) CancelAll(sc algo.Scope) error {
	return s.act("algo cancel all", fmt.Sprintf("%q (%s)", sc.Symbol, sc.Why), func() error { return s.src.CancelAll(sc) })
}

func (s sessionAlgos) AmendTrigger(id algo.ID, leg algo.Leg, p decimal.Decimal) error {
	return s.act("algo amend", fmt.Sprintf("#%d %s to %s", id, leg, p), func() error { return s.src.AmendTrigger(id, leg, p) })
}

func (s sessionAlgos) Resolve(id algo.ID, d algo.Decision) error {
	return s.act("algo resolve", fmt.Sprintf("#%d decision %d", id, d), func() error { return s.src.Resolve(id, d) })
}

func (s sessionAlgos) Pause(id algo.ID, why string) error {
	return s.act("algo pause", fmt.Sprintf("#%d (%s)", id, why), func() error { return s.src.Pause(id, why) })
}

func (s sessionAlgos) Resume(id algo.ID) error {
	return s.act("algo resume", fmt.Sprintf("#%d", id), func() error { return s.src.Resume(id) })
}

func (s sessionAlgos) Tighten(id algo.ID, percent, distance decimal.Decimal) error {
	return s.act("algo tighten", fmt.Sprintf("#%d trail %s%% / %s", id, percent, distance), func() error { return s.src.Tighten(id, percent, distance) })
}

func (s sessionAlgos) Snapshot() []algo.Algo                       { return s.src.Snapshot() }
func (s sessionAlgos) Protection() []algo.Protection               { return s.src.Protection() }
func (s sessionAlgos) Subscribe(n int) (<-chan algo.Event, func()) { return s.src.Subscribe(n) }
