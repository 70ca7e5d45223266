// Package store is the desk's database: one embedded SQLite file in the
// state directory (`$XDG_STATE_HOME/tradedeck/desk.db`) holding the algo
// engine's state and history, serve's trade audit and the alert firings.
// It is written in WAL mode and every commit is synchronous (it has
// reached the operating system when it returns, the disk too with
// Options.PowerSafe): the engine commits before an order leaves. Anyone can
// read it with the standard `sqlite3` tool while tradedeck runs.
//
// The driver is modernc.org/sqlite (SQLite translated to Go): no cgo, so
// the binary stays static.
package store

import (
	"context"
	"crypto/rand"
	"database/sql"
	"errors"
	"fmt"
	"math/big"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"time"

	_ "modernc.org/sqlite" // the "sqlite" database/sql driver
)

// FileName is the database's name in the state directory.
const FileName = "desk.db"

// Path is the database in state directory dir (xdg.State).
func Path(dir string) string { return filepath.Join(dir, FileName) }

// Store is an open database. Its methods are safe for concurrent use
// (one connection: the engine is the only writer of its account, and
// SQLite serialises writers anyway).
type Store struct {
	db     *sql.DB
	path   string
	prefix int64
	stmts  map[string]*sql.Stmt // the engine's writes, prepared once
}

// Options tune Open.
type Options struct {
	// PowerSafe commits with synchronous=FULL: every commit waits for the
	// disk (fsync), so it survives a power loss or an OS crash too. The
	// default (synchronous=NORMAL in WAL mode) returns once the commit is
	// in the operating system: it survives kill -9 of tradedeck, and costs
	// ~0.1 ms instead of 1 ms (p50) to 8 ms (p99) on a virtual disk
	// (docs/algos.md). The engine covers the gap of a power loss by
	// asking the venue for the next client order id of every exit on
	// start (ids are deterministic), so an exit sent in the lost moment is
	// found, not sent again.
	PowerSafe bool
}

// Open opens (creating when missing) the database at path, in a directory
// readable by the user only, and brings its schema up to date.
func Open(path string) (*Store, error) { return OpenWith(path, Options{}) }

// OpenWith is Open with options.
func OpenWith(path string, o Options) (*Store, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("store: %w", err)
	}
	q := url.Values{}
	sync := "synchronous(NORMAL)"
	if o.PowerSafe {
		sync = "synchronous(FULL)"
	}
	for _, p := range []string{"journal_mode(WAL)", sync, "busy_timeout(5000)", "foreign_keys(1)", "cache_size(-512)"} {
		q.Add("_pragma", p)
	}
	db, err := sql.Open("sqlite", "file:"+path+"?"+q.Encode())
	if err != nil {
		return nil, fmt.Errorf("store: open %s: %w", path, err)
	}
	db.SetMaxOpenConns(1)
	db.SetConnMaxIdleTime(0)
	s := &Store{db: db, path: path}
	if err := s.migrate(); err != nil {
		db.Close()
		return nil, fmt.Errorf("store: %s: %w", path, err)
	}
	if err := os.Chmod(path, 0o600); err != nil {
		db.Close()
		return nil, fmt.Errorf("store: %w", err)
	}
	if s.prefix, err = s.clientIDPrefix(); err != nil {
		db.Close()
		return nil, fmt.Errorf("store: %s: %w", path, err)
	}
	if err := s.prepare(); err != nil {
		db.Close()
		return nil, fmt.Errorf("store: %s: %w", path, err)
	}
	return s, nil
}

// prepare compiles the statements the engine runs before an order
// leaves, once: parsing them on every commit costs more than the commit.
func (s *Store) prepare() error {
	s.stmts = map[string]*sql.Stmt{}
	for name, q := range writes {
		st, err := s.db.Prepare(q)
		if err != nil {
			return err
		}
		s.stmts[name] = st
	}
	return nil
}

// Close closes the database.
func (s *Store) Close() error { return s.db.Close() }

// Path is the database file.
func (s *Store) Path() string { return s.path }

// DB is the database handle, for the hosts' own tables (audit, alert
// firings) and `tradedeck export`.
func (s *Store) DB() *sql.DB { return s.db }

// ClientIDPrefix is this database's 3-digit prefix of the engine's client
// order ids (100..899), drawn once when the file is made: a new database
// (the old one deleted) never hands out an id an older one did.
func (s *Store) ClientIDPrefix() int64 { return s.prefix }

func (s *Store) clientIDPrefix() (int64, error) {
	var v string
	err := s.db.QueryRow(`SELECT value FROM meta WHERE key = 'cid_prefix'`).Scan(&v)
	if err == nil {
		return strconv.ParseInt(v, 10, 64)
	}
	if !errors.Is(err, sql.ErrNoRows) {
		return 0, err
	}
	n, err := rand.Int(rand.Reader, big.NewInt(800))
	if err != nil {
		return 0, err
	}
	p := 100 + n.Int64()
	_, err = s.db.Exec(`INSERT INTO meta(key, value) VALUES('cid_prefix', ?)`, strconv.FormatInt(p, 10))
	return p, err
}

// schema is version 1 of the database. Decimals are TEXT (exact, and
// readable in sqlite3); times are unix milliseconds.
const schema = `
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS algos (
	id INTEGER PRIMARY KEY AUTOINCREMENT,
	account TEXT NOT NULL,
	kind TEXT NOT NULL,
	symbol TEXT NOT NULL,
	side TEXT NOT NULL,
	spec TEXT NOT NULL,          -- the user's spec as JSON (source resolved)
	line TEXT NOT NULL,          -- the spec in the grammar, for people
	state TEXT NOT NULL,
	reason TEXT NOT NULL DEFAULT '',
	anchor TEXT NOT NULL DEFAULT '',  -- trailing: best price since activation
	active INTEGER NOT NULL DEFAULT 0,
	filled TEXT NOT NULL DEFAULT '0',
	by TEXT NOT NULL DEFAULT '',
	created_ms INTEGER NOT NULL,
	updated_ms INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS algos_open ON algos(account, state);
CREATE TABLE IF NOT EXISTS children (
	cid INTEGER PRIMARY KEY,     -- client order id: prefix, algo, leg, attempt
	algo_id INTEGER NOT NULL REFERENCES algos(id),
	leg INTEGER NOT NULL,
	attempt INTEGER NOT NULL,
	symbol TEXT NOT NULL,
	side TEXT NOT NULL,
	type TEXT NOT NULL,
	price TEXT NOT NULL DEFAULT '0',
	quantity TEXT NOT NULL,
	reduce_only INTEGER NOT NULL,
	status TEXT NOT NULL,
	order_id INTEGER NOT NULL DEFAULT 0,
	executed TEXT NOT NULL DEFAULT '0',
	avg_price TEXT NOT NULL DEFAULT '0',
	reason TEXT NOT NULL DEFAULT '',
	created_ms INTEGER NOT NULL,
	updated_ms INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS children_algo ON children(algo_id);
CREATE TABLE IF NOT EXISTS triggers (
	id INTEGER PRIMARY KEY AUTOINCREMENT,
	algo_id INTEGER NOT NULL REFERENCES algos(id),
	leg INTEGER NOT NULL,
	level TEXT NOT NULL,
	price TEXT NOT NULL,
	source TEXT NOT NULL,
	venue_ms INTEGER NOT NULL,   -- venue time of the frame that crossed
	at_ms INTEGER NOT NULL,      -- local time the engine saw it
	age_ms INTEGER NOT NULL,     -- the frame's age then
	why TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS events (
	id INTEGER PRIMARY KEY AUTOINCREMENT,
	account TEXT NOT NULL,
	algo_id INTEGER NOT NULL,    -- 0: the engine itself
	kind TEXT NOT NULL,
	symbol TEXT NOT NULL,
	text TEXT NOT NULL,
	at_ms INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS watermarks (
	account TEXT NOT NULL,
	symbol TEXT NOT NULL,
	venue_ms INTEGER NOT NULL,   -- the last market moment the engine saw while armed
	PRIMARY KEY (account, symbol)
);
CREATE TABLE IF NOT EXISTS audit (
	id INTEGER PRIMARY KEY AUTOINCREMENT,
	at_ms INTEGER NOT NULL,
	account TEXT NOT NULL,
	key TEXT NOT NULL,           -- who: an SSH key fingerprint, "local"
	action TEXT NOT NULL,        -- order, cancel, algo add, algo cancel, ...
	detail TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS alert_firings (
	id INTEGER PRIMARY KEY AUTOINCREMENT,
	at_ms INTEGER NOT NULL,
	alert_id INTEGER NOT NULL,
	symbol TEXT NOT NULL,
	kind TEXT NOT NULL,
	value TEXT NOT NULL,
	message TEXT NOT NULL
);
INSERT OR IGNORE INTO meta(key, value) VALUES('schema', '1');
`

func (s *Store) migrate() error {
	if _, err := s.db.Exec(schema); err != nil {
		return err
	}
	return s.migrateFirings()
}

// ms is a time as unix milliseconds (0 for the zero time).
func ms(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixMilli()
}

func fromMS(v int64) time.Time {
	if v == 0 {
		return time.Time{}
	}
	return time.UnixMilli(v)
}

// Tx runs fn in one transaction, committed (and on disk) when Tx returns
// nil.
func (s *Store) Tx(fn func(*Tx) error) error {
	tx, err := s.db.BeginTx(context.Background(), nil)
	if err != nil {
		return fmt.Errorf("store: %w", err)
	}
	if err := fn(&Tx{tx: tx, s: s}); err != nil {
		_ = tx.Rollback()
		return err
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("store: commit: %w", err)
	}
	return nil
}

// Tx is one transaction.
type Tx struct {
	tx *sql.Tx
	s  *Store
}

// exec runs one of the prepared writes.
func (t *Tx) exec(name string, args ...any) (sql.Result, error) {
	r, err := t.tx.Stmt(t.s.stmts[name]).Exec(args...)
	if err != nil {
		return nil, fmt.Errorf("store: %s: %w", name, err)
	}
	return r, nil
}
