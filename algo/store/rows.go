package store

import (
	"database/sql"
	"fmt"
	"time"
)

// The rows of the algo engine's tables. Decimals travel as their exact
// strings; the engine owns their meaning (package algo).

// AlgoRow is one algo.
type AlgoRow struct {
	ID      int64
	Account string
	Kind    string
	Symbol  string
	Side    string
	Spec    string // JSON
	Line    string
	State   string
	Reason  string
	Anchor  string
	Active  bool
	Filled  string
	By      string
	Created time.Time
	Updated time.Time
}

// ChildRow is one child order.
type ChildRow struct {
	CID        int64
	AlgoID     int64
	Leg        int
	Attempt    int
	Symbol     string
	Side       string
	Type       string
	Price      string
	Quantity   string
	ReduceOnly bool
	Status     string
	OrderID    int64
	Executed   string
	AvgPrice   string
	Reason     string
	Created    time.Time
	Updated    time.Time
}

// TriggerRow is one firing with its provenance.
type TriggerRow struct {
	AlgoID  int64
	Leg     int
	Level   string
	Price   string
	Source  string
	VenueMS int64
	At      time.Time
	AgeMS   int64
	Why     string
}

// EventRow is one event of the engine.
type EventRow struct {
	Account string
	AlgoID  int64
	Kind    string
	Symbol  string
	Text    string
	At      time.Time
}

// writes are the statements of the Tx methods, prepared by Open.
var writes = map[string]string{
	"insertAlgo": `INSERT INTO algos(account, kind, symbol, side, spec, line, state, reason, anchor, active, filled, by, created_ms, updated_ms)
		VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?)`,
	"updateAlgo": `UPDATE algos SET state=?, reason=?, anchor=?, active=?, filled=?, spec=?, line=?, updated_ms=? WHERE id=?`,
	"putChild": `INSERT INTO children(cid, algo_id, leg, attempt, symbol, side, type, price, quantity, reduce_only, status, order_id, executed, avg_price, reason, created_ms, updated_ms)
		VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)
		ON CONFLICT(cid) DO UPDATE SET status=excluded.status, order_id=excluded.order_id, executed=excluded.executed,
			avg_price=excluded.avg_price, reason=excluded.reason, quantity=excluded.quantity, updated_ms=excluded.updated_ms`,
	"addTrigger": `INSERT INTO triggers(algo_id, leg, level, price, source, venue_ms, at_ms, age_ms, why) VALUES(?,?,?,?,?,?,?,?,?)`,
	"addEvent":   `INSERT INTO events(account, algo_id, kind, symbol, text, at_ms) VALUES(?,?,?,?,?,?)`,
	"setWatermark": `INSERT INTO watermarks(account, symbol, venue_ms) VALUES(?,?,?)
		ON CONFLICT(account, symbol) DO UPDATE SET venue_ms=max(venue_ms, excluded.venue_ms)`,
}

// InsertAlgo adds an algo and returns its id.
func (t *Tx) InsertAlgo(a AlgoRow) (int64, error) {
	r, err := t.exec("insertAlgo", a.Account, a.Kind, a.Symbol, a.Side, a.Spec, a.Line, a.State, a.Reason,
		a.Anchor, a.Active, nz(a.Filled), a.By, ms(a.Created), ms(a.Updated))
	if err != nil {
		return 0, err
	}
	return r.LastInsertId()
}

// UpdateAlgo writes an algo's changing fields: state, reason, anchor,
// active, filled, spec (an amended trigger).
func (t *Tx) UpdateAlgo(a AlgoRow) error {
	_, err := t.exec("updateAlgo",
		a.State, a.Reason, a.Anchor, a.Active, nz(a.Filled), a.Spec, a.Line, ms(a.Updated), a.ID)
	return err
}

// PutChild inserts or replaces a child order.
func (t *Tx) PutChild(c ChildRow) error {
	_, err := t.exec("putChild",
		c.CID, c.AlgoID, c.Leg, c.Attempt, c.Symbol, c.Side, c.Type, nz(c.Price), c.Quantity, c.ReduceOnly, c.Status,
		c.OrderID, nz(c.Executed), nz(c.AvgPrice), c.Reason, ms(c.Created), ms(c.Updated))
	return err
}

// AddTrigger records a firing.
func (t *Tx) AddTrigger(r TriggerRow) error {
	_, err := t.exec("addTrigger",
		r.AlgoID, r.Leg, r.Level, r.Price, r.Source, r.VenueMS, ms(r.At), r.AgeMS, r.Why)
	return err
}

// AddEvent records an event.
func (t *Tx) AddEvent(e EventRow) error {
	_, err := t.exec("addEvent",
		e.Account, e.AlgoID, e.Kind, e.Symbol, e.Text, ms(e.At))
	return err
}

// SetWatermark records the last market moment seen on a symbol.
func (t *Tx) SetWatermark(account, symbol string, venueMS int64) error {
	_, err := t.exec("setWatermark", account, symbol, venueMS)
	return err
}

func nz(s string) string {
	if s == "" {
		return "0"
	}
	return s
}

// Algos returns the algos of an account, oldest first: only those not in
// a final state when open.
func (s *Store) Algos(account string, open bool) ([]AlgoRow, error) {
	q := `SELECT id, account, kind, symbol, side, spec, line, state, reason, anchor, active, filled, by, created_ms, updated_ms FROM algos WHERE account=?`
	if open {
		q += ` AND state NOT IN ('done','cancelled','failed','refused')`
	}
	rows, err := s.db.Query(q+` ORDER BY id`, account)
	if err != nil {
		return nil, fmt.Errorf("store: %w", err)
	}
	defer rows.Close()
	var out []AlgoRow
	for rows.Next() {
		var a AlgoRow
		var c, u int64
		if err := rows.Scan(&a.ID, &a.Account, &a.Kind, &a.Symbol, &a.Side, &a.Spec, &a.Line, &a.State, &a.Reason,
			&a.Anchor, &a.Active, &a.Filled, &a.By, &c, &u); err != nil {
			return nil, fmt.Errorf("store: %w", err)
		}
		a.Created, a.Updated = fromMS(c), fromMS(u)
		out = append(out, a)
	}
	return out, rows.Err()
}

// Children returns an algo's child orders, by client order id.
func (s *Store) Children(algoID int64) ([]ChildRow, error) {
	rows, err := s.db.Query(`SELECT cid, algo_id, leg, attempt, symbol, side, type, price, quantity, reduce_only, status, order_id, executed, avg_price, reason, created_ms, updated_ms
		FROM children WHERE algo_id=? ORDER BY cid`, algoID)
	if err != nil {
		return nil, fmt.Errorf("store: %w", err)
	}
	defer rows.Close()
	var out []ChildRow
	for rows.Next() {
		var c ChildRow
		var cr, up int64
		if err := rows.Scan(&c.CID, &c.AlgoID, &c.Leg, &c.Attempt, &c.Symbol, &c.Side, &c.Type, &c.Price, &c.Quantity,
			&c.ReduceOnly, &c.Status, &c.OrderID, &c.Executed, &c.AvgPrice, &c.Reason, &cr, &up); err != nil {
			return nil, fmt.Errorf("store: %w", err)
		}
		c.Created, c.Updated = fromMS(cr), fromMS(up)
		out = append(out, c)
	}
	return out, rows.Err()
}

// LastTrigger returns an algo's latest firing (ok false: never fired).
func (s *Store) LastTrigger(algoID int64) (TriggerRow, bool, error) {
	var r TriggerRow
	var at int64
	err := s.db.QueryRow(`SELECT algo_id, leg, level, price, source, venue_ms, at_ms, age_ms, why FROM triggers WHERE algo_id=? ORDER BY id DESC LIMIT 1`, algoID).
		Scan(&r.AlgoID, &r.Leg, &r.Level, &r.Price, &r.Source, &r.VenueMS, &at, &r.AgeMS, &r.Why)
	if err == sql.ErrNoRows {
		return r, false, nil
	}
	if err != nil {
		return r, false, fmt.Errorf("store: %w", err)
	}
	r.At = fromMS(at)
	return r, true, nil
}

// Watermark returns the last market moment recorded on a symbol (0: none).
func (s *Store) Watermark(account, symbol string) (int64, error) {
	var v int64
	err := s.db.QueryRow(`SELECT venue_ms FROM watermarks WHERE account=? AND symbol=?`, account, symbol).Scan(&v)
	if err == sql.ErrNoRows {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("store: %w", err)
	}
	return v, nil
}

// Events returns an account's latest events, newest first.
func (s *Store) Events(account string, limit int) ([]EventRow, error) {
	rows, err := s.db.Query(`SELECT account, algo_id, kind, symbol, text, at_ms FROM events WHERE account=? ORDER BY id DESC LIMIT ?`, account, limit)
	if err != nil {
		return nil, fmt.Errorf("store: %w", err)
	}
	defer rows.Close()
	var out []EventRow
	for rows.Next() {
		var e EventRow
		var at int64
		if err := rows.Scan(&e.Account, &e.AlgoID, &e.Kind, &e.Symbol, &e.Text, &at); err != nil {
			return nil, fmt.Errorf("store: %w", err)
		}
		e.At = fromMS(at)
		out = append(out, e)
	}
	return out, rows.Err()
}

// AuditRow is one line of serve's trade audit.
type AuditRow struct {
	At      time.Time
	Account string
	Key     string
	Action  string
	Detail  string
}

// AddAudit appends to serve's trade audit (committed on return).
func (s *Store) AddAudit(r AuditRow) error {
	_, err := s.db.Exec(`INSERT INTO audit(at_ms, account, key, action, detail) VALUES(?,?,?,?,?)`, ms(r.At), r.Account, r.Key, r.Action, r.Detail)
	if err != nil {
		return fmt.Errorf("store: %w", err)
	}
	return nil
}
