//go:build js && wasm

// Package jsbridge is the only package (with wasm/) that touches syscall/js.
// It adapts browser objects to the plain-Go interfaces of the core; nothing
// here is on the per-request path, which crosses the boundary through
// numeric //go:wasmexport functions instead (see wasm/).
package jsbridge

import (
	"strings"
	"syscall/js"

	"github.com/gatewaycircuit/gatewaycircuit/internal/store"
	"github.com/gatewaycircuit/gatewaycircuit/internal/text"
)

// SessionStorage is a store.Store over window.sessionStorage. Storage that
// cannot be reached or that throws (sandboxed iframe, storage disabled, quota)
// turns into errors wrapping store.ErrUnavailable or store.ErrQuota; it never
// panics.
type SessionStorage struct {
	storage js.Value
	err     error // why storage is unusable, or nil
}

// NewSessionStorage looks up sessionStorage on global (globalThis in a page).
//
// The lookup goes through Reflect.get, a Call, because reading
// window.sessionStorage is itself a getter that throws SecurityError in a
// sandboxed iframe (see try).
func NewSessionStorage(global js.Value) *SessionStorage {
	s, err := try(func() js.Value { return global.Get("Reflect").Call("get", global, "sessionStorage") })
	if err != nil {
		return &SessionStorage{err: wrap("lookup", store.ErrUnavailable, err)}
	}
	if s.Type() != js.TypeObject {
		return &SessionStorage{err: wrap("lookup", store.ErrUnavailable, nil)}
	}
	return &SessionStorage{storage: s}
}

// Err reports why the storage is unusable, or nil.
func (s *SessionStorage) Err() error { return s.err }

// Get implements store.Store.
func (s *SessionStorage) Get(key string) (string, bool, error) {
	if s.err != nil {
		return "", false, s.err
	}
	v, err := try(func() js.Value { return s.storage.Call("getItem", key) })
	if err != nil {
		return "", false, wrap("getItem", store.ErrUnavailable, err)
	}
	if v.Type() != js.TypeString {
		return "", false, nil
	}
	return v.String(), true, nil
}

// Set implements store.Store.
func (s *SessionStorage) Set(key, value string) error {
	if s.err != nil {
		return s.err
	}
	if _, err := try(func() js.Value { return s.storage.Call("setItem", key, value) }); err != nil {
		kind := store.ErrUnavailable
		if strings.Contains(text.Lower(err.Error()), "quota") {
			kind = store.ErrQuota
		}
		return wrap("setItem", kind, err)
	}
	return nil
}

// Delete implements store.Store.
func (s *SessionStorage) Delete(key string) error {
	if s.err != nil {
		return s.err
	}
	if _, err := try(func() js.Value { return s.storage.Call("removeItem", key) }); err != nil {
		return wrap("removeItem", store.ErrUnavailable, err)
	}
	return nil
}

// opError is a storage failure: which call, what kind (a store sentinel),
// and the JS exception when there was one.
type opError struct {
	op    string
	kind  error
	cause error
}

func wrap(op string, kind, cause error) error { return &opError{op, kind, cause} }

func (e *opError) Error() string {
	msg := "sessionStorage " + e.op + ": " + e.kind.Error()
	if e.cause != nil {
		msg += ": " + e.cause.Error()
	}
	return msg
}

func (e *opError) Unwrap() []error {
	if e.cause == nil {
		return []error{e.kind}
	}
	return []error{e.kind, e.cause}
}
