package idempotency

import (
	"strings"

	"github.com/gatewaycircuit/gatewaycircuit/policy/fnv"
)

// An operation names what an action does, e.g.
// "POST https://app.example/api/orders?~1f0c…". It is what the ledger
// stores, so it holds no secret: the query string (where apps put API keys
// and tokens) and the fragment are replaced by a hash of them. Two requests
// that differ only in their query are still two operations.
//
// The principal says on whose behalf the request is made: actions of two
// users of one tab (logout, then login) must never share a key, and a
// server that keys by (user, key) would otherwise replay one user's answer
// to the other. See Principal.

// Operation builds the operation of a request: the method, the URL with
// its query and fragment hashed, and the principal (from
// Principal; "" for the default one). An operation that would still be
// longer than MaxOperationLen (a very long path) is the method and a hash
// of the whole: no URL is ever refused for its length.
func Operation(method, url, principal string) string {
	op := method + " " + url
	if principal != "" {
		op += " @" + principal
	}
	if op = redact(op); len(op) > MaxOperationLen {
		op = method + " #" + hash64(op)
	}
	return op
}

// Principal identifies the credentials of a request by a hash of its
// credentials mode (fetch's "omit", "same-origin", "include") and its
// Authorization header, or "" for a request with the default mode and no
// Authorization. Cookies cannot be read by the page (HttpOnly): after a
// cookie logout call Ledger.Forget.
func Principal(credentials, authorization string) string {
	if (credentials == "" || credentials == "same-origin") && authorization == "" {
		return ""
	}
	return hash64(credentials + "\n" + authorization)
}

// redact replaces the query and fragment of operation's URL by "?~" and
// their hash. It is idempotent: the ledger applies it to every
// operation it is given, so that callers building their own strings (the
// shim's "METHOD URL") never store a query either.
func redact(operation string) string {
	url, principal := operation, ""
	if n := len(operation) - len(" @") - hashLen; n >= 0 && operation[n:n+2] == " @" && isHash(operation[n+2:]) {
		url, principal = operation[:n], operation[n:]
	}
	q := strings.IndexAny(url, "?#")
	if q < 0 {
		return url + principal
	}
	// Everything from the first '?' or '#' is hashed together: a query and
	// a fragment, or a label a caller already hashed its own way ("?#…"):
	// two different tails stay two operations, and none is kept in clear.
	if tail := url[q:]; !(len(tail) == 2+hashLen && tail[:2] == "?~" && isHash(tail[2:])) {
		url = url[:q] + "?~" + hash64(tail)
	}
	return url + principal
}

// hashLen is the length of hash64's answer.
const hashLen = 16

// hash64 is the 64-bit FNV-1a hash of s, in 16 hex digits.
func hash64(s string) string {
	const digits = "0123456789abcdef"
	h := fnv.Sum64a(s)
	out := make([]byte, hashLen)
	for i := hashLen - 1; i >= 0; i, h = i-1, h>>4 {
		out[i] = digits[h&15]
	}
	return string(out)
}

func isHash(s string) bool {
	if len(s) != hashLen {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}
