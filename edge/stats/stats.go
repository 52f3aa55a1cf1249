// Package stats keeps an edge object's counters in its own SQLite table, so
// that they survive a restart. Counting is in memory; the counts are written
// when the object writes its own state anyway (Flush, by the engines) and
// otherwise at most every FlushEveryMs, so that a cache hit, which writes
// nothing else, does not pay for a durable write on every request. A crash
// loses at most the last FlushEveryMs of hits.
package stats

import (
	"sync"

	"github.com/gatewaycircuit/gatewaycircuit/edge/sqldb"
)

// DefaultFlushEveryMs is how stale the stored counts may get.
const DefaultFlushEveryMs = 1_000

const schema = `CREATE TABLE IF NOT EXISTS edge_metrics (name TEXT PRIMARY KEY, n INTEGER NOT NULL)`

// Set is one object's counters.
type Set struct {
	db  sqldb.DB
	now func() int64

	mu        sync.Mutex
	n         map[string]int64 // the counts
	dirty     map[string]bool  // counts changed since the last flush
	flushedAt int64            // when the last flush ran
}

// Open loads the counters kept in db; now is the owner's clock.
func Open(db sqldb.DB, now func() int64) (*Set, error) {
	if err := sqldb.MustExec(db, schema); err != nil {
		return nil, err
	}
	rows, err := db.Exec(`SELECT name, n FROM edge_metrics`)
	if err != nil {
		return nil, err
	}
	s := &Set{db: db, now: now, n: map[string]int64{}, dirty: map[string]bool{}, flushedAt: now()}
	for _, r := range rows {
		s.n[sqldb.String(r[0])] = sqldb.Int(r[1])
	}
	return s, nil
}

// Add adds n to the counter called name; the counts are written if the last
// write is FlushEveryMs old.
func (s *Set) Add(name string, n int64) {
	s.mu.Lock()
	s.n[name] += n
	s.dirty[name] = true
	due := s.now()-s.flushedAt >= DefaultFlushEveryMs
	s.mu.Unlock()
	if due {
		s.Flush()
	}
}

// Flush writes the counts changed since the last write. A failed write
// keeps them dirty for the next one.
func (s *Set) Flush() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.flushedAt = s.now()
	for name := range s.dirty {
		if _, err := s.db.Exec(`INSERT INTO edge_metrics (name, n) VALUES (?, ?) ON CONFLICT(name) DO UPDATE SET n = excluded.n`, name, s.n[name]); err == nil {
			delete(s.dirty, name)
		}
	}
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
