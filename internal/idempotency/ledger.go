// Package idempotency is the tab's own ledger: it makes one user action
// have at most one effect on the server, across double clicks, retries,
// timeouts and reloads.
//
// Every unsafe request in scope carries an Idempotency-Key header; one
// action keeps one key across its retries. The Ledger remembers, per
// (operation, key), the body's fingerprint and whether the attempt is
// pending, done or failed, and persists that through a store.Store
// (sessionStorage in the browser) so that a retry after F5 is still the same
// action. The key's syntax, the canonical body and the fingerprint are the
// public package idempotency's, the same the server ledgers use.
//
// Like package circuit, this package is built into the wasm: it reads no
// clock (times are Unix milliseconds passed in), draws no random numbers
// (the caller passes bytes from crypto.getRandomValues: crypto/rand would add
// ~100 KB brotli), and uses neither fmt, time nor encoding/json.
package idempotency

import (
	"errors"
	"strconv"

	idem "github.com/gatewaycircuit/gatewaycircuit/idempotency"
	"github.com/gatewaycircuit/gatewaycircuit/internal/store"
)

// ErrKeyReused is the sentinel for a key sent again with another body: the
// draft's 422, answered locally without a request.
var ErrKeyReused = errors.New("idempotency: key reused with a different body")

// KeyReusedError names the action. It unwraps to ErrKeyReused.
type KeyReusedError struct{ Operation, Key string }

func (e *KeyReusedError) Error() string {
	key, _ := idem.HeaderValue(e.Key)
	return "idempotency: key " + key + " of " + e.Operation + " was used with a different body"
}

// Unwrap makes errors.Is(err, ErrKeyReused) true.
func (e *KeyReusedError) Unwrap() error { return ErrKeyReused }

// ErrLedgerFull is never returned: a full ledger evicts (Ledger.Evicted).
//
// Deprecated: kept so that callers matching it still compile.
var ErrLedgerFull = errors.New("idempotency: ledger full")

// ErrInvalidEntry is the sentinel for an operation or fingerprint that
// cannot be recorded.
var ErrInvalidEntry = errors.New("idempotency: invalid entry")

// EntryError names the bad field. It unwraps to ErrInvalidEntry.
type EntryError struct{ Field, Reason string }

func (e *EntryError) Error() string {
	return "idempotency: invalid entry: " + e.Field + ": " + e.Reason
}

// Unwrap makes errors.Is(err, ErrInvalidEntry) true.
func (e *EntryError) Unwrap() error { return ErrInvalidEntry }

// MaxOperationLen bounds an operation name, in bytes.
const MaxOperationLen = 2048

// StorageKey is the sessionStorage key the ledger lives under.
const StorageKey = "gateway_idempotency_v1"

// State is where one action stands.
type State uint8

const (
	// Pending: a request is in flight; identical submissions of the same
	// page join it. An entry stored as pending by another instance of the
	// tab (an iframe) or by a page that is gone is not joined: its key is
	// reused, as for Failed.
	Pending State = iota + 1
	// Done: the server answered for good (2xx, 3xx, or a 4xx other than
	// 408, 409 and 429). The action is over: a new submission of the same
	// body is a new action with a new key. The entry only refuses its key
	// with another body.
	Done
	// Failed: no definitive answer (none at all, 408, 409, 429, 5xx). Its
	// effect may have happened, so a retry reuses the key.
	Failed
)

func (s State) String() string { return enumName("State", int(s), "pending", "done", "failed") }

// enumName names the value v of an enum that starts at 1.
func enumName(typ string, v int, names ...string) string {
	if v >= 1 && v <= len(names) {
		return names[v-1]
	}
	return typ + "(" + strconv.Itoa(v) + ")"
}

// Outcome maps the status of an answer (0 for none: network error, timeout,
// abort) to the state the action ends in.
func Outcome(status int) State {
	switch {
	case status <= 0, status >= 500, status == 408, status == 409, status == 429:
		return Failed
	}
	return Done
}

// Entry is one recorded action. Times are Unix milliseconds.
type Entry struct {
	Operation   string // what the action does (see Operation), e.g. "POST https://app.example/api/orders"
	Key         string
	Fingerprint string // of the body, see Fingerprint
	State       State
	CreatedAt   int64 // when the key was registered
	UpdatedAt   int64 // when State last changed
}

// action identifies an entry.
type action struct{ operation, key string }

func (e *Entry) action() action { return action{e.Operation, e.Key} }

// Decision is what Begin tells the caller to do.
type Decision int

const (
	// Start: a new action is registered as pending; send the request.
	Start Decision = iota + 1
	// Retry: the action had no definitive answer (or the caller gave its
	// own key again); it is pending again; send the request with the same key.
	Retry
	// Join: the same action is in flight from this page; send nothing and
	// share its result.
	Join
)

func (d Decision) String() string { return enumName("Decision", int(d), "start", "retry", "join") }

// Ledger records the actions of one tab. It is not safe for concurrent use:
// the wasm build calls it from one thread, and host callers must serialise.
// Several Ledgers over one store (instances of the module in one tab) merge
// what they write: each re-reads the store before writing.
type Ledger struct {
	policy   Policy
	store    store.Store
	entries  []Entry         // oldest first; only set changes it
	mine     map[action]bool // pending entries this Ledger began
	forgotAt int64           // Forget's time: entries last changed before it are gone, in every instance
	lastRaw  string          // what this Ledger last read or wrote: unchanged means nothing to merge
	evicted  uint64
	lastErr  error // last storage failure; storage failing never fails a call
}

// New returns an empty Ledger for p (defaulted, then validated). Call Load
// to restore what a previous page of the tab recorded.
func New(p Policy, s store.Store) (*Ledger, error) {
	p = p.WithDefaults()
	if err := p.Validate(); err != nil {
		return nil, err
	}
	return &Ledger{policy: p, store: s, mine: map[action]bool{}}, nil
}

// Policy returns the defaulted policy in force.
func (l *Ledger) Policy() Policy { return l.policy }

// Fingerprint fingerprints body within the policy's limits.
func (l *Ledger) Fingerprint(body []byte) (string, error) {
	return idem.Fingerprint(body, l.policy.Limits)
}

// Load restores the stored ledger at nowMs, as a page does when it starts.
// Unreadable and expired lines are dropped, and the oldest settled entries
// past MaxEntries are evicted; the cleaned ledger is written back when it
// changed. Decoding is linear in the stored size.
func (l *Ledger) Load(nowMs int64) {
	l.entries, l.mine, l.lastRaw = nil, map[action]bool{}, ""
	l.set(nowMs, l.current(nowMs))
}

// Begin registers an attempt of (operation, key) with the body's
// fingerprint, before its request starts:
//   - a new key is recorded Pending and the answer is Start; a full ledger
//     makes room (Evicted), it never refuses;
//   - a recorded key with another fingerprint is refused (*KeyReusedError);
//   - a key this page has in flight answers Join;
//   - any other recorded key becomes Pending again and answers Retry.
//
// The operation's query string is stored hashed (see Operation).
func (l *Ledger) Begin(nowMs int64, operation, key, fingerprint string) (Decision, error) {
	operation = redact(operation)
	if err := checkEntry(operation, key, fingerprint); err != nil {
		return 0, err
	}
	a := action{operation, key}
	entries := l.current(nowMs)
	i := find(entries, a)
	if i >= 0 {
		e := entries[i]
		switch {
		case e.Fingerprint != fingerprint:
			l.set(nowMs, entries)
			return 0, &KeyReusedError{Operation: operation, Key: key}
		case e.State == Pending && l.mine[a]:
			l.set(nowMs, entries)
			return Join, nil
		}
		e.State, e.UpdatedAt = Pending, nowMs
		l.mine[a] = true
		l.set(nowMs, replace(entries, i, e))
		return Retry, nil
	}
	l.mine[a] = true
	l.set(nowMs, append(entries[:len(entries):len(entries)], Entry{
		Operation: operation, Key: key, Fingerprint: fingerprint,
		State: Pending, CreatedAt: nowMs, UpdatedAt: nowMs,
	}))
	return Start, nil
}

// Finish records the answer to the attempt of (operation, key): status 0
// when there was none. It returns the new state (see Outcome), or 0 when
// the entry is unknown (forgotten, evicted) or not pending.
func (l *Ledger) Finish(nowMs int64, operation, key string, status int) State {
	a := action{redact(operation), key}
	delete(l.mine, a)
	entries := l.current(nowMs)
	i := find(entries, a)
	if i < 0 || entries[i].State != Pending {
		l.set(nowMs, entries)
		return 0
	}
	e := entries[i]
	e.State, e.UpdatedAt = Outcome(status), nowMs
	l.set(nowMs, replace(entries, i, e))
	return e.State
}

// Derive returns the key of the action that a submission of (operation,
// fingerprint) belongs to: the newest recorded action with the same
// operation and fingerprint that has no definitive answer yet (Pending or
// Failed: a double click while it is in flight, a retry after a failure or
// after F5). A Done action is over: the same body again is a new action,
// with a key made from random (NewKey). Derive records nothing: call Begin
// with the key, in the same turn.
func (l *Ledger) Derive(nowMs int64, operation, fingerprint string, random [16]byte) string {
	operation = redact(operation)
	entries := l.current(nowMs)
	for i := len(entries) - 1; i >= 0; i-- {
		if e := entries[i]; e.Operation == operation && e.Fingerprint == fingerprint && e.State != Done {
			return e.Key
		}
	}
	return idem.NewKey(random)
}

// Forget drops every recorded action, pending keys included, in this
// Ledger and in storage, and tells the other instances of the tab to drop
// what they hold from before now (they read it when they next write): the
// user logged out, and the next user must not reuse a key of theirs. It
// returns how many entries were dropped. Answers to requests still in
// flight are then ignored (Finish returns 0).
func (l *Ledger) Forget(nowMs int64) int {
	n := len(l.current(nowMs))
	l.forgotAt = max(l.forgotAt, nowMs)
	l.mine = map[action]bool{}
	l.set(nowMs, nil)
	return n
}

// Lookup returns the entry of (operation, key), if it is recorded.
func (l *Ledger) Lookup(operation, key string) (Entry, bool) {
	if i := find(l.entries, action{redact(operation), key}); i >= 0 {
		return l.entries[i], true
	}
	return Entry{}, false
}

// Entries returns a copy of the recorded entries, oldest first.
func (l *Ledger) Entries() []Entry { return append([]Entry(nil), l.entries...) }

// Evicted counts entries dropped to keep the ledger within MaxEntries.
func (l *Ledger) Evicted() uint64 { return l.evicted }

// LastStorageError is the last failure of the store, or nil. It is
// diagnostics only: a failing store leaves the ledger working in memory.
func (l *Ledger) LastStorageError() error { return l.lastErr }

func (l *Ledger) expired(e Entry, nowMs int64) bool {
	if e.UpdatedAt <= l.forgotAt {
		return true
	}
	if e.State == Done {
		return nowMs >= e.UpdatedAt+l.policy.DoneRetentionMs
	}
	return nowMs >= e.CreatedAt+l.policy.KeyRetentionMs
}

// current returns the entries kept at nowMs: this Ledger's, merged with
// what another instance of the tab stored since this one last read or
// wrote (see merge), without those that expired. It never shares l.entries'
// backing array when something changed.
func (l *Ledger) current(nowMs int64) []Entry {
	entries := l.entries
	raw, ok, err := l.store.Get(StorageKey)
	if err != nil {
		l.lastErr = err
		raw, ok = l.lastRaw, true // unreadable: nothing to merge, keep working in memory
	}
	if !ok {
		raw = ""
	}
	if raw != l.lastRaw {
		stored, forgotAt := decode(raw)
		l.forgotAt = max(l.forgotAt, forgotAt)
		entries = merge(entries, stored)
		l.entries, l.lastRaw = entries, raw // merged: what the store held is in memory now
	}
	for i, e := range entries {
		if l.expired(e, nowMs) {
			kept := append([]Entry(nil), entries[:i]...)
			for _, e := range entries[i+1:] {
				if !l.expired(e, nowMs) {
					kept = append(kept, e)
				}
			}
			return kept
		}
	}
	return entries
}

// set is the one place the entries change: entries (from current, changed
// or not) are bounded to MaxEntries and written back when they differ from
// what the store held.
func (l *Ledger) set(nowMs int64, entries []Entry) {
	entries = l.bound(entries)
	for a := range l.mine {
		if i := find(entries, a); i < 0 || entries[i].State != Pending {
			delete(l.mine, a) // forgotten, evicted or settled by another instance
		}
	}
	l.entries = entries
	enc := encode(entries, l.forgotAt, nowMs-l.policy.KeyRetentionMs)
	if enc == l.lastRaw {
		return
	}
	var err error
	if enc == "" {
		err = l.store.Delete(StorageKey)
	} else {
		err = l.store.Set(StorageKey, enc)
	}
	if err != nil {
		l.lastErr = err
		return
	}
	l.lastRaw = enc
}

// merge adds to mine the entries of stored it does not have, and takes the
// stored one where both have an action and the stored one changed later.
// The result is ordered by creation, as entries are. An entry mine has and
// stored lacks stays: it is new here, or another instance dropped it, and
// then expiry, Forget's mark and the bound drop it here too.
func merge(mine, stored []Entry) []Entry {
	if len(stored) == 0 {
		return mine
	}
	kept := append([]Entry(nil), mine...)
	index := make(map[action]int, len(kept))
	for i := range kept {
		index[kept[i].action()] = i
	}
	var added []Entry
	for _, e := range stored {
		if i, ok := index[e.action()]; !ok {
			added = append(added, e)
		} else if e.UpdatedAt > kept[i].UpdatedAt {
			kept[i] = e
		}
	}
	// Both lists are in creation order (a poisoned value may not be: then
	// the order is only less exact): one linear merge step, no sort.
	out := make([]Entry, 0, len(kept)+len(added))
	for len(kept) > 0 && len(added) > 0 {
		if added[0].CreatedAt < kept[0].CreatedAt {
			out, added = append(out, added[0]), added[1:]
		} else {
			out, kept = append(out, kept[0]), kept[1:]
		}
	}
	return append(append(out, kept...), added...)
}

// bound evicts entries past MaxEntries, in this order: the oldest Done
// (settled: it only refuses its key with another body), then the oldest
// unresolved one not in flight here (a retry would get a new key), then the
// oldest in flight here (its answer is then ignored). It never refuses.
func (l *Ledger) bound(entries []Entry) []Entry {
	excess := len(entries) - l.policy.MaxEntries
	if excess <= 0 {
		return entries
	}
	l.evicted += uint64(excess)
	drop := make([]bool, len(entries))
	for rank := 0; rank < 3 && excess > 0; rank++ {
		for i := range entries {
			if excess > 0 && !drop[i] && l.evictionRank(entries[i]) == rank {
				drop[i], excess = true, excess-1
			}
		}
	}
	kept := entries[:0:0]
	for i, e := range entries {
		if !drop[i] {
			kept = append(kept, e)
		}
	}
	return kept
}

func (l *Ledger) evictionRank(e Entry) int {
	switch {
	case e.State == Done:
		return 0
	case e.State == Pending && l.mine[e.action()]:
		return 2
	}
	return 1
}

func find(entries []Entry, a action) int {
	for i := range entries {
		if entries[i].Operation == a.operation && entries[i].Key == a.key {
			return i
		}
	}
	return -1
}

// replace copies: l.entries must not change behind set's back.
func replace(entries []Entry, i int, e Entry) []Entry {
	out := append([]Entry(nil), entries...)
	out[i] = e
	return out
}

func checkEntry(operation, key, fingerprint string) error {
	if err := checkOperation(operation); err != nil {
		return err
	}
	if err := idem.CheckKey(key); err != nil {
		return err
	}
	if fingerprint == "" || len(fingerprint) > 128 || !printableASCII(fingerprint) {
		return &EntryError{"fingerprint", "must be 1-128 printable ASCII characters (see Fingerprint)"}
	}
	return nil
}

func checkOperation(operation string) error {
	if operation == "" || len(operation) > MaxOperationLen {
		return &EntryError{"operation", "must be 1-" + strconv.Itoa(MaxOperationLen) + " bytes"}
	}
	for i := 0; i < len(operation); i++ {
		if c := operation[i]; c < 0x20 || c == 0x7f {
			return &EntryError{"operation", "contains a control character"}
		}
	}
	return nil
}

func printableASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] > 0x7e {
			return false
		}
	}
	return true
}
