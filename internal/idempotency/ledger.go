package idempotency

import (
	"errors"
	"strconv"

	"github.com/gatewaycircuit/gatewaycircuit/internal/store"
)

// ErrKeyReused is the sentinel for a key sent again with another body: the
// draft's 422, answered locally without a request.
var ErrKeyReused = errors.New("idempotency: key reused with a different body")

// KeyReusedError names the action. It unwraps to ErrKeyReused.
type KeyReusedError struct{ Operation, Key string }

func (e *KeyReusedError) Error() string {
	return "idempotency: key " + sfString(e.Key) + " of " + e.Operation + " was used with a different body"
}

// Unwrap makes errors.Is(err, ErrKeyReused) true.
func (e *KeyReusedError) Unwrap() error { return ErrKeyReused }

// ErrLedgerFull is the sentinel for a new key that does not fit: every entry
// is an action whose key must not be forgotten yet.
var ErrLedgerFull = errors.New("idempotency: ledger full")

// FullError says how large the ledger is. It unwraps to ErrLedgerFull.
type FullError struct{ MaxEntries int }

func (e *FullError) Error() string {
	return "idempotency: ledger full: " + strconv.Itoa(e.MaxEntries) + " actions are pending, failed or just done"
}

// Unwrap makes errors.Is(err, ErrLedgerFull) true.
func (e *FullError) Unwrap() error { return ErrLedgerFull }

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
	// Pending: a request of this page is in flight; identical submissions join it.
	Pending State = iota + 1
	// Done: the server answered for good (2xx, 3xx, or a 4xx other than
	// 408, 409 and 429). A retry still sends the key: the gateway replays.
	Done
	// Failed: no answer, or one that says "not yet" (408, 409, 429, 5xx).
	// Its effect may have happened, so a retry reuses the key. An entry
	// that was pending when the page went away is restored as Failed.
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
	Operation   string // what the action does, e.g. "POST https://app.example/api/orders"
	Key         string
	Fingerprint string // of the body, see Fingerprint
	State       State
	CreatedAt   int64 // when the key was registered
	UpdatedAt   int64 // when State last changed
}

// Decision is what Begin tells the caller to do.
type Decision int

const (
	// Start: a new action is registered as pending; send the request.
	Start Decision = iota + 1
	// Retry: the action was failed or done; it is pending again; send the
	// request with the same key.
	Retry
	// Join: the same action is in flight; send nothing and share its result.
	Join
)

func (d Decision) String() string { return enumName("Decision", int(d), "start", "retry", "join") }

// Ledger records the actions of one tab. It is not safe for concurrent use:
// the wasm build calls it from one thread, and host callers must serialise.
// "Concurrent" submissions are those that Begin while another is Pending.
type Ledger struct {
	policy  Policy
	store   store.Store
	entries []Entry // oldest first; only set changes it
	lastErr error   // last storage failure; storage failing never fails a call
}

// New returns an empty Ledger for p (defaulted, then validated). Call Load
// to restore what a previous page of the tab recorded.
func New(p Policy, s store.Store) (*Ledger, error) {
	p = p.WithDefaults()
	if err := p.Validate(); err != nil {
		return nil, err
	}
	return &Ledger{policy: p, store: s}, nil
}

// Policy returns the defaulted policy in force.
func (l *Ledger) Policy() Policy { return l.policy }

// Fingerprint fingerprints body within the policy's limits.
func (l *Ledger) Fingerprint(body []byte) (string, error) {
	return Fingerprint(body, l.policy.Limits)
}

// Load restores the stored ledger at nowMs, as a page does when it starts.
// Entries that were pending belong to a page that is gone: they become
// Failed. Expired and unreadable lines are dropped, and so are the oldest
// lines past MaxEntries (only possible if MaxEntries shrank).
func (l *Ledger) Load(nowMs int64) {
	raw, ok, err := l.store.Get(StorageKey)
	if err != nil {
		l.lastErr = err
		ok = false // unreadable storage: start empty, keep working
	}
	var entries []Entry
	dirty := false
	if ok {
		entries, dirty = decode(raw)
	}
	for i := range entries {
		if entries[i].State == Pending {
			entries[i].State = Failed
			dirty = true
		}
	}
	if n := len(entries) - l.policy.MaxEntries; n > 0 {
		entries, dirty = entries[n:], true
	}
	kept := l.unexpired(entries, nowMs)
	l.entries = kept
	if dirty || len(kept) != len(entries) {
		l.persist()
	}
}

// Begin registers an attempt of (operation, key) with the body's
// fingerprint, before its request starts:
//   - a new key is recorded Pending and the answer is Start, unless the
//     ledger is full (*FullError);
//   - a recorded key with another fingerprint is refused (*KeyReusedError);
//   - a Pending key answers Join;
//   - a Failed or Done key becomes Pending again and answers Retry.
func (l *Ledger) Begin(nowMs int64, operation, key, fingerprint string) (Decision, error) {
	if err := checkEntry(operation, key, fingerprint); err != nil {
		return 0, err
	}
	entries := l.unexpired(l.entries, nowMs)
	i := find(entries, operation, key)
	if i >= 0 {
		e := entries[i]
		switch {
		case e.Fingerprint != fingerprint:
			l.set(entries)
			return 0, &KeyReusedError{Operation: operation, Key: key}
		case e.State == Pending:
			l.set(entries)
			return Join, nil
		}
		e.State, e.UpdatedAt = Pending, nowMs
		l.set(replace(entries, i, e))
		return Retry, nil
	}
	if len(entries) >= l.policy.MaxEntries {
		evict := l.evictable(entries, nowMs)
		if evict < 0 {
			l.set(entries)
			return 0, &FullError{MaxEntries: l.policy.MaxEntries}
		}
		entries = remove(entries, evict)
	}
	l.set(append(entries, Entry{
		Operation: operation, Key: key, Fingerprint: fingerprint,
		State: Pending, CreatedAt: nowMs, UpdatedAt: nowMs,
	}))
	return Start, nil
}

// Finish records the answer to the attempt of (operation, key): status 0
// when there was none. It returns the new state (see Outcome), or 0 when
// the entry is unknown or not pending.
func (l *Ledger) Finish(nowMs int64, operation, key string, status int) State {
	entries := l.unexpired(l.entries, nowMs)
	i := find(entries, operation, key)
	if i < 0 || entries[i].State != Pending {
		l.set(entries)
		return 0
	}
	e := entries[i]
	e.State, e.UpdatedAt = Outcome(status), nowMs
	l.set(replace(entries, i, e))
	return e.State
}

// Derive returns the key of the action that a submission of (operation,
// fingerprint) belongs to: the newest recorded action with the same
// operation and fingerprint that is Pending or Failed (a retry, whatever its
// age), or Done within DeriveWindowMs of its last change (a double click).
// Otherwise it is a new action, with a key made from random (NewKey).
// Derive records nothing: call Begin with the key, in the same turn.
func (l *Ledger) Derive(nowMs int64, operation, fingerprint string, random [16]byte) string {
	for i := len(l.entries) - 1; i >= 0; i-- {
		e := l.entries[i]
		if e.Operation != operation || e.Fingerprint != fingerprint || l.expired(e, nowMs) {
			continue
		}
		if e.State != Done || nowMs < e.UpdatedAt+l.policy.DeriveWindowMs {
			return e.Key
		}
	}
	return NewKey(random)
}

// Lookup returns the entry of (operation, key), if it is recorded.
func (l *Ledger) Lookup(operation, key string) (Entry, bool) {
	if i := find(l.entries, operation, key); i >= 0 {
		return l.entries[i], true
	}
	return Entry{}, false
}

// Entries returns a copy of the recorded entries, oldest first.
func (l *Ledger) Entries() []Entry { return append([]Entry(nil), l.entries...) }

// LastStorageError is the last failure of the store, or nil. It is
// diagnostics only: a failing store leaves the ledger working in memory.
func (l *Ledger) LastStorageError() error { return l.lastErr }

func (l *Ledger) expired(e Entry, nowMs int64) bool {
	if e.State == Done {
		return nowMs >= e.UpdatedAt+l.policy.DoneRetentionMs
	}
	return nowMs >= e.CreatedAt+l.policy.KeyRetentionMs
}

// unexpired returns the entries still kept at nowMs, sharing the backing
// array only when nothing expired.
func (l *Ledger) unexpired(entries []Entry, nowMs int64) []Entry {
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

// evictable is the oldest Done entry past its derive window, or -1. Such an
// entry only guards against its key being reused with another body, which
// is worth less than letting the user act.
func (l *Ledger) evictable(entries []Entry, nowMs int64) int {
	for i, e := range entries {
		if e.State == Done && nowMs >= e.UpdatedAt+l.policy.DeriveWindowMs {
			return i
		}
	}
	return -1
}

// set is the one place the entries change; it persists them when they did.
func (l *Ledger) set(entries []Entry) {
	if equal(entries, l.entries) {
		return
	}
	l.entries = entries
	l.persist()
}

func (l *Ledger) persist() {
	var err error
	if len(l.entries) == 0 {
		err = l.store.Delete(StorageKey)
	} else {
		err = l.store.Set(StorageKey, encode(l.entries))
	}
	if err != nil {
		l.lastErr = err
	}
}

func equal(a, b []Entry) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func find(entries []Entry, operation, key string) int {
	for i, e := range entries {
		if e.Operation == operation && e.Key == key {
			return i
		}
	}
	return -1
}

// replace and remove copy: l.entries must not change behind set's back.
func replace(entries []Entry, i int, e Entry) []Entry {
	out := append([]Entry(nil), entries...)
	out[i] = e
	return out
}

func remove(entries []Entry, i int) []Entry {
	out := append([]Entry(nil), entries[:i]...)
	return append(out, entries[i+1:]...)
}

func checkEntry(operation, key, fingerprint string) error {
	if err := checkOperation(operation); err != nil {
		return err
	}
	if err := CheckKey(key); err != nil {
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
