package ledger

import (
	"context"
	"database/sql"
	"errors"
	"strconv"
	"strings"

	"github.com/gatewaycircuit/gatewaycircuit/idempotency"
)

// Store keeps the records. Every method is one atomic step; the ledger
// needs no transaction spanning two of them, so any number of processes
// may share one Store's database.
type Store interface {
	// Claim records rec (State pending) unless a live record holds its
	// ID. A record created before cutoff is dead and is replaced; so is a
	// failed one with rec's fingerprint (its retry runs again, keeping its
	// CreatedAt). It reports whether rec now holds the ID.
	Claim(ctx context.Context, rec idempotency.Record, cutoff int64) (bool, error)
	// Get returns the record of id created at or after cutoff and within
	// the bound of max records per principal, or nil: a finished record
	// with max newer ones of its principal (not counting those created
	// before cutoff) is beyond it, as Prune sees it.
	Get(ctx context.Context, id idempotency.ID, cutoff int64, max int) (*idempotency.Record, error)
	// Touch sets UpdatedAt of id's pending record while token holds it.
	Touch(ctx context.Context, id idempotency.ID, token string, now int64) error
	// Finish records the answer (State done or failed) if token holds id.
	Finish(ctx context.Context, rec idempotency.Record) error
	// Release deletes id's record if token holds it.
	Release(ctx context.Context, id idempotency.ID, token string) error
	// Prune deletes principal's records created before cutoff and its
	// finished ones beyond the bound of max records: those with max newer
	// ones. Newer is by UpdatedAt, then Operation and Key (a total order);
	// a pending record counts but is never beyond the bound (its outcome
	// is unknown until it finishes or its retention ends).
	Prune(ctx context.Context, principal string, cutoff int64, max int) error
	// Count is the number of principal's records ("" for all).
	Count(ctx context.Context, principal string) (int, error)
}

// Dialect is the SQL a database speaks where SQLite and PostgreSQL differ.
type Dialect struct {
	Name     string
	schema   []string
	numbered bool // $1, $2… instead of ?
}

// newestIndex serves the bound: a principal's records from the newest,
// with what the bound reads, without visiting the table.
const newestIndex = `CREATE INDEX IF NOT EXISTS idempotency_ledger_newest
	ON idempotency_ledger (principal, updated_at, operation, key, created_at)`

// The dialects of NewSQLStore.
var (
	SQLite = Dialect{Name: "sqlite", schema: []string{`CREATE TABLE IF NOT EXISTS idempotency_ledger (
	principal TEXT NOT NULL, operation TEXT NOT NULL, key TEXT NOT NULL,
	fingerprint TEXT NOT NULL, state TEXT NOT NULL, token TEXT NOT NULL,
	status INTEGER, header TEXT, body BLOB,
	created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL,
	PRIMARY KEY (principal, operation, key)) WITHOUT ROWID`, newestIndex}}
	Postgres = Dialect{Name: "postgres", numbered: true, schema: []string{`CREATE TABLE IF NOT EXISTS idempotency_ledger (
	principal TEXT NOT NULL, operation TEXT NOT NULL, key TEXT NOT NULL,
	fingerprint TEXT NOT NULL, state TEXT NOT NULL, token TEXT NOT NULL,
	status INTEGER, header TEXT, body BYTEA,
	created_at BIGINT NOT NULL, updated_at BIGINT NOT NULL,
	PRIMARY KEY (principal, operation, key))`, newestIndex}}
)

// SQLStore is a Store over database/sql: SQLite (modernc.org/sqlite, the
// driver "sqlite") or PostgreSQL (pgx's stdlib adapter, the driver "pgx").
// The table is idempotency_ledger.
type SQLStore struct {
	db *sql.DB
	d  Dialect
	q  map[string]string // statement → the dialect's text
}

// SQLiteDSN is the data source name for a SQLite file shared by several
// processes: writers wait for each other instead of failing.
func SQLiteDSN(path string) string {
	return "file:" + path + "?_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)&_pragma=synchronous(NORMAL)"
}

// NewSQLStore creates the table if needed and returns the Store.
func NewSQLStore(ctx context.Context, db *sql.DB, d Dialect) (*SQLStore, error) {
	if len(d.schema) == 0 {
		return nil, errors.New("ledger: unknown SQL dialect")
	}
	for _, q := range d.schema {
		if _, err := db.ExecContext(ctx, q); err != nil {
			return nil, err
		}
	}
	return &SQLStore{db: db, d: d, q: map[string]string{}}, nil
}

// DB is the store's database.
func (s *SQLStore) DB() *sql.DB { return s.db }

// sql rewrites ? placeholders for the dialect.
func (s *SQLStore) sql(q string) string {
	if !s.d.numbered {
		return q
	}
	var b strings.Builder
	n := 0
	for _, c := range q {
		if c == '?' {
			n++
			b.WriteString("$" + strconv.Itoa(n))
			continue
		}
		b.WriteRune(c)
	}
	return b.String()
}

func (s *SQLStore) exec(ctx context.Context, q string, args ...any) (sql.Result, error) {
	return s.db.ExecContext(ctx, s.sql(q), args...)
}

// Claim implements Store.
func (s *SQLStore) Claim(ctx context.Context, r idempotency.Record, cutoff int64) (bool, error) {
	res, err := s.exec(ctx, `INSERT INTO idempotency_ledger
		(principal, operation, key, fingerprint, state, token, status, header, body, created_at, updated_at)
		VALUES (?, ?, ?, ?, 'pending', ?, NULL, NULL, NULL, ?, ?)
		ON CONFLICT (principal, operation, key) DO UPDATE SET
		fingerprint = excluded.fingerprint, state = 'pending', token = excluded.token,
		status = NULL, header = NULL, body = NULL, updated_at = excluded.updated_at,
		created_at = CASE WHEN idempotency_ledger.created_at < ? THEN excluded.created_at ELSE idempotency_ledger.created_at END
		WHERE idempotency_ledger.created_at < ?
		OR (idempotency_ledger.state = 'failed' AND idempotency_ledger.fingerprint = excluded.fingerprint)`,
		r.Principal, r.Operation, r.Key, r.Fingerprint, r.Token, r.CreatedAt, r.UpdatedAt, cutoff, cutoff)
	if err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	return n == 1, err
}

// beyondBound holds for a finished record of principal (the 1st argument)
// at or older than its (max+1)-th newest record created at or after cutoff
// (the 2nd and 3rd: cutoff, max). Get and Prune share it, so a record is
// never replayed that the next write would prune. The subquery is not
// correlated: it is one walk of newestIndex, at most max+1 entries long.
const beyondBound = `(state <> 'pending' AND COALESCE((updated_at, operation, key) <= (
	SELECT updated_at, operation, key FROM idempotency_ledger WHERE principal = ? AND created_at >= ?
	ORDER BY updated_at DESC, operation DESC, key DESC LIMIT 1 OFFSET ?), false))`

// Get implements Store.
func (s *SQLStore) Get(ctx context.Context, id idempotency.ID, cutoff int64, max int) (*idempotency.Record, error) {
	r := idempotency.Record{ID: id}
	var status sql.NullInt64
	var header sql.NullString
	err := s.db.QueryRowContext(ctx, s.sql(`SELECT fingerprint, state, token, status, header, body, created_at, updated_at
		FROM idempotency_ledger WHERE principal = ? AND operation = ? AND key = ? AND created_at >= ?
		AND NOT `+beyondBound),
		id.Principal, id.Operation, id.Key, cutoff, id.Principal, cutoff, max).
		Scan(&r.Fingerprint, &r.State, &r.Token, &status, &header, &r.Body, &r.CreatedAt, &r.UpdatedAt)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	r.Status, r.Header = int(status.Int64), header.String
	return &r, nil
}

// Touch implements Store.
func (s *SQLStore) Touch(ctx context.Context, id idempotency.ID, token string, now int64) error {
	_, err := s.exec(ctx, `UPDATE idempotency_ledger SET updated_at = ?
		WHERE principal = ? AND operation = ? AND key = ? AND token = ? AND state = 'pending'`,
		now, id.Principal, id.Operation, id.Key, token)
	return err
}

// Finish implements Store.
func (s *SQLStore) Finish(ctx context.Context, r idempotency.Record) error {
	_, err := s.exec(ctx, `UPDATE idempotency_ledger SET state = ?, status = ?, header = ?, body = ?, updated_at = ?
		WHERE principal = ? AND operation = ? AND key = ? AND token = ? AND state = 'pending'`,
		r.State, r.Status, r.Header, r.Body, r.UpdatedAt, r.Principal, r.Operation, r.Key, r.Token)
	return err
}

// Release implements Store.
func (s *SQLStore) Release(ctx context.Context, id idempotency.ID, token string) error {
	_, err := s.exec(ctx, `DELETE FROM idempotency_ledger WHERE principal = ? AND operation = ? AND key = ? AND token = ?`,
		id.Principal, id.Operation, id.Key, token)
	return err
}

// Prune implements Store.
func (s *SQLStore) Prune(ctx context.Context, principal string, cutoff int64, max int) error {
	_, err := s.exec(ctx, `DELETE FROM idempotency_ledger WHERE principal = ? AND (created_at < ? OR `+beyondBound+`)`,
		principal, cutoff, principal, cutoff, max)
	return err
}

// Count implements Store.
func (s *SQLStore) Count(ctx context.Context, principal string) (int, error) {
	var n int
	q, args := `SELECT count(*) FROM idempotency_ledger`, []any{}
	if principal != "" {
		q, args = q+` WHERE principal = ?`, []any{principal}
	}
	err := s.db.QueryRowContext(ctx, s.sql(q), args...).Scan(&n)
	return n, err
}
