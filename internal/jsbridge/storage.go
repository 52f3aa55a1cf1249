//go:build js && wasm

// Package jsbridge adapts what the page gives the wasm to the plain-Go
// interfaces of the core: sessionStorage as a store.Store. It reaches the
// page through the functions of abi.Imports, which the JS glue
// (js/src/gostorage.ts) hands the wasm when it instantiates it, not through
// syscall/js: every value syscall/js hands Go stays in wasm_exec.js's table
// until a Go finalizer releases it, and in a page that only calls exports no
// finalizer runs, so each string Go read or wrote there stayed for good (two
// copies of the idempotency ledger per mutation).
package jsbridge

import (
	"unsafe"

	"github.com/gatewaycircuit/gatewaycircuit/internal/abi"
	"github.com/gatewaycircuit/gatewaycircuit/internal/store"
)

//go:wasmimport gatewaycircuit storage_get
func storageGet(key unsafe.Pointer, keyLen int32, dst unsafe.Pointer, dstCap int32) int32

//go:wasmimport gatewaycircuit storage_set
func storageSet(key unsafe.Pointer, keyLen int32, value unsafe.Pointer, valueLen int32) int32

//go:wasmimport gatewaycircuit storage_remove
func storageRemove(key unsafe.Pointer, keyLen int32) int32

// SessionStorage is a store.Store over the page's sessionStorage. Storage
// that cannot be reached or that throws (sandboxed iframe, storage disabled,
// quota) turns into errors wrapping store.ErrUnavailable or store.ErrQuota;
// it never panics.
type SessionStorage struct {
	buf []byte // where storage_get writes a value; grown to the longest read
}

// NewSessionStorage returns the adapter. The glue decides which storage it
// reaches (the page's sessionStorage, looked up once when the wasm starts).
func NewSessionStorage() *SessionStorage { return &SessionStorage{buf: make([]byte, 1024)} }

// Get implements store.Store.
func (s *SessionStorage) Get(key string) (string, bool, error) {
	for range 2 { // a value longer than buf: once more, into a buffer that fits
		n := storageGet(stringData(key), int32(len(key)), unsafe.Pointer(unsafe.SliceData(s.buf)), int32(len(s.buf)))
		switch {
		case n == abi.StorageMissing:
			return "", false, nil
		case n < 0:
			return "", false, &opError{"getItem", store.ErrUnavailable}
		case int(n) <= len(s.buf):
			return string(s.buf[:n]), true, nil
		}
		s.buf = make([]byte, n)
	}
	return "", false, &opError{"getItem", store.ErrUnavailable} // it changed between two reads: it cannot
}

// Set implements store.Store.
func (s *SessionStorage) Set(key, value string) error {
	switch storageSet(stringData(key), int32(len(key)), stringData(value), int32(len(value))) {
	case 0:
		return nil
	case abi.StorageQuota:
		return &opError{"setItem", store.ErrQuota}
	}
	return &opError{"setItem", store.ErrUnavailable}
}

// Delete implements store.Store.
func (s *SessionStorage) Delete(key string) error {
	if storageRemove(stringData(key), int32(len(key))) != 0 {
		return &opError{"removeItem", store.ErrUnavailable}
	}
	return nil
}

// stringData is s's bytes, in place: the import reads them during the call.
func stringData(s string) unsafe.Pointer { return unsafe.Pointer(unsafe.StringData(s)) }

// opError is a storage failure: which call, and what kind (a store sentinel).
type opError struct {
	op   string
	kind error
}

func (e *opError) Error() string { return "sessionStorage " + e.op + ": " + e.kind.Error() }

func (e *opError) Unwrap() error { return e.kind }
