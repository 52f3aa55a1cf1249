// Package sqldb is the one interface the edge's state goes through: a
// Durable Object's SQLite database (ctx.storage.sql in a Worker), which is
// synchronous. The same SQL runs on the host against an in-memory SQLite
// (sqldb.OpenMemory), so the engines are tested without workerd.
//
// Values crossing the interface are nil, int64, float64, string and []byte;
// a row is the selected columns in order.
package sqldb

import (
	"errors"
	"strconv"
)

// DB runs one statement and returns its rows (none for a write).
type DB interface {
	Exec(query string, args ...any) ([][]any, error)
}

// ErrType is the sentinel for a column of an unexpected type.
var ErrType = errors.New("sqldb: unexpected column type")

// Int reads an integer column (SQLite hands numbers to JS as float64).
func Int(v any) int64 {
	switch n := v.(type) {
	case int64:
		return n
	case float64:
		return int64(n)
	case string:
		i, _ := strconv.ParseInt(n, 10, 64)
		return i
	}
	return 0
}

// String reads a text column; nil is "".
func String(v any) string {
	switch s := v.(type) {
	case string:
		return s
	case []byte:
		return string(s)
	}
	return ""
}

// Bytes reads a blob column; nil is nil.
func Bytes(v any) []byte {
	switch b := v.(type) {
	case []byte:
		return b
	case string:
		return []byte(b)
	}
	return nil
}

// MustExec runs statements that cannot fail on a healthy database (schema
// creation); it returns the first error.
func MustExec(db DB, queries ...string) error {
	for _, q := range queries {
		if _, err := db.Exec(q); err != nil {
			return err
		}
	}
	return nil
}
