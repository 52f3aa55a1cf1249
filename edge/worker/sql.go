//go:build js && wasm

package main

import (
	"errors"

	"github.com/hack-pad/safejs"
)

// jsDB is a Durable Object's SQLite database (ctx.storage.sql). Its exec is
// synchronous; the JS side's helper spreads the bindings, turns blobs into
// Uint8Arrays and returns the rows as arrays.
type jsDB struct {
	sql  safejs.Value // the SqlStorage object
	exec safejs.Value // (sql, query, args) => rows
}

func (d jsDB) Exec(query string, args ...any) ([][]any, error) {
	jsArgs := make([]any, len(args))
	for i, a := range args {
		switch v := a.(type) {
		case []byte:
			u, err := bytesToJS(v)
			if err != nil {
				return nil, err
			}
			jsArgs[i] = u
		case int64:
			jsArgs[i] = float64(v)
		case int:
			jsArgs[i] = float64(v)
		case nil, string, float64:
			jsArgs[i] = v
		default:
			return nil, errors.New("sqldb: unsupported argument type")
		}
	}
	rows, err := d.exec.Invoke(d.sql, query, jsArgs)
	if err != nil {
		return nil, err
	}
	n, err := rows.Length()
	if err != nil {
		return nil, err
	}
	out := make([][]any, n)
	for i := range n {
		row, err := rows.Index(i)
		if err != nil {
			return nil, err
		}
		m, err := row.Length()
		if err != nil {
			return nil, err
		}
		out[i] = make([]any, m)
		for j := range m {
			cell, err := row.Index(j)
			if err != nil {
				return nil, err
			}
			switch cell.Type() {
			case safejs.TypeNumber:
				f, _ := cell.Float()
				out[i][j] = f
			case safejs.TypeString:
				out[i][j] = str(cell)
			case safejs.TypeObject:
				out[i][j] = bytesFromJS(cell)
			}
		}
	}
	return out, nil
}
