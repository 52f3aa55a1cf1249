package idempotency

import (
	"strconv"
	"strings"

	"github.com/gatewaycircuit/gatewaycircuit/policy/text"
)

// The stored ledger is one line per entry, oldest first:
//
//	<state>\t<createdAt>\t<updatedAt>\t<fingerprint>\t<key>\t<operation>\n
//
// state is p, d or f (pending, done, failed); times are Unix ms in decimal.
// A first line "forgot\t<ms>" is Forget's mark: every instance of the tab
// drops the entries that last changed before it.
// No field can hold a tab or a newline: keys and fingerprints are printable
// ASCII and operations have no control characters (checkEntry), so nothing
// is escaped. A 36-character key with a typical operation makes ~150 bytes.
const stateChars = "?pdf" // indexed by State

// forgotPrefix starts the line of Forget's mark.
const forgotPrefix = "forgot\t"

// encode writes entries, after Forget's mark when it is newer than since
// (older marks cannot matter: every entry they would drop has expired).
func encode(entries []Entry, forgotAt, since int64) string {
	b := make([]byte, 0, 160*len(entries)+24)
	if forgotAt > since && forgotAt != 0 {
		b = append(b, forgotPrefix...)
		b = strconv.AppendInt(b, forgotAt, 10)
		b = append(b, '\n')
	}
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

// decode reads what encode wrote, in time linear in len(raw) (a poisoned
// value of 40,000 lines must not freeze the page). Lines it cannot read are
// dropped, and a repeated (operation, key) keeps its last line, in the
// place of its first.
func decode(raw string) (entries []Entry, forgotAt int64) {
	index := map[action]int{}
	for rest := raw; rest != ""; {
		var line string
		line, rest, _ = strings.Cut(rest, "\n")
		if ms, ok := strings.CutPrefix(line, forgotPrefix); ok {
			if t, ok := text.Int(ms); ok {
				forgotAt = max(forgotAt, t)
			}
			continue
		}
		e, ok := decodeLine(line)
		if !ok {
			continue
		}
		if i, seen := index[e.action()]; seen {
			entries[i] = e
			continue
		}
		index[e.action()] = len(entries)
		entries = append(entries, e)
	}
	return entries, forgotAt
}

func decodeLine(line string) (Entry, bool) {
	if line == "" {
		return Entry{}, false
	}
	f := strings.SplitN(line, "\t", 6)
	if len(f) != 6 || len(f[0]) != 1 {
		return Entry{}, false
	}
	state := State(strings.IndexByte(stateChars, f[0][0]))
	created, ok1 := text.Int(f[1])
	updated, ok2 := text.Int(f[2])
	// An older version stored query strings: they are hashed on the way in.
	e := Entry{Fingerprint: f[3], Key: f[4], Operation: redact(f[5]), State: state, CreatedAt: created, UpdatedAt: updated}
	if state < Pending || state > Failed || !ok1 || !ok2 || updated < created ||
		checkEntry(e.Operation, e.Key, e.Fingerprint) != nil {
		return Entry{}, false
	}
	return e, true
}
