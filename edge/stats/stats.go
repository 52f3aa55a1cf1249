// Package stats keeps an edge object's counters in its own SQLite table, so
// that they survive a restart. Every Add is written through at once: in a
// Durable Object a write is a synchronous local SQLite statement, and the
// answer that follows waits for it to be durable anyway.
package stats

import (
	"sync"

	"github.com/gatewaycircuit/gatewaycircuit/edge/sqldb"
)

const schema = `CREATE TABLE IF NOT EXISTS edge_metrics (name TEXT PRIMARY KEY, n INTEGER NOT NULL)`

// Set is one object's counters.
type Set struct {
	db sqldb.DB
	mu sync.Mutex       // guards n
	n  map[string]int64 // the counts, as stored
}

// Open loads the counters kept in db.
func Open(db sqldb.DB) (*Set, error) {
	if err := sqldb.MustExec(db, schema); err != nil {
		return nil, err
	}
	rows, err := db.Exec(`SELECT name, n FROM edge_metrics`)
	if err != nil {
		return nil, err
	}
	s := &Set{db: db, n: map[string]int64{}}
	for _, r := range rows {
		s.n[sqldb.String(r[0])] = sqldb.Int(r[1])
	}
	return s, nil
}

// Add adds n to the counter called name. A failed write keeps the count in
// memory; the next successful one carries it.
func (s *Set) Add(name string, n int64) {
	s.mu.Lock()
	s.n[name] += n
	v := s.n[name]
	s.mu.Unlock()
	_, _ = s.db.Exec(`INSERT INTO edge_metrics (name, n) VALUES (?, ?) ON CONFLICT(name) DO UPDATE SET n = excluded.n`, name, v)
}

// Get returns the counter called name.
func (s *Set) Get(name string) int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.n[name]
}

// Snapshot returns a copy of every counter, for the admin endpoint.
func (s *Set) Snapshot() map[string]int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make(map[string]int64, len(s.n))
	for k, v := range s.n {
		out[k] = v
	}
	return out
}
