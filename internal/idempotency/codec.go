package idempotency

import (
	"strconv"
	"strings"
)

// The stored ledger is one line per entry, oldest first:
//
//	<state>\t<createdAt>\t<updatedAt>\t<fingerprint>\t<key>\t<operation>\n
//
// state is p, d or f (pending, done, failed); times are Unix ms in decimal.
// No field can hold a tab or a newline: keys and fingerprints are printable
// ASCII and operations have no control characters (checkEntry), so nothing
// is escaped. A 36-character key with a typical operation makes ~150 bytes.
const stateChars = "?pdf" // indexed by State

func encode(entries []Entry) string {
	b := make([]byte, 0, 160*len(entries))
	for _, e := range entries {
		b = append(b, stateChars[e.State], '\t')
		b = strconv.AppendInt(b, e.CreatedAt, 10)
		b = append(b, '\t')
		b = strconv.AppendInt(b, e.UpdatedAt, 10)
		b = append(b, '\t')
		b = append(b, e.Fingerprint...)
		b = append(b, '\t')
		b = append(b, e.Key...)
		b = append(b, '\t')
		b = append(b, e.Operation...)
		b = append(b, '\n')
	}
	return string(b)
}

// decode reads what encode wrote. Lines it cannot read are dropped, and a
// repeated (operation, key) keeps its last line; dirty reports either, so
// that the caller writes the cleaned ledger back.
func decode(raw string) (entries []Entry, dirty bool) {
	for _, line := range strings.Split(raw, "\n") {
		if line == "" {
			continue
		}
		e, ok := decodeLine(line)
		if !ok {
			dirty = true
			continue
		}
		if i := find(entries, e.Operation, e.Key); i >= 0 {
			entries = remove(entries, i)
			dirty = true
		}
		entries = append(entries, e)
	}
	return entries, dirty
}

func decodeLine(line string) (Entry, bool) {
	f := strings.SplitN(line, "\t", 6)
	if len(f) != 6 || len(f[0]) != 1 {
		return Entry{}, false
	}
	state := State(strings.IndexByte(stateChars, f[0][0]))
	created, err1 := strconv.ParseInt(f[1], 10, 64)
	updated, err2 := strconv.ParseInt(f[2], 10, 64)
	e := Entry{Fingerprint: f[3], Key: f[4], Operation: f[5], State: state, CreatedAt: created, UpdatedAt: updated}
	if state < Pending || state > Failed || err1 != nil || err2 != nil || updated < created ||
		checkEntry(e.Operation, e.Key, e.Fingerprint) != nil {
		return Entry{}, false
	}
	return e, true
}
