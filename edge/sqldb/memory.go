//go:build !(js && wasm)

package sqldb

import (
	"database/sql"
	"strconv"
	"sync/atomic"

	_ "modernc.org/sqlite" // the host's SQLite, for tests of the engines
)

// Memory is a DB over a private in-memory SQLite database, for host tests.
type Memory struct{ db *sql.DB }

var memorySeq atomic.Int64

// OpenMemory opens a fresh in-memory database.
func OpenMemory() (*Memory, error) {
	name := "file:edge" + strconv.FormatInt(memorySeq.Add(1), 10) + "?mode=memory&cache=shared"
	db, err := sql.Open("sqlite", name)
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(1) // one connection: the database lives as long as it does
	return &Memory{db: db}, nil
}

// Close closes the database.
func (m *Memory) Close() error { return m.db.Close() }

// Exec implements DB.
func (m *Memory) Exec(query string, args ...any) ([][]any, error) {
	rows, err := m.db.Query(query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return nil, err
	}
	var out [][]any
	for rows.Next() {
		row := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range row {
			ptrs[i] = &row[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			return nil, err
		}
		out = append(out, row)
	}
	return out, rows.Err()
}
