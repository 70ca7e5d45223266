package store

import (
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// The alert firings: every time an alert fired in a host that has the
// account's engine, with what the alert did to an algo (its action, the
// algo, the result or the refusal) and who added the alert. Two
// processes sharing an alerts file fire the same alert; its firing's key
// (claim) is unique, so it is recorded once and its action done once.

// firingColumns are the columns version 1 of alert_firings lacked, added
// to an older file on open (ALTER TABLE keeps its rows).
var firingColumns = []struct{ name, decl string }{
	{"account", "TEXT NOT NULL DEFAULT ''"},
	{"action", "TEXT NOT NULL DEFAULT ''"}, // "pause 12", "tighten 12 1%"; "" none
	{"algo_id", "INTEGER NOT NULL DEFAULT 0"},
	{"result", "TEXT NOT NULL DEFAULT ''"}, // "pending", "done: ...", "refused: ...", "elsewhere"
	{"by", "TEXT NOT NULL DEFAULT ''"},     // who added the alert
	{"claim", "TEXT NOT NULL DEFAULT ''"},  // the firing's key (unique when set)
}

// migrateFirings brings alert_firings to the columns above.
func (s *Store) migrateFirings() error {
	rows, err := s.db.Query(`SELECT name FROM pragma_table_info('alert_firings')`)
	if err != nil {
		return err
	}
	have := map[string]bool{}
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			rows.Close()
			return err
		}
		have[n] = true
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	for _, c := range firingColumns {
		if !have[c.name] {
			if _, err := s.db.Exec(`ALTER TABLE alert_firings ADD COLUMN ` + c.name + ` ` + c.decl); err != nil {
				return err
			}
		}
	}
	_, err = s.db.Exec(`CREATE UNIQUE INDEX IF NOT EXISTS alert_firings_claim ON alert_firings(claim) WHERE claim != ''`)
	return err
}

// Results of an alert's action in alert_firings.result (the done and
// refused ones are followed by ": " and the line).
const (
	FiringPending = "pending" // claimed, the action not finished (a crash in between leaves it so)
	FiringDone    = "done"
	FiringRefused = "refused"
)

// AlertFiringRow is one alert firing.
type AlertFiringRow struct {
	ID      int64
	At      time.Time
	Account string
	AlertID int
	Symbol  string
	Kind    string
	Value   string
	Message string
	Action  string // "" none
	AlgoID  int64
	Result  string
	By      string
	Claim   string // the firing's key; "" never conflicts
}

const firingInsert = `INSERT OR IGNORE INTO alert_firings(at_ms, account, alert_id, symbol, kind, value, message, action, algo_id, result, by, claim)
	VALUES(?,?,?,?,?,?,?,?,?,?,?,?)`

// AddAlertFiring records an alert firing (committed on return).
func (s *Store) AddAlertFiring(r AlertFiringRow) error {
	_, _, err := s.ClaimAlertFiring(r)
	return err
}

// ClaimAlertFiring records a firing unless one with the same Claim is
// recorded already (committed on return). claimed is false when another
// process (or an earlier run) recorded it first: it acts, not this one.
func (s *Store) ClaimAlertFiring(r AlertFiringRow) (id int64, claimed bool, err error) {
	res, err := s.db.Exec(firingInsert, ms(r.At), r.Account, r.AlertID, r.Symbol, r.Kind, r.Value, r.Message,
		r.Action, r.AlgoID, r.Result, r.By, r.Claim)
	if err != nil {
		return 0, false, fmt.Errorf("store: %w", err)
	}
	if n, err := res.RowsAffected(); err != nil || n == 0 {
		return 0, false, err
	}
	id, err = res.LastInsertId()
	if err != nil {
		return 0, false, fmt.Errorf("store: %w", err)
	}
	return id, true, nil
}

// SetAlertFiringResult records what a claimed firing's action did.
func (s *Store) SetAlertFiringResult(id int64, result string) error {
	if _, err := s.db.Exec(`UPDATE alert_firings SET result = ? WHERE id = ?`, result, id); err != nil {
		return fmt.Errorf("store: %w", err)
	}
	return nil
}

// AlertFiring returns the firing recorded under claim (ok false: none).
func (s *Store) AlertFiring(claim string) (r AlertFiringRow, ok bool, err error) {
	var at int64
	err = s.db.QueryRow(`SELECT id, at_ms, account, alert_id, symbol, kind, value, message, action, algo_id, result, by, claim
		FROM alert_firings WHERE claim = ? AND claim != ''`, claim).
		Scan(&r.ID, &at, &r.Account, &r.AlertID, &r.Symbol, &r.Kind, &r.Value, &r.Message, &r.Action, &r.AlgoID, &r.Result, &r.By, &r.Claim)
	if err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return r, false, nil
		}
		return r, false, fmt.Errorf("store: %w", err)
	}
	r.At = fromMS(at)
	return r, true, nil
}
