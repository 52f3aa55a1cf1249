// Package idempotencykey is the server's half of the browser module's
// idempotency keys: how the Idempotency-Key header is read, and the
// canonical form of a request body that a key is bound to.
//
// The browser module sends one key per user action, derived from the method,
// the URL and the canonical body (a double click, a retry and a retry after F5
// reuse it). A server that enforces keys compares bodies in the same canonical
// form, so a client that re-serialises its JSON with another key order or
// other whitespace is still sending the same body, and only a real change of
// body is answered 422.
//
// It is the same code the wasm runs (internal/idempotency), exposed on its own
// so a server imports only this: no storage, no ledger, no syscall/js.
package idempotencykey

import "github.com/gatewaycircuit/gatewaycircuit/internal/idempotency"

// Header is the request header that carries the key.
const Header = idempotency.Header

// MaxKeyLen bounds a key, in characters (a UUID is 36).
const MaxKeyLen = idempotency.MaxKeyLen

// ErrInvalidKey is the sentinel for a header value that holds no usable key;
// ParseHeader's *KeyError unwraps to it.
var ErrInvalidKey = idempotency.ErrInvalidKey

// KeyError says why a key was refused.
type KeyError = idempotency.KeyError

// ParseHeader reads an Idempotency-Key field value (an RFC 8941 sf-string,
// "8e03978e-…") and returns the key. Anything but a single quoted string of
// 1 to MaxKeyLen printable ASCII characters is refused with a *KeyError.
func ParseHeader(value string) (string, error) { return idempotency.ParseHeader(value) }

// Limits bound the work of canonicalising one body. Zero fields take the
// defaults: 1 MiB (DefaultMaxBodyBytes) and 64 levels of nesting (DefaultMaxDepth).
type Limits = idempotency.Limits

// Defaults for Limits.
const (
	DefaultMaxBodyBytes = idempotency.DefaultMaxBodyBytes
	DefaultMaxDepth     = idempotency.DefaultMaxDepth
)

// ErrTooLarge and ErrTooDeep are the sentinels for a body Canonical refuses;
// its *SizeError and *DepthError unwrap to them.
var (
	ErrTooLarge = idempotency.ErrTooLarge
	ErrTooDeep  = idempotency.ErrTooDeep
)

// SizeError says how large a refused body was.
type SizeError = idempotency.SizeError

// DepthError says which nesting depth a refused body exceeded.
type DepthError = idempotency.DepthError

// Canonical returns the form of body that is compared, and whether it is
// JSON. A JSON body (valid UTF-8, whatever its Content-Type) loses its
// whitespace and has its object keys sorted by UTF-16 code units, numbers and
// strings written as JavaScript's JSON.stringify writes them; any other body
// is returned as it is. Hash the result with a marker of the kind ("j:" or
// "b:") so that a text body can never equal a JSON one.
func Canonical(body []byte, l Limits) (canon []byte, isJSON bool, err error) {
	return idempotency.Canonical(body, l)
}
