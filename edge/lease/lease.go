// Package lease is a lock for background jobs, kept in SQLite: a lease has
// an owner and an expiry; it is taken only when free or expired, renewed
// only by its owner while it holds, and released only by its owner. A job
// that dies without releasing stops blocking others when its lease expires.
// Each call is one SQL statement, so two triggers racing for a lease are
// decided by the database (a Durable Object runs them one after the other).
package lease

import "github.com/gatewaycircuit/gatewaycircuit/edge/sqldb"

const schema = `CREATE TABLE IF NOT EXISTS leases (name TEXT PRIMARY KEY, owner TEXT NOT NULL, expires_at INTEGER NOT NULL)`

// Table is the leases kept in one database.
type Table struct{ db sqldb.DB }

// Open returns the leases kept in db.
func Open(db sqldb.DB) (*Table, error) {
	if err := sqldb.MustExec(db, schema); err != nil {
		return nil, err
	}
	return &Table{db: db}, nil
}

// Take gives the lease called name to owner until nowMs+ttlMs, if it is free
// or expired (or already owner's). It reports whether owner holds it now.
func (t *Table) Take(name, owner string, nowMs, ttlMs int64) (bool, error) {
	rows, err := t.db.Exec(`INSERT INTO leases (name, owner, expires_at) VALUES (?, ?, ?)
		ON CONFLICT(name) DO UPDATE SET owner = excluded.owner, expires_at = excluded.expires_at
		WHERE leases.expires_at <= ? OR leases.owner = excluded.owner
		RETURNING owner`, name, owner, nowMs+ttlMs, nowMs)
	return err == nil && len(rows) == 1 && sqldb.String(rows[0][0]) == owner, err
}

// Renew extends owner's lease to nowMs+ttlMs. It reports false when owner
// no longer holds it (it expired and someone else took it, or it was
// released).
func (t *Table) Renew(name, owner string, nowMs, ttlMs int64) (bool, error) {
	rows, err := t.db.Exec(`UPDATE leases SET expires_at = ? WHERE name = ? AND owner = ? AND expires_at > ? RETURNING owner`,
		nowMs+ttlMs, name, owner, nowMs)
	return err == nil && len(rows) == 1, err
}

// Release frees owner's lease; it reports false when owner did not hold it.
func (t *Table) Release(name, owner string) (bool, error) {
	rows, err := t.db.Exec(`DELETE FROM leases WHERE name = ? AND owner = ? RETURNING owner`, name, owner)
	return err == nil && len(rows) == 1, err
}

// Holder returns the lease's owner and expiry, if it is held at nowMs.
func (t *Table) Holder(name string, nowMs int64) (owner string, expiresAt int64, held bool) {
	rows, err := t.db.Exec(`SELECT owner, expires_at FROM leases WHERE name = ? AND expires_at > ?`, name, nowMs)
	if err != nil || len(rows) != 1 {
		return "", 0, false
	}
	return sqldb.String(rows[0][0]), sqldb.Int(rows[0][1]), true
}
